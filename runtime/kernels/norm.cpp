// The checks of the norm kernels' arguments that every backend makes before it launches.
#include "runtime/kernels/norm.h"

#include <initializer_list>
#include <string>

#include "runtime/error.h"

namespace ember {

namespace {

std::string name_of(DType dtype) { return std::string(dtype_name(dtype)); }

void check_shape(const NormShape& shape, const char* op) {
  if (shape.outer < 0 || shape.channels < 0 || shape.inner < 0) {
    throw Error(std::string(op) + ": negative sizes");
  }
}

// A contiguous floating operand of `numel` elements; float64 only where the input is float64 (the
// float32 kernels cannot load it).
void check_operand(const TensorRef& ref, int64_t numel, DType in_dtype, const char* op, const char* what) {
  if ((!ref.is_contiguous() && numel > 0) || ref.numel() != numel) {
    throw Error(std::string(op) + ": " + what + " must be contiguous with " + std::to_string(numel) +
                " elements, got " + std::to_string(ref.numel()));
  }
  if (!is_floating_point(ref.dtype)) {
    throw Error(std::string(op) + ": " + what + " must be floating, not " + name_of(ref.dtype));
  }
  if (ref.dtype == DType::Float64 && in_dtype != DType::Float64) {
    throw Error(std::string(op) + ": " + what + " is float64 but the input is " + name_of(in_dtype));
  }
}

void check_optional(const std::optional<TensorRef>& ref, int64_t numel, DType in_dtype, const char* op,
                    const char* what) {
  if (ref) check_operand(*ref, numel, in_dtype, op, what);
}

void check_same_dtype(const TensorRef& a, const TensorRef& b, const char* op, const char* what) {
  if (a.dtype != b.dtype) {
    throw Error(std::string(op) + ": " + what + " differ in dtype (" + name_of(a.dtype) + ", " + name_of(b.dtype) + ")");
  }
}

void check_input(const TensorRef& in, const NormShape& shape, const char* op) {
  check_shape(shape, op);
  check_operand(in, shape.numel(), in.dtype, op, "the input");
}

void check_softmax_rows(int64_t rows, int64_t length, const char* op) {
  if (rows < 0 || length < 0) throw Error(std::string(op) + ": negative sizes");
  if (length > SoftmaxArgs::kMaxLength) {
    throw Error(std::string(op) + ": rows of " + std::to_string(length) + " elements, more than the kernel's " +
                std::to_string(SoftmaxArgs::kMaxLength));
  }
}

}  // namespace

void BatchNormStatsArgs::check() const {
  const char* op = "batch_norm_stats";
  check_input(in, shape, op);
  check_operand(mean, shape.channels, in.dtype, op, "mean");
  check_operand(invstd, shape.channels, in.dtype, op, "invstd");
  check_same_dtype(mean, invstd, op, "mean and invstd");
  if (running_mean.has_value() != running_var.has_value()) {
    throw Error("batch_norm_stats: running_mean and running_var come together");
  }
  check_optional(running_mean, shape.channels, in.dtype, op, "running_mean");
  check_optional(running_var, shape.channels, in.dtype, op, "running_var");
  if (running_mean) check_same_dtype(*running_mean, *running_var, op, "running_mean and running_var");
  if (shape.numel() > 0 && shape.outer * shape.inner == 0) throw Error("batch_norm_stats: no elements per channel");
}

void BatchNormApplyArgs::check() const {
  const char* op = "batch_norm_apply";
  check_input(in, shape, op);
  check_operand(out, shape.numel(), in.dtype, op, "out");
  check_same_dtype(out, in, op, "out and in");
  check_operand(mean, shape.channels, in.dtype, op, "mean");
  check_operand(invstd, shape.channels, in.dtype, op, "invstd");
  check_same_dtype(mean, invstd, op, "mean and invstd");
  check_optional(weight, shape.channels, in.dtype, op, "weight");
  check_optional(bias, shape.channels, in.dtype, op, "bias");
  if (weight && bias) check_same_dtype(*weight, *bias, op, "weight and bias");
}

void BatchNormBackwardArgs::check() const {
  const char* op = "batch_norm_backward";
  check_input(in, shape, op);
  check_operand(grad_out, shape.numel(), in.dtype, op, "grad_out");
  check_same_dtype(grad_out, in, op, "grad_out and in");
  if (grad_in) {
    check_operand(*grad_in, shape.numel(), in.dtype, op, "grad_in");
    check_same_dtype(*grad_in, in, op, "grad_in and in");
  }
  check_operand(mean, shape.channels, in.dtype, op, "mean");
  check_operand(invstd, shape.channels, in.dtype, op, "invstd");
  check_same_dtype(mean, invstd, op, "mean and invstd");
  check_optional(weight, shape.channels, in.dtype, op, "weight");
  check_optional(grad_weight, shape.channels, in.dtype, op, "grad_weight");
  check_optional(grad_bias, shape.channels, in.dtype, op, "grad_bias");
  if (grad_weight && grad_bias) check_same_dtype(*grad_weight, *grad_bias, op, "grad_weight and grad_bias");
}

namespace {

void check_groups(const NormShape& shape, int64_t groups, const char* op) {
  if (groups <= 0 || shape.channels % groups != 0) {
    throw Error(std::string(op) + ": " + std::to_string(shape.channels) + " channels do not split into " +
                std::to_string(groups) + " groups");
  }
}

}  // namespace

void GroupNormArgs::check() const {
  const char* op = "group_norm";
  check_input(in, shape, op);
  check_groups(shape, groups, op);
  check_operand(out, shape.numel(), in.dtype, op, "out");
  check_same_dtype(out, in, op, "out and in");
  check_operand(mean, shape.outer * groups, in.dtype, op, "mean");
  check_operand(rstd, shape.outer * groups, in.dtype, op, "rstd");
  check_same_dtype(mean, rstd, op, "mean and rstd");
  check_optional(weight, shape.channels, in.dtype, op, "weight");
  check_optional(bias, shape.channels, in.dtype, op, "bias");
  if (weight && bias) check_same_dtype(*weight, *bias, op, "weight and bias");
}

void GroupNormBackwardArgs::check() const {
  const char* op = "group_norm_backward";
  check_input(in, shape, op);
  check_groups(shape, groups, op);
  check_operand(grad_out, shape.numel(), in.dtype, op, "grad_out");
  check_same_dtype(grad_out, in, op, "grad_out and in");
  if (grad_in) {
    check_operand(*grad_in, shape.numel(), in.dtype, op, "grad_in");
    check_same_dtype(*grad_in, in, op, "grad_in and in");
  }
  check_operand(mean, shape.outer * groups, in.dtype, op, "mean");
  check_operand(rstd, shape.outer * groups, in.dtype, op, "rstd");
  check_same_dtype(mean, rstd, op, "mean and rstd");
  check_optional(weight, shape.channels, in.dtype, op, "weight");
  check_optional(grad_weight, shape.channels, in.dtype, op, "grad_weight");
  check_optional(grad_bias, shape.channels, in.dtype, op, "grad_bias");
  if (grad_weight && grad_bias) check_same_dtype(*grad_weight, *grad_bias, op, "grad_weight and grad_bias");
}

void SoftmaxArgs::check() const {
  const char* op = log ? "log_softmax" : "softmax";
  check_softmax_rows(rows, length, op);
  check_operand(in, rows * length, in.dtype, op, "the input");
  check_operand(out, rows * length, in.dtype, op, "out");
  check_same_dtype(out, in, op, "out and in");
}

void SoftmaxBackwardArgs::check() const {
  const char* op = log ? "log_softmax_backward" : "softmax_backward";
  check_softmax_rows(rows, length, op);
  check_operand(out, rows * length, out.dtype, op, "out");
  check_operand(grad_out, rows * length, out.dtype, op, "grad_out");
  check_operand(grad_in, rows * length, out.dtype, op, "grad_in");
  check_same_dtype(grad_out, out, op, "grad_out and out");
  check_same_dtype(grad_in, out, op, "grad_in and out");
}

}  // namespace ember
