#pragma once
// Options of batch norm, as LibTorch 1.13's torch::nn::BatchNormOptions and
// torch::nn::functional::BatchNormFuncOptions (https://pytorch.org/docs/1.13/generated/torch.nn.BatchNorm2d.html).
#include <cstdint>
#include <optional>

#include "nn/arg.h"
#include "tensor/tensor.h"

namespace ember::nn {

// BatchNorm1d/2d/3d: `momentum` nullopt makes the running statistics a cumulative average (the
// module's job: it passes 1 / num_batches_tracked to functional::detail::batch_norm).
struct BatchNormOptions {
  /* implicit */ BatchNormOptions(int64_t num_features) : num_features_(num_features) {}
  EMBER_ARG(int64_t, num_features);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(std::optional<double>, momentum) = 0.1;
  EMBER_ARG(bool, affine) = true;
  EMBER_ARG(bool, track_running_stats) = true;
};

using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;
using BatchNorm3dOptions = BatchNormOptions;

namespace functional {

// F::batch_norm(input, running_mean, running_var, BatchNormFuncOptions().weight(w).training(true)).
struct BatchNormFuncOptions {
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(bool, training) = false;
  // nullopt is refused here (LibTorch would read an empty optional): see BatchNormOptions.
  EMBER_ARG(std::optional<double>, momentum) = 0.1;
  EMBER_ARG(double, eps) = 1e-5;
};

}  // namespace functional
}  // namespace ember::nn
