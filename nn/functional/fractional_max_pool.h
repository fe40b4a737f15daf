#pragma once
// Fractional max pooling (https://pytorch.org/docs/1.13/generated/torch.nn.functional.fractional_max_pool2d.html):
// the maximum over windows of a fixed size whose starts advance by a fractional step, in/out on average,
// at offsets drawn per plane. Inputs are (N, C, H, W) or (C, H, W) for 2-d, (N, C, T, H, W) or
// (C, T, H, W) for 3-d, floating.
//
// The output may reach out + kernel - 1 == in along a dim in 2-d, not in 3-d (PyTorch's checks differ).
// Each plane's windows follow PyTorch's rule from its samples u (one per spatial dim): with
// alpha = (in - kernel) / (out - 1) in the input's dtype, window i starts at int((i + u) * alpha) -
// int(u * alpha), and the last one ends at the input's end. The maximum is the first largest element,
// except that a NaN wins, a later NaN over an earlier one; indices are positions in the input plane
// (h * W + w, or (t * H + h) * W + w), as max_pool's. The gradient goes to those positions, summed where
// windows share one. PyTorch's nodes: FractionalMaxPool2DBackward0 and its BackwardBackward0 (3D alike).
//
// PyTorch reads the samples unchecked; ember wants them (N, C, D) in the input's dtype and says so. A
// negative sample, with which PyTorch's CPU kernel reads outside the input, gets windows clamped to it.
#include <tuple>

#include "nn/options/fractional_max_pool.h"
#include "tensor/tensor_api.h"

namespace ember::nn::functional {

Tensor fractional_max_pool2d(const Tensor& input, const FractionalMaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(const Tensor& input,
                                                              const FractionalMaxPool2dFuncOptions& options);
Tensor fractional_max_pool3d(const Tensor& input, const FractionalMaxPool3dFuncOptions& options);
std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(const Tensor& input,
                                                              const FractionalMaxPool3dFuncOptions& options);

}  // namespace ember::nn::functional
