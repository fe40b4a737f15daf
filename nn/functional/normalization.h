#pragma once
// Layer norm, group norm and local response norm, as LibTorch 1.13's torch::nn::functional::layer_norm and group_norm
// (https://pytorch.org/docs/1.13/generated/torch.nn.functional.layer_norm.html, .../group_norm.html).
//
//   auto y = F::layer_norm(x, F::LayerNormFuncOptions({512}).weight(gamma).bias(beta));
//   auto z = F::group_norm(images, F::GroupNormFuncOptions(8).weight(w).bias(b));
//
// Each normalises rows by their own mean and biased variance in one kernel (layer norm: the last dims,
// normalized_shape; group norm: each sample's group of channels), then scales and shifts elementwise
// (layer norm) or per channel (group norm). One NativeLayerNormBackward0 or NativeGroupNormBackward0
// node: grad_in in one kernel, the weight and bias gradients in one more; under create_graph the
// backward is composed of public ops, so second order works.
#include "nn/options/normalization.h"
#include "tensor/tensor.h"

namespace ember::nn::functional {

Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options);
Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options);
// Composed as PyTorch composes it: the squares averaged over a window of channels by avg_pool2d (PyTorch
// takes avg_pool3d past 3 dims; the windows and their values are the same), then input / (k + alpha
// avg)^beta. An empty input is returned as it is, as Python's is.
Tensor local_response_norm(const Tensor& input, const LocalResponseNormFuncOptions& options);

namespace detail {
Tensor layer_norm(const Tensor& input, const std::vector<int64_t>& normalized_shape, const Tensor& weight,
                  const Tensor& bias, double eps);
Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps);
}  // namespace detail

}  // namespace ember::nn::functional
