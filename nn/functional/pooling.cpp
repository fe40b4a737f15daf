// Pooling: PyTorch's checks and messages, the output sizes, one PoolKernels call forward and one
// backward, and the autograd records with their formulas.
//
// The 2-d ops are ATen's (max_pool2d_with_indices, avg_pool2d, _adaptive_avg_pool2d,
// adaptive_max_pool2d), each one node. The 1-d ops call them on the input with a unit
// height and squeeze it away again, as PyTorch does, so their grad_fn is PyTorch's too
// (SqueezeBackward1). max_pool1d without grad takes PyTorch's separate no-indices path, with its own
// checks: an output of zero width is then allowed.
//
// Backward formulas: each forward's backward is itself a recorded op on the pool kernels
// (MaxPool2DWithIndicesBackwardBackward0, ...), whose own gradient is PyTorch's: a gather through the
// indices for the max ops, the forward pooling again for the average ones.
#include "nn/functional/pooling.h"

#include <string>

#include "autograd/grad_mode.h"
#include "autograd/record.h"
#include "nn/functional/detail/pool_passes.h"
#include "runtime/kernels/pool.h"
#include "tensor/ops_support.h"

namespace ember::nn::functional {

namespace {

using detail::check_floating;
using detail::pooling_output_shape;

std::string text(int64_t value) { return std::to_string(value); }

// ---- PyTorch's output sizes and shape checks (ATen/native/Pool.h) ----

int64_t div_round_down(int64_t x, int64_t y) {
  int64_t q = x / y;
  const int64_t r = x % y;
  if (r != 0 && ((r < 0) != (y < 0))) --q;
  return q;
}

void pool2d_shape_check(const Tensor& input, const PoolGeometry& g, int64_t out_h, int64_t out_w) {
  const PoolWindow& h = g.window[0];
  const PoolWindow& w = g.window[1];
  if (h.kernel <= 0 || w.kernel <= 0) {
    throw Error("kernel size should be greater than zero, but got kH: " + text(h.kernel) + " kW: " + text(w.kernel));
  }
  if (h.stride <= 0 || w.stride <= 0) {
    throw Error("stride should be greater than zero, but got dH: " + text(h.stride) + " dW: " + text(w.stride));
  }
  if (h.dilation <= 0 || w.dilation <= 0) {
    throw Error("dilation should be greater than zero, but got dilationH: " + text(h.dilation) +
                " dilationW: " + text(w.dilation));
  }
  const int64_t ndim = input.dim();
  const bool valid_dims = input.size(1) != 0 && input.size(2) != 0;
  if (!((ndim == 3 && input.size(0) != 0 && valid_dims) || (ndim == 4 && valid_dims && input.size(3) != 0))) {
    throw Error("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:" +
                to_string(input.sizes()));
  }
  if (out_h < 1 || out_w < 1) {
    const std::string planes = text(input.size(-3));
    throw Error("Given input size: (" + planes + "x" + text(input.size(-2)) + "x" + text(input.size(-1)) +
                "). Calculated output size: (" + planes + "x" + text(out_h) + "x" + text(out_w) +
                "). Output size is too small");
  }
}

// PyTorch's checkDimRange message for ops that take 2 to 3 dims.
void check_2_to_3_dims(const Tensor& input, const char* op) {
  if (input.dim() < 2 || input.dim() > 3) {
    throw Error("Expected 2 to 3 dimensions, but got " + text(input.dim()) +
                "-dimensional tensor for argument #1 'self' (while checking arguments for " + op + ")");
  }
}

std::vector<int64_t> with_spatial(const Tensor& input, int64_t out_h, int64_t out_w) {
  std::vector<int64_t> sizes = input.sizes().vec();
  sizes[sizes.size() - 2] = out_h;
  sizes[sizes.size() - 1] = out_w;
  return sizes;
}

PoolKernels& pool_kernels(const Tensor& t) { return ember::detail::kernels_for<PoolKernels>(*t.device()); }

// ---- the records: each forward under its node; the kernel calls are below, in detail:: ----

// The node names of each op's forward and of its backward.
const char* forward_node(PoolOp op) {
  switch (op) {
    case PoolOp::Max: return "MaxPool2DWithIndicesBackward0";
    case PoolOp::Avg: return "AvgPool2DBackward0";
    case PoolOp::AdaptiveMax: return "AdaptiveMaxPool2DBackward0";
    case PoolOp::AdaptiveAvg: return "AdaptiveAvgPool2DBackward0";
  }
  return "";
}
const char* backward_node(PoolOp op) {
  switch (op) {
    case PoolOp::Max: return "MaxPool2DWithIndicesBackwardBackward0";
    case PoolOp::Avg: return "AvgPool2DBackwardBackward0";
    case PoolOp::AdaptiveMax: return "AdaptiveMaxPool2DBackwardBackward0";
    case PoolOp::AdaptiveAvg: return "AdaptiveAvgPool2DBackwardBackward0";
  }
  return "";
}

Tensor pool_recorded(const Tensor& input, const PoolGeometry& g, int64_t out_h, int64_t out_w, Tensor* indices);

// The pooling forward under its node; `indices` receives the max ops' indices.
Tensor pool_recorded(const Tensor& input, const PoolGeometry& g, int64_t out_h, int64_t out_w, Tensor* indices) {
  autograd::Record rec(forward_node(g.op), {&input});
  auto [out, found] = detail::pool_planes(input, g, out_h, out_w);
  if (indices) *indices = found;
  if (!rec) return out;
  rec.save(input);
  if (found.defined()) rec.save_output(found, 1);
  autograd::tensor_list outs = rec.finish(
      {out, found}, [g](autograd::FunctionNode& node, const autograd::tensor_list& grads) {
        const Tensor indices = is_max_pool(g.op) ? node.saved(1) : Tensor();
        const Tensor& input = node.saved(0);
        return autograd::tensor_list{detail::pool_planes_backward(grads[0], indices, input, input.sizes(), g)};
      });
  if (indices) *indices = outs[1];
  return outs[0];
}

PoolGeometry max_geometry(IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation) {
  PoolGeometry g;
  g.op = PoolOp::Max;
  for (int d = 0; d < 2; ++d) g.window[d] = {kernel[d], stride[d], padding[d], dilation[d]};
  return g;
}

// ATen's max_pool2d_with_indices.
std::tuple<Tensor, Tensor> max_pool2d_indices(const Tensor& input, IntArrayRef kernel, IntArrayRef stride,
                                              IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  if (input.dim() != 3 && input.dim() != 4) throw Error("non-empty 3D or 4D (batch mode) tensor expected for input");
  const PoolGeometry g = max_geometry(kernel, stride, padding, dilation);
  const int64_t out_h = pooling_output_shape(input.size(-2), kernel[0], padding[0], stride[0], dilation[0], ceil_mode);
  const int64_t out_w = pooling_output_shape(input.size(-1), kernel[1], padding[1], stride[1], dilation[1], ceil_mode);
  pool2d_shape_check(input, g, out_h, out_w);
  check_floating(input, "max_pool2d");
  Tensor indices;
  Tensor out = pool_recorded(input, g, out_h, out_w, &indices);
  return {out, indices};
}

// ATen's avg_pool2d.
Tensor avg_pool2d_of(const Tensor& input, IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding,
                     bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  if (divisor_override && *divisor_override == 0) throw Error("divisor must be not zero");
  (void)input.size(-3);  // PyTorch reads the planes first: an IndexError below 3 dims
  PoolGeometry g;
  g.op = PoolOp::Avg;
  for (int d = 0; d < 2; ++d) g.window[d] = {kernel[d], stride[d], padding[d], 1};
  g.count_include_pad = count_include_pad;
  g.divisor_override = divisor_override.value_or(0);
  const int64_t out_h = pooling_output_shape(input.size(-2), kernel[0], padding[0], stride[0], 1, ceil_mode);
  const int64_t out_w = pooling_output_shape(input.size(-1), kernel[1], padding[1], stride[1], 1, ceil_mode);
  pool2d_shape_check(input, g, out_h, out_w);
  check_floating(input, "avg_pool2d");
  return pool_recorded(input, g, out_h, out_w, nullptr);
}

// ATen's _adaptive_avg_pool2d and adaptive_max_pool2d.
Tensor adaptive_avg_pool2d_of(const Tensor& input, IntArrayRef output_size) {
  if (output_size[0] < 0 || output_size[1] < 0) {
    throw Error("adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {" +
                text(output_size[0]) + ", " + text(output_size[1]) + "}");
  }
  // PyTorch's shortcut: a 1 x 1 output is the mean over height and width (MeanBackward1).
  if (output_size[0] == 1 && output_size[1] == 1) return input.mean({-1, -2}, true);
  const int64_t ndim = input.dim();
  if (ndim != 3 && ndim != 4) {
    throw Error("adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got " + to_string(input.sizes()));
  }
  for (int64_t d : {ndim - 2, ndim - 1}) {
    if (input.size(d) <= 0) {
      throw Error("adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input "
                  "has sizes " + to_string(input.sizes()) + " with dimension " + text(d) + " being empty");
    }
  }
  check_floating(input, "adaptive_avg_pool2d");
  PoolGeometry g;
  g.op = PoolOp::AdaptiveAvg;
  return pool_recorded(input, g, output_size[0], output_size[1], nullptr);
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d_of(const Tensor& input, IntArrayRef output_size) {
  const int64_t ndim = input.dim();
  if (ndim != 3 && ndim != 4) {
    throw Error("adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: " + to_string(input.sizes()));
  }
  for (int64_t d = 1; d < ndim; ++d) {
    if (input.size(d) <= 0) {
      throw Error("adaptive_max_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input "
                  "has sizes " + to_string(input.sizes()) + " with dimension " + text(d) + " being empty");
    }
  }
  const std::vector<int64_t> sizes = with_spatial(input, output_size[0], output_size[1]);
  for (int64_t size : sizes) {
    if (size < 0) {
      throw Error("Trying to create tensor with negative dimension " + text(size) + ": " + to_string(sizes));
    }
  }
  check_floating(input, "adaptive_max_pool2d");
  PoolGeometry g;
  g.op = PoolOp::AdaptiveMax;
  Tensor indices;
  Tensor out = pool_recorded(input, g, output_size[0], output_size[1], &indices);
  return {out, indices};
}

// max_pool1d's own checks on the path without indices (PyTorch's check_max_pool1d).
int64_t max_pool1d_width(const Tensor& input, const MaxPool1dFuncOptions& o) {
  const int64_t kernel = o.kernel_size()[0], stride = o.stride()[0], padding = o.padding()[0],
                dilation = o.dilation()[0];
  if (kernel <= 0) throw Error("max_pool1d() kernel_size must be greater than zero, but got " + text(kernel));
  if (stride <= 0) throw Error("max_pool1d() stride must be greater than zero, but got " + text(stride));
  if (padding < 0) throw Error("max_pool1d() padding must be non-negative, but got " + text(padding));
  if (padding > kernel / 2) {
    throw Error("max_pool1d() padding should be at most half of kernel size, but got padding=" + text(padding) +
                " and kernel_size=" + text(kernel));
  }
  if (dilation <= 0) throw Error("max_pool1d() dilation must be greater than zero, but got " + text(dilation));
  const int64_t width = pooling_output_shape(input.size(-1), kernel, padding, stride, dilation, o.ceil_mode());
  if (width < 0) throw Error("max_pool1d() Invalid computed output size: " + text(width));
  return width;
}

}  // namespace

// ---- shared with pooling3d.cpp (detail/pool_passes.h): the output size, the dtype check, the kernel calls ----

namespace detail {

int64_t pooling_output_shape(int64_t in, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation,
                             bool ceil_mode) {
  if (stride == 0) throw Error("stride should not be zero");
  if (pad < 0) throw Error("pad must be non-negative, but got pad: " + text(pad));
  if (pad > kernel / 2) {
    throw Error("pad should be at most half of kernel size, but got pad=" + text(pad) + " and kernel_size=" +
                text(kernel));
  }
  int64_t out = div_round_down(in + 2 * pad - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0), stride) + 1;
  // In ceil mode the last window must start inside the input or its left padding.
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

void check_floating(const Tensor& input, const char* kernel) {
  if (!is_floating_point(input.dtype())) {
    throw Error(std::string("\"") + kernel + "\" not implemented for '" + scalar_type_name(input.dtype()) + "'");
  }
  ember::detail::check_dtype_supported(*input.device(), input.dtype());
}

std::tuple<Tensor, Tensor> pool_planes(const Tensor& input, const PoolGeometry& g, int64_t out_h, int64_t out_w) {
  const std::vector<int64_t> sizes = with_spatial(input, out_h, out_w);
  Tensor out = ember::detail::empty_on(sizes, input.dtype(), input.device());
  Tensor indices;
  if (is_max_pool(g.op)) indices = ember::detail::empty_on(sizes, DType::Int64, input.device());
  if (out.numel() == 0) return {out, indices};
  PoolArgs args{.geometry = g, .out = out.ref(), .in = input.ref()};
  if (indices.defined()) args.indices = indices.ref();
  pool_kernels(input).pool(*ember::detail::stream_for(*input.device()), args);
  return {out, indices};
}

Tensor gather_positions(const Tensor& values, const Tensor& indices, int64_t spatial_dims) {
  ember::detail::TrustedIndices trusted;  // the forward made or checked them
  return values.flatten(-spatial_dims).gather(-1, indices.flatten(-spatial_dims)).view(indices.sizes());
}

Tensor pool_planes_backward(const Tensor& grad_out, const Tensor& indices, const Tensor& input,
                            IntArrayRef in_sizes, const PoolGeometry& g) {
  autograd::Record rec(backward_node(g.op), {&grad_out, &input});
  Tensor grad_in = ember::detail::empty_on(in_sizes, grad_out.dtype(), grad_out.device());
  if (grad_in.numel() > 0) {
    PoolBackwardArgs args{.geometry = g, .grad_in = grad_in.ref(), .grad_out = grad_out.ref()};
    if (indices.defined()) args.indices = indices.ref();
    pool_kernels(grad_out).pool_backward(*ember::detail::stream_for(*grad_out.device()), args);
  }
  if (!rec) return grad_in;
  if (indices.defined()) rec.save(indices);
  return rec.finish(grad_in, [g, out_h = grad_out.size(-2), out_w = grad_out.size(-1)](
                                 autograd::FunctionNode& node, const autograd::tensor_list& gg) {
    if (is_max_pool(g.op)) return autograd::tensor_list{gather_positions(gg[0], node.saved(0), 2), Tensor()};
    return autograd::tensor_list{pool_recorded(gg[0], g, out_h, out_w, nullptr), Tensor()};
  });
}

}  // namespace detail

// ---- 2-d ----

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const MaxPool2dFuncOptions& o) {
  return max_pool2d_indices(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(), o.ceil_mode());
}

Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options) {
  return std::get<0>(max_pool2d_with_indices(input, options));
}

Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& o) {
  return avg_pool2d_of(input, o.kernel_size(), o.stride(), o.padding(), o.ceil_mode(), o.count_include_pad(),
                       o.divisor_override());
}

Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options) {
  return adaptive_avg_pool2d_of(input, detail::sizes_with_default(options.output_size(), input));
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool2dFuncOptions& options) {
  return adaptive_max_pool2d_of(input, detail::sizes_with_default(options.output_size(), input));
}

Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options) {
  return std::get<0>(adaptive_max_pool2d_with_indices(input, options));
}

Tensor lp_pool2d(const Tensor& input, const LPPool2dFuncOptions& o) {
  const Tensor out = avg_pool2d(input.pow(o.norm_type()), AvgPool2dFuncOptions(o.kernel_size()).stride(o.stride()).ceil_mode(o.ceil_mode()));
  return (out.sign() * out.abs().relu()).mul(o.kernel_size()[0] * o.kernel_size()[1]).pow(1.0 / o.norm_type());
}

// ---- 1-d: the 2-d ops over a unit height ----

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, const MaxPool1dFuncOptions& o) {
  check_2_to_3_dims(input, "max_pool1d");
  auto [out, indices] = max_pool2d_indices(input.unsqueeze(-2), {1, o.kernel_size()[0]}, {1, o.stride()[0]},
                                           {0, o.padding()[0]}, {1, o.dilation()[0]}, o.ceil_mode());
  return {out.squeeze(-2), indices.squeeze(-2)};
}

Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& o) {
  const int64_t ndim = input.dim();
  if (!((ndim == 2 && input.size(0) != 0 && input.size(1) != 0) ||
        (ndim == 3 && input.size(1) != 0 && input.size(2) != 0))) {
    throw Error("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but "
                "got:" + to_string(input.sizes()));
  }
  if (input.requires_grad() && autograd::GradMode::is_enabled()) {
    return std::get<0>(max_pool1d_with_indices(input, o));
  }
  const int64_t width = max_pool1d_width(input, o);
  check_floating(input, "max_pool1d_impl");
  const PoolGeometry g = max_geometry({1, o.kernel_size()[0]}, {1, o.stride()[0]}, {0, o.padding()[0]},
                                      {1, o.dilation()[0]});
  return std::get<0>(detail::pool_planes(input.unsqueeze(-2), g, 1, width)).squeeze(-2);
}

Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& o) {
  check_2_to_3_dims(input, "avg_pool1d");
  return avg_pool2d_of(input.unsqueeze(-2), {1, o.kernel_size()[0]}, {1, o.stride()[0]}, {0, o.padding()[0]},
                       o.ceil_mode(), o.count_include_pad(), std::nullopt)
      .squeeze(-2);
}

Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options) {
  check_2_to_3_dims(input, "adaptive_avg_pool1d");
  return adaptive_avg_pool2d_of(input.unsqueeze(-2), {1, options.output_size()[0]}).squeeze(-2);
}

std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool1dFuncOptions& options) {
  check_2_to_3_dims(input, "adaptive_max_pool1d");
  auto [out, indices] = adaptive_max_pool2d_of(input.unsqueeze(-2), {1, options.output_size()[0]});
  return {out.squeeze(-2), indices.squeeze(-2)};
}

Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options) {
  return std::get<0>(adaptive_max_pool1d_with_indices(input, options));
}

Tensor lp_pool1d(const Tensor& input, const LPPool1dFuncOptions& o) {
  const Tensor out =
      avg_pool1d(input.pow(o.norm_type()), AvgPool1dFuncOptions(o.kernel_size()).stride(o.stride()).ceil_mode(o.ceil_mode()));
  return (out.sign() * out.abs().relu()).mul(o.kernel_size()[0]).pow(1.0 / o.norm_type());
}

}  // namespace ember::nn::functional
