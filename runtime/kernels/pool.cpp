// The checks of PoolArgs and PoolBackwardArgs that every backend makes before it launches.
#include "runtime/kernels/pool.h"

#include <string>

#include "runtime/error.h"

namespace ember {

namespace {

std::string name_of(DType dtype) { return std::string(dtype_name(dtype)); }
std::string text(int64_t value) { return std::to_string(value); }

bool same_planes(const TensorRef& a, const TensorRef& b) {
  if (a.ndim != b.ndim) return false;
  for (int d = 0; d + 2 < a.ndim; ++d) {
    if (a.sizes[d] != b.sizes[d]) return false;
  }
  return true;
}

bool same_sizes(const TensorRef& a, const TensorRef& b) {
  if (a.ndim != b.ndim) return false;
  for (int d = 0; d < a.ndim; ++d) {
    if (a.sizes[d] != b.sizes[d]) return false;
  }
  return true;
}

// The checks shared by forward and backward: `in` and `out` are the forward's input and output.
void check_pool(const PoolGeometry& g, const TensorRef& in, const TensorRef& out,
                const std::optional<TensorRef>& indices, const char* what) {
  const std::string op = std::string(what) + " " + std::string(pool_op_name(g.op));
  if (static_cast<size_t>(g.op) >= kPoolOpCount) throw Error(std::string(what) + ": unknown op");
  if (in.ndim < 2 || in.ndim > kMaxDims) throw Error(op + ": tensors need 2 to 16 dims, got " + text(in.ndim));
  if (!same_planes(in, out)) throw Error(op + ": input and output differ in their planes (all dims but the last two)");
  if (!is_floating_point(in.dtype)) throw Error(op + " takes floating dtypes, not " + name_of(in.dtype));
  if (out.dtype != in.dtype) {
    throw Error(op + " needs equal dtypes, got " + name_of(in.dtype) + " and " + name_of(out.dtype));
  }
  if (is_max_pool(g.op) != indices.has_value()) {
    throw Error(op + (indices ? " takes no indices" : " needs indices"));
  }
  if (indices) {
    if (indices->dtype != DType::Int64) throw Error(op + " takes int64 indices, not " + name_of(indices->dtype));
    if (!same_sizes(*indices, out)) throw Error(op + ": indices need the output's sizes");
  }
  const int64_t in_size[2] = {in.sizes[in.ndim - 2], in.sizes[in.ndim - 1]};
  const int64_t out_size[2] = {out.sizes[out.ndim - 2], out.sizes[out.ndim - 1]};
  for (int d = 0; d < 2; ++d) {
    if (out_size[d] > 0 && in_size[d] == 0) throw Error(op + ": an output window over an empty input");
    if (is_adaptive_pool(g.op)) continue;
    const PoolWindow& w = g.window[d];
    if (w.kernel < 1 || w.stride < 1 || w.padding < 0 || w.dilation < 1 ||
        (g.op == PoolOp::Avg && w.dilation != 1)) {
      throw Error(op + ": kernel " + text(w.kernel) + ", stride " + text(w.stride) + ", padding " +
                  text(w.padding) + " and dilation " + text(w.dilation) + " do not make a window");
    }
    // Every window holds an input position: the first one ends past the padding, the last one starts
    // before the input's end (PyTorch's output sizes guarantee both).
    if (out_size[d] > 0 && (w.padding > (w.kernel - 1) * w.dilation || (out_size[d] - 1) * w.stride - w.padding >= in_size[d])) {
      throw Error(op + ": an output window holds no input position");
    }
  }
}

}  // namespace

void PoolArgs::check() const { check_pool(geometry, in, out, indices, "pool"); }

void PoolBackwardArgs::check() const {
  check_pool(geometry, grad_in, grad_out, indices, "pool backward");
}

}  // namespace ember
