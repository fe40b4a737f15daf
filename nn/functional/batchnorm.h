#pragma once
// Batch norm, as LibTorch 1.13's torch::nn::functional::batch_norm
// (https://pytorch.org/docs/1.13/generated/torch.nn.functional.batch_norm.html): per channel (dim 1),
// normalised over the batch and the spatial dims, then scaled by weight and shifted by bias.
//
//   auto y = F::batch_norm(x, running_mean, running_var, F::BatchNormFuncOptions().training(true));
//
// Training normalises with the batch's statistics (biased variance) and updates running_mean and
// running_var in place, r = (1 - momentum) r + momentum s, the variance unbiased; eval uses the running
// statistics. One NativeBatchNormBackward0 node; its backward is the norm kernels' (two dispatches), or
// under create_graph a composition of public ops, so second order works.
#include "nn/options/batchnorm.h"
#include "tensor/tensor.h"

namespace ember::nn::functional {

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options = {});

namespace detail {
// What BatchNorm modules call: momentum already resolved (1 / num_batches_tracked for a cumulative
// average).
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps);
}  // namespace detail

}  // namespace ember::nn::functional
