// The checks of the upsample arguments, and the scales both backends compute alike.
#include "runtime/kernels/upsample.h"

#include <string>

#include "runtime/error.h"

namespace ember {

namespace {

std::string name_of(DType dtype) { return std::string(dtype_name(dtype)); }

void check_upsample(const UpsampleGeometry& g, const TensorRef& in, const TensorRef& out, bool backward) {
  const std::string op = std::string(backward ? "upsample backward " : "upsample ") +
                         std::string(upsample_op_name(g.op));
  if (static_cast<size_t>(g.op) >= kUpsampleOpCount) throw Error("upsample: unknown op");
  if (in.ndim < 2 || in.ndim > kMaxDims) throw Error(op + ": tensors need 2 to 16 dims, got " + std::to_string(in.ndim));
  bool same_planes = in.ndim == out.ndim;
  for (int d = 0; same_planes && d + 2 < in.ndim; ++d) same_planes = in.sizes[d] == out.sizes[d];
  if (!same_planes) throw Error(op + ": input and output differ in their planes (all dims but the last two)");
  if (out.dtype != in.dtype) {
    throw Error(op + " needs equal dtypes, got " + name_of(in.dtype) + " and " + name_of(out.dtype));
  }
  const bool byte_ok = !backward && g.op != UpsampleOp::Linear && in.dtype == DType::UInt8;
  if (!is_floating_point(in.dtype) && !byte_ok) throw Error(op + " does not take " + name_of(in.dtype));
  for (int d = in.ndim - 2; d < in.ndim; ++d) {
    if (out.sizes[d] > 0 && in.sizes[d] == 0) throw Error(op + ": an output position over an empty input");
  }
}

}  // namespace

void UpsampleArgs::check() const { check_upsample(geometry, in, out, false); }
void UpsampleBackwardArgs::check() const { check_upsample(geometry, grad_in, grad_out, true); }

double upsample_scale(const UpsampleGeometry& g, int dim, int64_t in_size, int64_t out_size, bool float64) {
  const std::optional<double>& scale = g.scales[dim];
  const bool given = scale.has_value() && *scale > 0;
  if (g.op != UpsampleOp::Linear) {
    // PyTorch's nearest rules compute in float whatever the dtype.
    return given ? static_cast<float>(1.0 / *scale) : static_cast<float>(in_size) / static_cast<float>(out_size);
  }
  if (g.align_corners) {
    if (out_size <= 1) return 0;
    return float64 ? static_cast<double>(in_size - 1) / static_cast<double>(out_size - 1)
                   : static_cast<float>(in_size - 1) / static_cast<float>(out_size - 1);
  }
  if (float64) return given ? 1.0 / *scale : static_cast<double>(in_size) / static_cast<double>(out_size);
  return given ? static_cast<float>(1.0 / *scale) : static_cast<float>(in_size) / static_cast<float>(out_size);
}

}  // namespace ember
