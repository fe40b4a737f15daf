// The unary math functions: sign and magnitude, exponentials and logarithms, powers and roots,
// trigonometric and hyperbolic functions, erf, rounding and nan_to_num, with their in-place and
// functional forms. Each records itself with its entry of the formula table (unary_formulas.cpp).
#include <limits>

#include "tensor/autocast.h"
#include "tensor/elementwise_support.h"

namespace ember {

namespace {

using detail::recorded_unary;
using detail::UnaryKind;

Tensor floating(UnaryOp op, const Tensor& x) { return recorded_unary(op, UnaryKind::Floating, x); }

// The functions PyTorch's autocast runs in float32 (tensor/autocast.h).
Tensor floating_autocast_float32(UnaryOp op, const Tensor& x) {
  if (autocast::is_active()) return autocast::in_float32([op](const Tensor& y) { return floating(op, y); }, x);
  return floating(op, x);
}

// floor, ceil, round and trunc leave integers as they are, in a new tensor; PyTorch has no bool kernel.
Tensor rounded(UnaryOp op, const Tensor& x) {
  if (x.dtype() == DType::Bool) {
    throw Error("\"" + std::string(unary_op_name(op)) + "_vml_cpu\" not implemented for 'Bool'");
  }
  if (!x.is_floating_point()) return x.clone();
  return recorded_unary(op, UnaryKind::SameType, x);
}

// PyTorch refuses bool input to neg and abs, in place or not.
void check_negatable(const Tensor& x) {
  if (x.dtype() == DType::Bool) {
    throw Error("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a "
                "mask, use the `~` or `logical_not()` operator instead.");
  }
}
void check_abs_input(const Tensor& x) {
  if (x.dtype() == DType::Bool) throw Error("\"abs_cpu\" not implemented for 'Bool'");
}

}  // namespace

Tensor Tensor::neg() const {
  check_negatable(*this);
  return recorded_unary(UnaryOp::Neg, UnaryKind::SameType, *this);
}

Tensor Tensor::abs() const {
  check_abs_input(*this);
  return recorded_unary(UnaryOp::Abs, UnaryKind::SameType, *this);
}
Tensor Tensor::sign() const { return recorded_unary(UnaryOp::Sign, UnaryKind::SameType, *this); }

// Recorded as PyTorch's square, which is pow(x, 2): bool squares to int64.
Tensor Tensor::square() const {
  if (dtype() == DType::Bool) return to(DType::Int64).square();
  autograd::Record rec("PowBackward0", {this});
  Tensor out = detail::unary(UnaryOp::Square, detail::UnaryKind::SameType, *this);
  if (!rec) return out;
  rec.save(*this);
  return rec.finish(out, [](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    return autograd::tensor_list{g[0] * (node.saved(0) * 2)};
  });
}

Tensor Tensor::reciprocal() const { return floating_autocast_float32(UnaryOp::Reciprocal, *this); }
Tensor Tensor::exp() const { return floating_autocast_float32(UnaryOp::Exp, *this); }
Tensor Tensor::exp2() const { return floating(UnaryOp::Exp2, *this); }
Tensor Tensor::log() const { return floating_autocast_float32(UnaryOp::Log, *this); }
Tensor Tensor::log2() const { return floating_autocast_float32(UnaryOp::Log2, *this); }
Tensor Tensor::log10() const { return floating_autocast_float32(UnaryOp::Log10, *this); }
Tensor Tensor::log1p() const { return floating_autocast_float32(UnaryOp::Log1p, *this); }
Tensor Tensor::expm1() const { return floating_autocast_float32(UnaryOp::Expm1, *this); }
Tensor Tensor::sqrt() const { return floating(UnaryOp::Sqrt, *this); }
Tensor Tensor::rsqrt() const { return floating_autocast_float32(UnaryOp::Rsqrt, *this); }
Tensor Tensor::sin() const { return floating(UnaryOp::Sin, *this); }
Tensor Tensor::cos() const { return floating(UnaryOp::Cos, *this); }
Tensor Tensor::tan() const { return floating_autocast_float32(UnaryOp::Tan, *this); }
Tensor Tensor::asin() const { return floating_autocast_float32(UnaryOp::Asin, *this); }
Tensor Tensor::acos() const { return floating_autocast_float32(UnaryOp::Acos, *this); }
Tensor Tensor::atan() const { return floating(UnaryOp::Atan, *this); }
Tensor Tensor::sinh() const { return floating_autocast_float32(UnaryOp::Sinh, *this); }
Tensor Tensor::cosh() const { return floating_autocast_float32(UnaryOp::Cosh, *this); }
Tensor Tensor::tanh() const { return floating(UnaryOp::Tanh, *this); }
Tensor Tensor::sigmoid() const { return floating(UnaryOp::Sigmoid, *this); }
Tensor Tensor::erf() const { return floating(UnaryOp::Erf, *this); }
Tensor Tensor::erfc() const { return floating(UnaryOp::Erfc, *this); }

Tensor Tensor::floor() const { return rounded(UnaryOp::Floor, *this); }
Tensor Tensor::ceil() const { return rounded(UnaryOp::Ceil, *this); }
Tensor Tensor::round() const { return rounded(UnaryOp::Round, *this); }
Tensor Tensor::trunc() const { return rounded(UnaryOp::Trunc, *this); }
Tensor Tensor::frac() const { return recorded_unary(UnaryOp::Frac, UnaryKind::FloatOnlySame, *this); }

Tensor Tensor::nan_to_num(std::optional<double> nan, std::optional<double> posinf,
                          std::optional<double> neginf) const {
  if (!is_floating_point()) return clone();
  double largest = std::numeric_limits<float>::max();
  if (dtype() == DType::Float64) largest = std::numeric_limits<double>::max();
  if (dtype() == DType::Float16) largest = 65504.0;
  if (dtype() == DType::BFloat16) largest = 3.3895313892515355e38;
  return recorded_unary({.op = UnaryOp::NanToNum, .nan = nan.value_or(0.0), .posinf = posinf.value_or(largest),
                         .neginf = neginf.value_or(-largest)},
                        UnaryKind::SameType, *this);
}

// ---- in-place forms ----

Tensor& Tensor::neg_() {
  check_negatable(*this);
  return detail::inplace(*this, {}, [](const Tensor& old) { return old.neg(); },
                         [&] { detail::unary_(UnaryOp::Neg, UnaryKind::SameType, *this); });
}

Tensor& Tensor::abs_() {
  check_abs_input(*this);
  return detail::inplace(*this, {}, [](const Tensor& old) { return old.abs(); },
                         [&] { detail::unary_(UnaryOp::Abs, UnaryKind::SameType, *this); });
}

Tensor& Tensor::exp_() {
  return detail::inplace(*this, {}, [](const Tensor& old) { return old.exp(); },
                         [&] { detail::unary_(UnaryOp::Exp, UnaryKind::Floating, *this); });
}

Tensor& Tensor::log_() {
  return detail::inplace(*this, {}, [](const Tensor& old) { return old.log(); },
                         [&] { detail::unary_(UnaryOp::Log, UnaryKind::Floating, *this); });
}

Tensor& Tensor::sqrt_() {
  return detail::inplace(*this, {}, [](const Tensor& old) { return old.sqrt(); },
                         [&] { detail::unary_(UnaryOp::Sqrt, UnaryKind::Floating, *this); });
}

Tensor& Tensor::tanh_() {
  return detail::inplace(*this, {}, [](const Tensor& old) { return old.tanh(); },
                         [&] { detail::unary_(UnaryOp::Tanh, UnaryKind::Floating, *this); });
}

Tensor& Tensor::sigmoid_() {
  return detail::inplace(*this, {}, [](const Tensor& old) { return old.sigmoid(); },
                         [&] { detail::unary_(UnaryOp::Sigmoid, UnaryKind::Floating, *this); });
}

// ---- functional forms ----

Tensor abs(const Tensor& x) { return x.abs(); }
Tensor neg(const Tensor& x) { return x.neg(); }
Tensor exp(const Tensor& x) { return x.exp(); }
Tensor log(const Tensor& x) { return x.log(); }
Tensor sqrt(const Tensor& x) { return x.sqrt(); }
Tensor sin(const Tensor& x) { return x.sin(); }
Tensor cos(const Tensor& x) { return x.cos(); }
Tensor tanh(const Tensor& x) { return x.tanh(); }
Tensor sigmoid(const Tensor& x) { return x.sigmoid(); }

}  // namespace ember
