#pragma once
// Convolutions as LibTorch's torch::nn::functional has them: conv1d, conv2d, conv3d and their transposes,
// batched or unbatched, with PyTorch's checks and messages. Each records one ConvolutionBackward0 node
// whose backward is made of these same differentiable convolutions (the input gradient is a transposed
// convolution, the weight gradient a convolution of the input with the output gradient), so gradients of
// any order work. https://pytorch.org/docs/1.13/nn.functional.html#convolution-functions
//
//   auto y = F::conv2d(x, w, F::Conv2dFuncOptions().padding(1).bias(b));
//
// Where ember deviates from PyTorch: the kernels take floating dtypes only (PyTorch's CPU also takes
// integers); float16 and bfloat16 accumulate in float32.
#include <optional>
#include <vector>

#include "nn/options/conv.h"

namespace ember::nn::functional {

Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options = {});
Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options = {});
Tensor conv3d(const Tensor& input, const Tensor& weight, const Conv3dFuncOptions& options = {});

namespace detail {
// relu(conv1d/2d/3d(input, weight, options)) with the relu applied as the convolution stores its result,
// recorded as the two ops PyTorch runs (ConvolutionBackward0, then ReluBackward0): nn::Sequential runs a
// Conv followed by a ReLU so. D is 1, 2 or 3.
template <size_t D>
Tensor conv_relu(const Tensor& input, const Tensor& weight, const ConvFuncOptions<D>& options);
}  // namespace detail

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const ConvTranspose1dFuncOptions& options = {});
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const ConvTranspose2dFuncOptions& options = {});
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const ConvTranspose3dFuncOptions& options = {});

// The output_padding that makes a transposed convolution of `input` produce `output_size` (its D spatial
// sizes, or all D + 2 sizes), as LibTorch's ConvTransposeNdImpl::_output_padding computes it for the
// modules' forward(input, output_size); without output_size, `output_padding` itself. Throws PyTorch's
// errors for sizes out of range.
template <size_t D>
std::vector<int64_t> conv_transpose_output_padding(const Tensor& input, std::optional<IntArrayRef> output_size,
                                                   const ExpandingArray<D>& output_padding,
                                                   const ExpandingArray<D>& stride, const ExpandingArray<D>& padding,
                                                   const ExpandingArray<D>& kernel_size,
                                                   const ExpandingArray<D>& dilation = 1);

}  // namespace ember::nn::functional
