// The checks of the attention kernels' arguments that every backend makes before it launches.
#include "runtime/kernels/attention.h"

#include <string>

#include "runtime/error.h"

namespace ember {

namespace {

std::string sizes_of(const TensorRef& ref) {
  std::string s = "[";
  for (int d = 0; d < ref.ndim; ++d) s += (d ? ", " : "") + std::to_string(ref.sizes[d]);
  return s + "]";
}

void check_shape(const AttentionShape& shape, const char* op) {
  if (shape.batch < 0 || shape.queries < 0 || shape.keys < 0 || shape.head_dim < 1 || shape.value_dim < 1) {
    throw Error(std::string(op) + ": sizes must be non-negative and the feature dims positive");
  }
  if (shape.head_dim > kAttentionMaxHeadDim || shape.value_dim > kAttentionMaxHeadDim) {
    throw UnsupportedError(std::string(op) + ": the kernels take at most " + std::to_string(kAttentionMaxHeadDim) +
                           " features per head, got E = " + std::to_string(shape.head_dim) +
                           " and Ev = " + std::to_string(shape.value_dim));
  }
}

// A contiguous [d0, d1, d2] (or [d0, d1] when d2 < 0) operand in `dtype`.
void check_operand(const TensorRef& ref, DType dtype, int64_t d0, int64_t d1, int64_t d2, const char* op,
                   const char* what) {
  const int ndim = d2 < 0 ? 2 : 3;
  const bool sizes_match = ref.ndim == ndim && ref.sizes[0] == d0 && ref.sizes[1] == d1 && (ndim == 2 || ref.sizes[2] == d2);
  if (!sizes_match) {
    throw Error(std::string(op) + ": " + what + " must be [" + std::to_string(d0) + ", " + std::to_string(d1) +
                (ndim == 3 ? ", " + std::to_string(d2) : std::string()) + "], got " + sizes_of(ref));
  }
  if (!ref.is_contiguous()) throw Error(std::string(op) + ": " + what + " must be contiguous");
  if (ref.dtype != dtype) {
    throw Error(std::string(op) + ": " + what + " is " + std::string(dtype_name(ref.dtype)) + ", expected " +
                std::string(dtype_name(dtype)));
  }
}

void check_floating(DType dtype, const char* op) {
  if (!is_floating_point(dtype)) {
    throw Error(std::string(op) + ": q must be floating, not " + std::string(dtype_name(dtype)));
  }
}

void check_mask(const std::optional<TensorRef>& mask, const AttentionShape& s, DType dtype, const char* op) {
  if (!mask) return;
  if (mask->ndim != 3 || mask->sizes[0] != s.batch || mask->sizes[1] != s.queries || mask->sizes[2] != s.keys) {
    throw Error(std::string(op) + ": the mask must be viewed as [" + std::to_string(s.batch) + ", " +
                std::to_string(s.queries) + ", " + std::to_string(s.keys) + "], got " + sizes_of(*mask));
  }
  for (int d = 0; d < 3; ++d) {
    if (mask->strides[d] < 0) throw Error(std::string(op) + ": the mask has a negative stride");
  }
  if (mask->dtype != dtype) {
    throw Error(std::string(op) + ": the mask is " + std::string(dtype_name(mask->dtype)) + ", expected " +
                std::string(dtype_name(dtype)) + " (a bool mask becomes an additive one first)");
  }
}

DType statistics_dtype(DType dtype) { return dtype == DType::Float64 ? DType::Float64 : DType::Float32; }

// What the forward and the backward both take: q, k, v, out, lse and the mask.
void check_forward_operands(const TensorRef& q, const TensorRef& k, const TensorRef& v, const TensorRef& out,
                            const TensorRef& lse, const std::optional<TensorRef>& mask, const AttentionShape& s,
                            const char* op) {
  check_shape(s, op);
  check_floating(q.dtype, op);
  check_operand(q, q.dtype, s.batch, s.queries, s.head_dim, op, "q");
  check_operand(k, q.dtype, s.batch, s.keys, s.head_dim, op, "k");
  check_operand(v, q.dtype, s.batch, s.keys, s.value_dim, op, "v");
  check_operand(out, q.dtype, s.batch, s.queries, s.value_dim, op, "out");
  check_operand(lse, statistics_dtype(q.dtype), s.batch, s.queries, -1, op, "lse");
  check_mask(mask, s, q.dtype, op);
}

}  // namespace

void AttentionArgs::check() const { check_forward_operands(q, k, v, out, lse, mask, shape, "attention"); }

void AttentionBackwardArgs::check() const {
  const char* op = "attention_backward";
  check_forward_operands(q, k, v, out, lse, mask, shape, op);
  const AttentionShape& s = shape;
  check_operand(grad_out, q.dtype, s.batch, s.queries, s.value_dim, op, "grad_out");
  check_operand(grad_q, q.dtype, s.batch, s.queries, s.head_dim, op, "grad_q");
  check_operand(grad_k, q.dtype, s.batch, s.keys, s.head_dim, op, "grad_k");
  check_operand(grad_v, q.dtype, s.batch, s.keys, s.value_dim, op, "grad_v");
  check_operand(delta, statistics_dtype(q.dtype), s.batch, s.queries, -1, op, "delta");
}

}  // namespace ember
