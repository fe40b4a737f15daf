// The checks of ReduceArgs and ScanArgs that every backend makes before it launches.
#include "runtime/kernels/reduce.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "runtime/error.h"

namespace ember {

namespace {

bool writes_indices(ReduceOp op) {
  return op == ReduceOp::Max || op == ReduceOp::Min || op == ReduceOp::Argmax || op == ReduceOp::Argmin;
}

// Whether a reduction of no elements has a value: the extremes (and the inf-norms, extremes of |x|)
// have none.
bool has_identity(ReduceOp op, double p) {
  switch (op) {
    case ReduceOp::Max:
    case ReduceOp::Min:
    case ReduceOp::Amax:
    case ReduceOp::Amin:
    case ReduceOp::Argmax:
    case ReduceOp::Argmin: return false;
    case ReduceOp::Norm: return !std::isinf(p);
    default: return true;
  }
}

void require_contiguous_result(const TensorRef& ref, int64_t outputs, const char* what) {
  if (!ref.is_contiguous() || ref.numel() != outputs) {
    throw Error(std::string("reduce: ") + what + " must be contiguous with " + std::to_string(outputs) +
                " elements (the kept dims), got " + std::to_string(ref.numel()));
  }
}

}  // namespace

void ReduceArgs::check() const {
  if (static_cast<size_t>(op) >= kReduceOpCount) throw Error("unknown reduce op");
  const std::string name(reduce_op_name(op));
  if (in.ndim < 0 || in.ndim > kMaxDims) throw Error("reduce: at most 16 dims");
  if (in.ndim < 32 && (reduce_mask >> in.ndim) != 0) {
    throw Error("reduce: the mask names dims that the input does not have");
  }
  const bool index_op = writes_indices(op);
  // The arg-ops write no values, and the others no indices: what they are given there is ignored.
  const TensorRef* values = out && op != ReduceOp::Argmax && op != ReduceOp::Argmin ? &*out : nullptr;
  const TensorRef* index = indices && index_op ? &*indices : nullptr;
  if (!values && !index) throw Error("reduce " + name + ": no output given");
  if (!index_op && !values) throw Error("reduce " + name + ": needs an output");
  if ((op == ReduceOp::Argmax || op == ReduceOp::Argmin) && !index) {
    throw Error("reduce " + name + ": needs an indices output");
  }
  if (index && index->dtype != DType::Int64) throw Error("reduce: indices must be int64");
  // All, Any and CountNonzero compare with zero in the input's own dtype, whatever `compute` says.
  if (op_domain(op) == OpDomain::Floating && !is_floating_point(compute)) {
    throw Error("reduce " + name + ": needs a floating-point compute dtype, got " +
                std::string(dtype_name(compute)));
  }
  int64_t outputs = 1;
  int64_t reduced = 1;
  for (int d = 0; d < in.ndim; ++d) {
    (reduce_mask & (1u << d) ? reduced : outputs) *= in.sizes[d];
  }
  if (values) require_contiguous_result(*values, outputs, "out");
  if (index) require_contiguous_result(*index, outputs, "indices");
  if (outputs > 0 && reduced == 0 && (index || !has_identity(op, p))) {
    throw Error("reduce " + name + ": the reduction has no elements");
  }
}

void ScanArgs::check() const {
  const std::string name(scan_op_name(op));
  const bool index_op = op == ScanOp::CumMax || op == ScanOp::CumMin;
  if (in.ndim < 0 || in.ndim > kMaxDims) throw Error("scan: at most 16 dims");
  if (dim < 0 || dim >= std::max(in.ndim, 1)) {
    throw Error("scan " + name + ": dim " + std::to_string(dim) + " is out of range");
  }
  auto same_sizes = [&](const TensorRef& ref) {
    if (ref.ndim != in.ndim) return false;
    for (int d = 0; d < in.ndim; ++d) {
      if (ref.sizes[d] != in.sizes[d]) return false;
    }
    return true;
  };
  if (!same_sizes(out)) throw Error("scan " + name + ": out must have the input's sizes");
  // The other ops write no indices: what they are given there is ignored.
  if (index_op && !indices) throw Error("scan " + name + ": needs an indices output");
  if (index_op && (indices->dtype != DType::Int64 || !same_sizes(*indices))) {
    throw Error("scan " + name + ": indices must be int64 with the input's sizes");
  }
  if (op == ScanOp::LogCumSumExp && !is_floating_point(compute)) {
    throw Error("scan " + name + ": needs a floating-point compute dtype, got " +
                std::string(dtype_name(compute)));
  }
}

void sum_dims(ReduceKernels& reduce, Stream& stream, const TensorRef& out, const TensorRef& in, uint32_t reduce_mask) {
  ReduceArgs sum;
  sum.op = ReduceOp::Sum;
  sum.out = out;
  sum.in = in;
  sum.reduce_mask = reduce_mask;
  sum.compute = in.dtype == DType::Float64 ? DType::Float64 : DType::Float32;
  reduce.reduce(stream, sum);
}

}  // namespace ember
