// interpolate: LibTorch's option handling and output sizes, ATen's checks per resampling op, one
// UpsampleKernels call forward and one backward, each recorded with PyTorch's node. 1-d ops run on the
// 2-d kernels over a unit height, under their own 1-d nodes.
#include "nn/functional/upsampling.h"

#include <cctype>
#include <cmath>
#include <sstream>
#include <string>

#include "autograd/record.h"
#include "nn/functional/pooling.h"
#include "runtime/kernels/upsample.h"
#include "tensor/ops_support.h"

namespace ember::nn::functional {

namespace {

std::string text(int64_t value) { return std::to_string(value); }

// One resampling op of ATen: its rule, its spatial dims and PyTorch's names.
struct Resampling {
  UpsampleOp op;
  int dims;  // 1 or 2
  const char* node;
  const char* backward_node;
};

Resampling resampling_of(UpsampleOp op, int dims) {
  switch (op) {
    case UpsampleOp::Nearest:
      return dims == 1 ? Resampling{op, 1, "UpsampleNearest1DBackward0", "UpsampleNearest1DBackwardBackward0"}
                       : Resampling{op, 2, "UpsampleNearest2DBackward0", "UpsampleNearest2DBackwardBackward0"};
    case UpsampleOp::NearestExact:
      return dims == 1
                 ? Resampling{op, 1, "UpsampleNearestExact1DBackward0", "UpsampleNearestExact1DBackwardBackward0"}
                 : Resampling{op, 2, "UpsampleNearestExact2DBackward0", "UpsampleNearestExact2DBackwardBackward0"};
    case UpsampleOp::Linear:
      return dims == 1 ? Resampling{op, 1, "UpsampleLinear1DBackward0", "UpsampleLinear1DBackwardBackward0"}
                       : Resampling{op, 2, "UpsampleBilinear2DBackward0", "UpsampleBilinear2DBackwardBackward0"};
  }
  return {};
}

// `t`'s ref with a unit height inserted before its last dim (1-d ops on the 2-d kernels).
TensorRef kernel_ref(const Tensor& t, int dims) {
  TensorRef r = t.ref();
  if (dims == 2) return r;
  const int last = r.ndim - 1;
  r.sizes[last + 1] = r.sizes[last];
  r.strides[last + 1] = r.strides[last];
  r.sizes[last] = 1;
  r.strides[last] = 0;
  ++r.ndim;
  return r;
}

// ATen's upsample_{1,2}d_common_check and its non-empty check.
void check_upsample_sizes(const Tensor& input, const std::vector<int64_t>& out_size, int dims) {
  if (static_cast<int>(out_size.size()) != dims) {
    throw Error("It is expected output_size equals to " + text(dims) + ", but got size " + text(static_cast<int64_t>(out_size.size())));
  }
  if (input.dim() != dims + 2) {
    throw Error("It is expected input_size equals to " + text(dims + 2) + ", but got size " + text(input.dim()));
  }
  if (dims == 1) {
    if (input.size(2) <= 0 || out_size[0] <= 0) {
      throw Error("Input and output sizes should be greater than 0, but got input (W: " + text(input.size(2)) +
                  ") and output (W: " + text(out_size[0]) + ")");
    }
  } else if (input.size(2) <= 0 || input.size(3) <= 0 || out_size[0] <= 0 || out_size[1] <= 0) {
    throw Error("Input and output sizes should be greater than 0, but got input (H: " + text(input.size(2)) +
                ", W: " + text(input.size(3)) + ") output (H: " + text(out_size[0]) + ", W: " + text(out_size[1]) + ")");
  }
  int64_t inner = 1;
  for (int64_t d = 1; d < input.dim(); ++d) inner *= input.size(d);
  if (input.numel() == 0 && inner == 0) {
    throw Error("Non-empty " + text(dims + 2) + "D data tensor expected but got a tensor with sizes " +
                to_string(input.sizes()));
  }
}

void check_dtype(const Tensor& input, UpsampleOp op) {
  const bool ok = is_floating_point(input.dtype()) || (op != UpsampleOp::Linear && input.dtype() == DType::UInt8);
  if (!ok) {
    const char* kernel = op == UpsampleOp::Linear ? "compute_indices_weights_linear" : "compute_indices_weights_nearest";
    throw Error(std::string("\"") + kernel + "\" not implemented for '" + scalar_type_name(input.dtype()) + "'");
  }
  detail::check_dtype_supported(*input.device(), input.dtype());
}

UpsampleGeometry geometry_of(const Resampling& r, bool align_corners, const std::vector<std::optional<double>>& scales) {
  UpsampleGeometry g;
  g.op = r.op;
  g.align_corners = align_corners;
  // 2-d kernels: a 1-d op's scale is its width's, and its unit height has none.
  if (r.dims == 1) {
    g.scales[1] = scales[0];
  } else {
    g.scales = {scales[0], scales[1]};
  }
  return g;
}

Tensor upsample_recorded(const Tensor& input, const Resampling& r, const std::vector<int64_t>& out_size,
                         bool align_corners, const std::vector<std::optional<double>>& scales);

// The gradient of an upsampling of an input of `in_sizes`, itself a recorded op.
Tensor upsample_backward(const Tensor& grad_out, const Resampling& r, IntArrayRef in_sizes, bool align_corners,
                         const std::vector<std::optional<double>>& scales) {
  autograd::Record rec(r.backward_node, {&grad_out});
  Tensor grad_in = detail::empty_on(in_sizes, grad_out.dtype(), grad_out.device());
  if (grad_in.numel() > 0) {
    UpsampleBackwardArgs args{.geometry = geometry_of(r, align_corners, scales), .grad_in = kernel_ref(grad_in, r.dims),
                              .grad_out = kernel_ref(grad_out, r.dims)};
    detail::kernels_for<UpsampleKernels>(*grad_out.device()).upsample_backward(*detail::stream_for(*grad_out.device()), args);
  }
  if (!rec) return grad_in;
  std::vector<int64_t> out_size(grad_out.sizes().end() - r.dims, grad_out.sizes().end());
  return rec.finish(grad_in, [r, out_size, align_corners, scales](autograd::FunctionNode&, const autograd::tensor_list& g) {
    return autograd::tensor_list{upsample_recorded(g[0], r, out_size, align_corners, scales)};
  });
}

Tensor upsample_recorded(const Tensor& input, const Resampling& r, const std::vector<int64_t>& out_size,
                         bool align_corners, const std::vector<std::optional<double>>& scales) {
  autograd::Record rec(r.node, {&input});
  std::vector<int64_t> sizes(input.sizes().begin(), input.sizes().end() - r.dims);
  sizes.insert(sizes.end(), out_size.begin(), out_size.end());
  Tensor out = detail::empty_on(sizes, input.dtype(), input.device());
  if (out.numel() > 0) {
    UpsampleArgs args{.geometry = geometry_of(r, align_corners, scales), .out = kernel_ref(out, r.dims),
                      .in = kernel_ref(input, r.dims)};
    // PyTorch's CPU forward has no shortcuts for equal and doubled sizes (but on channels-last inputs); its
    // backward has them.
    args.geometry.nearest_shortcuts = false;
    detail::kernels_for<UpsampleKernels>(*input.device()).upsample(*detail::stream_for(*input.device()), args);
  }
  if (!rec) return out;
  return rec.finish(out, [r, in_sizes = input.sizes().vec(), align_corners, scales](
                             autograd::FunctionNode&, const autograd::tensor_list& g) {
    return autograd::tensor_list{upsample_backward(g[0], r, in_sizes, align_corners, scales)};
  });
}

// ATen's upsample op over `dims` spatial dims.
Tensor upsample(const Tensor& input, UpsampleOp op, int dims, const std::vector<int64_t>& out_size, bool align_corners,
                const std::vector<std::optional<double>>& scales) {
  check_upsample_sizes(input, out_size, dims);
  check_dtype(input, op);
  return upsample_recorded(input, resampling_of(op, dims), out_size, align_corners, scales);
}

// LibTorch's _interp_output_size.
std::vector<int64_t> interp_output_size(int64_t dims, const Tensor& input, const InterpolateFuncOptions& o) {
  if (!o.size() && !o.scale_factor()) throw Error("either size or scale_factor should be defined");
  if (o.size() && o.scale_factor()) throw Error("only one of size or scale_factor should be defined");
  if (o.scale_factor() && static_cast<int64_t>(o.scale_factor()->size()) != dims) {
    std::string listed = "[";
    for (size_t i = 0; i < o.scale_factor()->size(); ++i) {
      std::ostringstream value;
      value << (*o.scale_factor())[i];
      listed += (i ? ", " : "") + value.str();
    }
    throw Error("scale_factor shape must match input shape. Input is " + text(dims) + "D, scale_factor size is " +
                listed + "]");
  }
  if (o.size()) return *o.size();
  std::vector<int64_t> sizes;
  for (int64_t d = 0; d < dims; ++d) {
    sizes.push_back(static_cast<int64_t>(std::floor(static_cast<double>(input.size(d + 2)) * (*o.scale_factor())[d])));
  }
  return sizes;
}

// The mode as LibTorch's get_enum_name spells it in messages ("kBilinear").
std::string mode_name(const InterpolateFuncOptions::mode_t& mode) {
  std::string name = "k";
  bool upper = true;
  for (char c : enum_name(mode)) {
    if (c == '-') {
      upper = true;
      continue;
    }
    name += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return name;
}

}  // namespace

Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& o) {
  const auto& mode = o.mode();
  const bool nearest = std::holds_alternative<enumtype::kNearest>(mode);
  const bool area = std::holds_alternative<enumtype::kArea>(mode);
  std::optional<bool> align_corners = o.align_corners();
  if (nearest || area) {
    if (align_corners) {
      throw Error("align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | "
                  "trilinear");
    }
  } else if (!align_corners) {
    align_corners = false;  // LibTorch warns that this default changed in 0.4.0
  }
  std::vector<std::optional<double>> scales(static_cast<size_t>(std::max<int64_t>(input.dim() - 2, 0)));
  if (o.scale_factor() && !o.recompute_scale_factor().value_or(false)) {
    scales.assign(o.scale_factor()->begin(), o.scale_factor()->end());
  }
  const bool bilinear = std::holds_alternative<enumtype::kBilinear>(mode);
  const bool bicubic = std::holds_alternative<enumtype::kBicubic>(mode);
  if (o.antialias() && !(input.dim() == 4 && (bilinear || bicubic))) {
    throw Error("Anti-alias option is only supported for bilinear and bicubic modes");
  }
  const bool linear = std::holds_alternative<enumtype::kLinear>(mode);
  const bool trilinear = std::holds_alternative<enumtype::kTrilinear>(mode);
  const bool nearest_exact = std::holds_alternative<enumtype::kNearestExact>(mode);
  const int64_t ndim = input.dim();
  if ((nearest || nearest_exact) && (ndim == 3 || ndim == 4)) {
    const int dims = static_cast<int>(ndim - 2);
    return upsample(input, nearest ? UpsampleOp::Nearest : UpsampleOp::NearestExact, dims,
                    interp_output_size(dims, input, o), false, scales);
  }
  if (area && ndim == 3) return adaptive_avg_pool1d(input, AdaptiveAvgPool1dFuncOptions(interp_output_size(1, input, o)[0]));
  if (area && ndim == 4) {
    const std::vector<int64_t> size = interp_output_size(2, input, o);
    return adaptive_avg_pool2d(input, AdaptiveAvgPool2dFuncOptions({size[0], size[1]}));
  }
  if (ndim == 3 && linear) return upsample(input, UpsampleOp::Linear, 1, interp_output_size(1, input, o), *align_corners, scales);
  if (ndim == 3 && bilinear) throw Error("Got 3D input, but bilinear mode needs 4D input");
  if (ndim == 3 && trilinear) throw Error("Got 3D input, but trilinear mode needs 5D input");
  if (ndim == 4 && linear) throw Error("Got 4D input, but linear mode needs 3D input");
  if (ndim == 4 && bilinear) {
    if (o.antialias()) throw UnsupportedError("interpolate: antialias is not implemented in ember");
    return upsample(input, UpsampleOp::Linear, 2, interp_output_size(2, input, o), *align_corners, scales);
  }
  if (ndim == 4 && trilinear) throw Error("Got 4D input, but trilinear mode needs 5D input");
  if (ndim == 5 && linear) throw Error("Got 5D input, but linear mode needs 3D input");
  if (ndim == 5 && bilinear) throw Error("Got 5D input, but bilinear mode needs 4D input");
  if ((ndim == 5 && (nearest || nearest_exact || area || trilinear)) || (ndim == 4 && bicubic)) {
    throw UnsupportedError("interpolate: mode '" + std::string(enum_name(mode)) + "' on " + text(ndim) +
                           "-d input is not implemented in ember");
  }
  throw Error("Input Error: Only 3D, 4D and 5D input Tensors supported (got " + text(ndim) +
              "D) for the modes: nearest | linear | bilinear | bicubic | trilinear (got " + mode_name(mode) + ")");
}

}  // namespace ember::nn::functional
