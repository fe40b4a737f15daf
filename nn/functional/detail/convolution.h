#pragma once
// The differentiable convolutions that every convolution functional and its gradients are made of.
// Each of the three convolutions runs one ConvKernels entry point and records one node:
//
//   convolution(x, w, b)            d/dx: convolution_transpose(g, w)   d/dw: convolution_weight(g, x)
//   convolution_transpose(x, w, b)  d/dx: convolution(g, w)             d/dw: convolution_weight(x, g)
//   convolution_weight(g, x)        d/dg: convolution(x, v)             d/dx: convolution_transpose(g, v)
//
// and a bias's gradient is the sum of g over the batch and positions (which the weight gradient's
// kernel sums too where convolution needs both). The first two (PyTorch's ConvolutionBackward0) take
// their gradients through convolution_backward, which computes all three as one node, as PyTorch's
// ConvolutionBackwardBackward0, whose own backward is made of the three convolutions again: gradients of
// any order work. Operands are batched (B × C × spatial), of one floating dtype and on one device, already
// checked by the caller; the output's spatial sizes are given, since "same" padding and output_padding
// make them differ from the formula's. Internal to nn/functional.
#include <array>
#include <vector>

#include "runtime/kernels/conv.h"
#include "tensor/tensor.h"

namespace ember::nn::functional::detail {

// PyTorch's node names: the convolutions', and that of their backward under create_graph.
inline constexpr const char* kConvolutionNode = "ConvolutionBackward0";
inline constexpr const char* kConvolutionBackwardNode = "ConvolutionBackwardBackward0";

// out[b, co, o] = bias[co] + Σ weight[co, c, k] · input[b, g·Cin/G + c, o·stride − padding + k·dilation]
// with out's spatial sizes `out_size`; bias may be undefined. With `relu`, relu(out), applied as the kernel
// stores and recorded as the two ops PyTorch runs (ConvolutionBackward0, then ReluBackward0).
Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias, const ConvGeometry& geometry,
                   IntArrayRef out_size, bool relu = false);

// The transposed convolution: the input gradient of `convolution` for a grad_output `input`, with
// spatial sizes `out_size`, plus bias. weight is in_channels × out_channels/G × kernel.
Tensor convolution_transpose(const Tensor& input, const Tensor& weight, const Tensor& bias,
                             const ConvGeometry& geometry, IntArrayRef out_size);

// The weight gradient of `convolution` for grad_output `grad_output` and input `input`: Cout × Cin/G ×
// kernel_size.
Tensor convolution_weight(const Tensor& grad_output, const Tensor& input, const ConvGeometry& geometry,
                          IntArrayRef kernel_size);

// The gradients {input, weight, bias} of convolution(input, weight, bias) (or of convolution_transpose
// when `transposed`) for the output gradient `grad`; only those in `mask` are computed, the others are
// undefined.
std::vector<Tensor> convolution_backward(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                         const ConvGeometry& geometry, bool transposed, std::array<bool, 3> mask);

}  // namespace ember::nn::functional::detail
