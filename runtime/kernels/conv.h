#pragma once
// The convolution kernel family: forward, input gradient and weight gradient of a grouped convolution
// over 1 to 3 spatial dims, with stride, zero padding and dilation. Transposed convolution is the input
// gradient (its forward) and the forward (its input gradient), so it needs no kernel of its own.
//
// Shapes, for `spatial` = S dims (batch B, groups G, Cin and Cout divisible by G):
//   input        B × Cin × I[0..S)
//   weight       Cout × Cin/G × Kk[0..S)
//   output       B × Cout × O[0..S)
// Output position o reads input position o·stride − padding + k·dilation for each kernel offset k, and
// input positions outside [0, I) read as zero. The sizes are free: O need not be the largest that fits
// (asymmetric padding is a larger O, conv_transpose's output_padding a larger I), and input positions
// that no (o, k) reaches get zero gradient. Every operand is contiguous and all have one floating dtype
// (float32, float16, bfloat16, float64); float16 and bfloat16 accumulate in float32.
#include <array>
#include <optional>

#include "runtime/kernels/kernels.h"

namespace ember {

inline constexpr int kMaxConvSpatialDims = 3;

// Geometry of one convolution. Entries past `spatial` are ignored.
struct ConvGeometry {
  int spatial = 2;  // 1, 2 or 3
  int64_t groups = 1;
  std::array<int64_t, kMaxConvSpatialDims> stride{1, 1, 1};
  std::array<int64_t, kMaxConvSpatialDims> padding{0, 0, 0};  // before each dim; after it follows from O
  std::array<int64_t, kMaxConvSpatialDims> dilation{1, 1, 1};
};

// output = conv(input, weight) + bias (bias: Cout elements, optional), then relu when asked (NaN stays
// NaN, as torch.relu), which a kernel can apply as it stores.
struct ConvForwardArgs {
  TensorRef output;
  TensorRef input;
  TensorRef weight;
  std::optional<TensorRef> bias;
  ConvGeometry geometry;
  bool relu = false;
};

// grad_input[b, c, i] = Σ over (co, k, o) with o·stride − padding + k·dilation = i of
// weight[co, c mod Cin/G, k] · grad_output[b, co, o], co in c's group; + bias[c] (optional), which
// makes it a transposed convolution with its bias.
struct ConvInputGradArgs {
  TensorRef grad_input;
  TensorRef grad_output;
  TensorRef weight;
  std::optional<TensorRef> bias;
  ConvGeometry geometry;
};

// grad_weight[co, c, k] = Σ over (b, o) of grad_output[b, co, o] · input[b, g·Cin/G + c, o·stride − padding
// + k·dilation], g = co's group; and grad_bias[co] = Σ over (b, o) of grad_output[b, co, o] (optional,
// Cout elements), which a kernel can sum as it reads grad_output for the weight gradient.
struct ConvWeightGradArgs {
  TensorRef grad_weight;
  TensorRef grad_output;
  TensorRef input;
  ConvGeometry geometry;
  std::optional<TensorRef> grad_bias;
};

// The sizes every entry point agrees on, read from its operands.
struct ConvShape {
  int spatial = 2;
  int64_t batch = 0;
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  int64_t groups = 1;
  std::array<int64_t, kMaxConvSpatialDims> in_size{1, 1, 1};      // I, 1 past `spatial`
  std::array<int64_t, kMaxConvSpatialDims> out_size{1, 1, 1};     // O
  std::array<int64_t, kMaxConvSpatialDims> kernel_size{1, 1, 1};  // Kk
};

// Throw Error unless the arguments are as described above; both backends check with them.
ConvShape check_conv_args(const ConvForwardArgs& args);
ConvShape check_conv_args(const ConvInputGradArgs& args);
ConvShape check_conv_args(const ConvWeightGradArgs& args);

class ReduceKernels;
class ElementwiseKernels;
// Writes args.grad_bias, when there is one, by summing grad_output with the reduce family: for the
// kernels that do not sum it alongside the weight gradient.
void conv_bias_grad_by_reduction(ReduceKernels& reduce, Stream& stream, const ConvWeightGradArgs& args);
// Applies args.relu, when asked, to the output in place: for the kernels that do not apply it as they store.
void conv_relu_in_place(ElementwiseKernels& elementwise, Stream& stream, const ConvForwardArgs& args);

class ConvKernels : public KernelFamily {
 public:
  static constexpr std::string_view kName = "conv";
  virtual void forward(Stream& stream, const ConvForwardArgs& args) = 0;
  virtual void input_grad(Stream& stream, const ConvInputGradArgs& args) = 0;
  virtual void weight_grad(Stream& stream, const ConvWeightGradArgs& args) = 0;
};

}  // namespace ember
