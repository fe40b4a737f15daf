#pragma once
// Options of instance norm, as LibTorch 1.13's torch::nn::InstanceNormOptions and
// torch::nn::functional::InstanceNormFuncOptions
// (https://pytorch.org/docs/1.13/generated/torch.nn.InstanceNorm2d.html).
#include <cstdint>

#include "nn/arg.h"
#include "tensor/tensor.h"

namespace ember::nn {

// InstanceNorm1d/2d/3d: each sample's channels normalised on their own.
struct InstanceNormOptions {
  /* implicit */ InstanceNormOptions(int64_t num_features) : num_features_(num_features) {}
  EMBER_ARG(int64_t, num_features);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(double, momentum) = 0.1;
  EMBER_ARG(bool, affine) = false;
  EMBER_ARG(bool, track_running_stats) = false;
};

using InstanceNorm1dOptions = InstanceNormOptions;
using InstanceNorm2dOptions = InstanceNormOptions;
using InstanceNorm3dOptions = InstanceNormOptions;

namespace functional {

// F::instance_norm(input, InstanceNormFuncOptions().running_mean(m).running_var(v).use_input_stats(true)).
struct InstanceNormFuncOptions {
  EMBER_ARG(Tensor, running_mean) = Tensor();
  EMBER_ARG(Tensor, running_var) = Tensor();
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(bool, use_input_stats) = true;
  EMBER_ARG(double, momentum) = 0.1;
  EMBER_ARG(double, eps) = 1e-5;
};

}  // namespace functional
}  // namespace ember::nn
