#pragma once
// The backward of the pooling ops that keep one element per window and whose windows the pool kernels
// cannot walk back (fractional_max_pool2d/3d): the gradient added into a zero input at each output's
// index. Recorded as `node` (PyTorch's BackwardBackward0 of the op); its own gradient gathers through the
// same indices, and like PyTorch's node it also takes the forward's input, whose gradient is zero, so
// that under create_graph the result requires grad where the input does.
#include "tensor/tensor_api.h"

namespace ember::nn::functional::detail {

// `indices` has the output's sizes and holds positions in the input's last `spatial_dims` dims, built
// in range by the forward (they are not checked again).
Tensor index_pool_backward(const Tensor& grad, const Tensor& input, const Tensor& indices, size_t spatial_dims,
                           const char* node);

}  // namespace ember::nn::functional::detail
