// The checks of the convolution arguments that every backend makes before it launches.
#include "runtime/kernels/conv.h"

#include <string>

#include "runtime/error.h"
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/reduce.h"

namespace ember {

namespace {

std::string sizes_text(const TensorRef& ref) {
  std::string text = "[";
  for (int d = 0; d < ref.ndim; ++d) text += (d ? ", " : "") + std::to_string(ref.sizes[d]);
  return text + "]";
}

void check_operand(const TensorRef& ref, const char* name, int ndim, DType dtype) {
  if (ref.ndim != ndim) {
    throw Error(std::string("conv kernel: ") + name + " has " + std::to_string(ref.ndim) + " dims " +
                sizes_text(ref) + ", expected " + std::to_string(ndim));
  }
  if (ref.dtype != dtype) {
    throw Error(std::string("conv kernel: ") + name + " is " + std::string(dtype_name(ref.dtype)) +
                ", the other operands " + std::string(dtype_name(dtype)));
  }
  if (ref.numel() > 0 && !ref.is_contiguous()) throw Error(std::string("conv kernel: ") + name + " must be contiguous");
  if (ref.numel() > 0 && ref.allocation == nullptr) {
    throw Error(std::string("conv kernel: ") + name + " has no memory");
  }
}

// Reads the shape from input-like (B × C × I), output-like (B × C × O) and weight operands and checks
// what they must agree on.
ConvShape shape_of(const ConvGeometry& g, const TensorRef& input, const TensorRef& output,
                   const TensorRef& weight, const char* input_name, const char* output_name) {
  if (g.spatial < 1 || g.spatial > kMaxConvSpatialDims) {
    throw Error("conv kernel: " + std::to_string(g.spatial) + " spatial dims; it takes 1 to 3");
  }
  if (!is_floating_point(input.dtype)) {
    throw Error("conv kernel: floating operands only, not " + std::string(dtype_name(input.dtype)));
  }
  const int ndim = g.spatial + 2;
  check_operand(input, input_name, ndim, input.dtype);
  check_operand(output, output_name, ndim, input.dtype);
  check_operand(weight, "weight", ndim, input.dtype);
  ConvShape s;
  s.spatial = g.spatial;
  s.batch = input.sizes[0];
  s.in_channels = input.sizes[1];
  s.out_channels = output.sizes[1];
  s.groups = g.groups;
  if (g.groups < 1 || s.in_channels % g.groups != 0 || s.out_channels % g.groups != 0) {
    throw Error("conv kernel: " + std::to_string(g.groups) + " groups do not divide " +
                std::to_string(s.in_channels) + " input and " + std::to_string(s.out_channels) +
                " output channels");
  }
  if (output.sizes[0] != s.batch) throw Error("conv kernel: input and output batch sizes differ");
  if (weight.sizes[0] != s.out_channels || weight.sizes[1] != s.in_channels / g.groups) {
    throw Error("conv kernel: weight " + sizes_text(weight) + " does not match " +
                std::to_string(s.in_channels) + " input and " + std::to_string(s.out_channels) +
                " output channels in " + std::to_string(g.groups) + " groups");
  }
  for (int d = 0; d < g.spatial; ++d) {
    s.in_size[d] = input.sizes[2 + d];
    s.out_size[d] = output.sizes[2 + d];
    s.kernel_size[d] = weight.sizes[2 + d];
    if (g.stride[d] < 1 || g.dilation[d] < 1 || g.padding[d] < 0) {
      throw Error("conv kernel: stride and dilation must be positive and padding non-negative");
    }
  }
  return s;
}

void check_bias(const std::optional<TensorRef>& bias, int64_t channels, DType dtype, const char* name = "bias") {
  if (!bias) return;
  if (bias->ndim != 1 || bias->sizes[0] != channels) {
    throw Error(std::string("conv kernel: ") + name + " " + sizes_text(*bias) +
                " must hold one value per channel of the result");
  }
  check_operand(*bias, name, 1, dtype);
}

}  // namespace

ConvShape check_conv_args(const ConvForwardArgs& args) {
  ConvShape s = shape_of(args.geometry, args.input, args.output, args.weight, "input", "output");
  check_bias(args.bias, s.out_channels, args.input.dtype);
  return s;
}

ConvShape check_conv_args(const ConvInputGradArgs& args) {
  ConvShape s = shape_of(args.geometry, args.grad_input, args.grad_output, args.weight, "grad_input", "grad_output");
  check_bias(args.bias, s.in_channels, args.grad_input.dtype);
  return s;
}

ConvShape check_conv_args(const ConvWeightGradArgs& args) {
  ConvShape s = shape_of(args.geometry, args.input, args.grad_output, args.grad_weight, "input", "grad_output");
  check_bias(args.grad_bias, s.out_channels, args.input.dtype, "grad_bias");
  return s;
}

void conv_bias_grad_by_reduction(ReduceKernels& reduce, Stream& stream, const ConvWeightGradArgs& args) {
  if (!args.grad_bias || args.grad_bias->numel() == 0) return;
  // Every dim but the channels.
  sum_dims(reduce, stream, *args.grad_bias, args.grad_output, ((1u << args.grad_output.ndim) - 1u) & ~2u);
}

void conv_relu_in_place(ElementwiseKernels& elementwise, Stream& stream, const ConvForwardArgs& args) {
  if (!args.relu || args.output.numel() == 0) return;
  UnaryArgs relu;
  relu.op = UnaryOp::Relu;
  relu.out = args.output;
  relu.in = args.output;
  relu.compute = args.output.dtype;
  elementwise.unary(stream, relu);
}

}  // namespace ember
