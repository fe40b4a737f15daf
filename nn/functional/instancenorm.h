#pragma once
// Instance norm, as LibTorch 1.13's torch::nn::functional::instance_norm
// (https://pytorch.org/docs/1.13/generated/torch.nn.functional.instance_norm.html): each sample's
// channels normalised on their own, as ATen does it, a batch norm over the input seen as one sample of
// N × C channels.
//
//   auto y = F::instance_norm(x, F::InstanceNormFuncOptions().weight(w).bias(b));
//
// With use_input_stats the statistics are the instance's, and running statistics (given ones) take the
// mean over the batch of the per-instance updates; without, the running statistics normalise.
#include "nn/options/instancenorm.h"
#include "tensor/tensor.h"

namespace ember::nn::functional {

Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options = {});

namespace detail {
Tensor instance_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                     const Tensor& bias, bool use_input_stats, double momentum, double eps);
}  // namespace detail

}  // namespace ember::nn::functional
