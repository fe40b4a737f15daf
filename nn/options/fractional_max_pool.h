#pragma once
// Options of FractionalMaxPool2d/3d and their functionals, with LibTorch 1.13's names and fields:
// `F::fractional_max_pool2d(x, F::FractionalMaxPool2dFuncOptions(3).output_size(5))`. Exactly one of
// output_size and output_ratio is given; _random_samples, when defined, fixes the windows (N x C x D
// values in [0, 1) in the input's dtype) instead of a fresh draw per call.
#include <optional>

#include "nn/arg.h"
#include "nn/expanding_array.h"
#include "tensor/tensor_api.h"

namespace ember::nn {

// https://pytorch.org/docs/1.13/generated/torch.nn.FractionalMaxPool2d.html
template <size_t D>
struct FractionalMaxPoolOptions {
  using ExpandingArrayDouble = ExpandingArray<D, double>;
  FractionalMaxPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size) {}
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(std::optional<ExpandingArray<D>>, output_size) = std::nullopt;
  // The output size as a fraction of the input's, each in (0, 1): int(input size * ratio).
  EMBER_ARG(std::optional<ExpandingArrayDouble>, output_ratio) = std::nullopt;
  EMBER_ARG(Tensor, _random_samples);
};
using FractionalMaxPool2dOptions = FractionalMaxPoolOptions<2>;
using FractionalMaxPool3dOptions = FractionalMaxPoolOptions<3>;

namespace functional {
using FractionalMaxPool2dFuncOptions = FractionalMaxPool2dOptions;
using FractionalMaxPool3dFuncOptions = FractionalMaxPool3dOptions;
}  // namespace functional

}  // namespace ember::nn
