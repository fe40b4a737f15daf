#pragma once
// FractionalMaxPool2d/3d (https://pytorch.org/docs/1.13/generated/torch.nn.FractionalMaxPool2d.html):
// max pooling over windows whose starts advance by a fractional step, drawn afresh each call unless
// the options fix the samples (then kept as the buffer `_random_samples`, as in LibTorch).
//   nn::FractionalMaxPool2d pool(nn::FractionalMaxPool2dOptions(3).output_ratio(0.5));
//   pool(x)  // (N, C, 32, 32) -> (N, C, 16, 16)
#include <string>
#include <tuple>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options/fractional_max_pool.h"

namespace ember::nn {

template <size_t D>
class FractionalMaxPoolImpl : public Cloneable<FractionalMaxPoolImpl<D>> {
 public:
  FractionalMaxPoolImpl(ExpandingArray<D> kernel_size)
      : FractionalMaxPoolImpl(FractionalMaxPoolOptions<D>(kernel_size)) {}
  // Throws PyTorch's errors unless exactly one of output_size and output_ratio is set, the ratio in (0, 1).
  explicit FractionalMaxPoolImpl(const FractionalMaxPoolOptions<D>& options);
  void reset() override;
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);

  FractionalMaxPoolOptions<D> options;
  Tensor _random_samples;
};
using FractionalMaxPool2dImpl = FractionalMaxPoolImpl<2>;
using FractionalMaxPool3dImpl = FractionalMaxPoolImpl<3>;
EMBER_MODULE(FractionalMaxPool2d);
EMBER_MODULE(FractionalMaxPool3d);

}  // namespace ember::nn
