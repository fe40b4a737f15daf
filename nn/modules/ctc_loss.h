#pragma once
// The CTC loss as a module (https://pytorch.org/docs/1.13/generated/torch.nn.CTCLoss.html).
//   nn::CTCLoss loss(nn::CTCLossOptions().blank(0).zero_infinity(true));
//   loss(log_probs, targets, input_lengths, target_lengths)
#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options/ctc_loss.h"

namespace ember::nn {

class CTCLossImpl : public Cloneable<CTCLossImpl> {
 public:
  explicit CTCLossImpl(CTCLossOptions options = {});
  void reset() override;
  Tensor forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                 const Tensor& target_lengths);

  CTCLossOptions options;
};
EMBER_MODULE(CTCLoss);

}  // namespace ember::nn
