#pragma once
// Upsample (https://pytorch.org/docs/1.13/generated/torch.nn.Upsample.html): resizes the spatial dims of
// (N, C, ...) input to a size or by a scale factor, through F::interpolate.
#include <string>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options/upsampling.h"

namespace ember::nn {

// Nearest or (bi/tri)linear resizing; one scale factor applies to every spatial dim, as in Python.
//   nn::Upsample up(nn::UpsampleOptions().scale_factor(std::vector<double>{2}).mode(ember::kBilinear));
class UpsampleImpl : public Cloneable<UpsampleImpl> {
 public:
  explicit UpsampleImpl(const UpsampleOptions& options = {});
  void reset() override;
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  UpsampleOptions options;
};
EMBER_MODULE(Upsample);

}  // namespace ember::nn
