#pragma once
// What the 2-d pooling ops (pooling.cpp) share with the ops built from their passes (pooling3d.cpp) and
// with max unpooling (max_unpool.cpp): PyTorch's output size and dtype check, one pool kernel launch over
// the last two dims, its recorded backward, and the gather through max pooling's indices.
#include <string>
#include <tuple>
#include <vector>

#include "nn/expanding_array.h"
#include "runtime/error.h"
#include "runtime/kernels/pool.h"
#include "tensor/tensor_api.h"

namespace ember::nn::functional::detail {

// ATen's pooling_output_shape, with its checks of stride and padding.
int64_t pooling_output_shape(int64_t in, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation,
                             bool ceil_mode);

// The pool kernels take floating dtypes; PyTorch's message names the op's CPU kernel.
void check_floating(const Tensor& input, const char* kernel);

// `input` pooled over its last two dims to out_h x out_w by one kernel launch, with no autograd record.
// Indices (positions in the input's H x W plane) for the max ops, else undefined.
std::tuple<Tensor, Tensor> pool_planes(const Tensor& input, const PoolGeometry& g, int64_t out_h, int64_t out_w);

// The gradient of pool_planes for an input of `in_sizes`, recorded as the 2-d op's backward node.
// `input` (which may be undefined) is the forward's input: an input of the node with a zero gradient, as
// in PyTorch.
Tensor pool_planes_backward(const Tensor& grad_out, const Tensor& indices, const Tensor& input,
                            IntArrayRef in_sizes, const PoolGeometry& g);

// The elements of `values` (... x spatial dims) that `indices` (... x spatial dims, positions in the
// flattened spatial dims of `values`) name: the gradient of max pooling's backward and of max unpooling.
// The indices must be in range: the forward made or checked them.
Tensor gather_positions(const Tensor& values, const Tensor& indices, int64_t spatial_dims);

// LibTorch's _list_with_default: the adaptive output size of the last D dims, a missing one keeping the
// input's size.
template <size_t D>
std::vector<int64_t> sizes_with_default(const ExpandingArrayWithOptionalElem<D>& output_size, const Tensor& input) {
  if (input.dim() <= static_cast<int64_t>(D)) {
    throw Error("Input dimension should be at least " + std::to_string(D + 1));
  }
  std::vector<int64_t> sizes(D);
  for (size_t d = 0; d < D; ++d) sizes[d] = output_size[d].value_or(input.size(input.dim() - D + d));
  return sizes;
}

}  // namespace ember::nn::functional::detail
