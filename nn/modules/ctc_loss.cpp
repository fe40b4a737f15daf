#include "nn/modules/ctc_loss.h"

#include "nn/functional/ctc_loss.h"

namespace ember::nn {

CTCLossImpl::CTCLossImpl(CTCLossOptions options) : options(std::move(options)) { reset(); }

void CTCLossImpl::reset() {}

Tensor CTCLossImpl::forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                            const Tensor& target_lengths) {
  return functional::ctc_loss(log_probs, targets, input_lengths, target_lengths, options);
}

}  // namespace ember::nn
