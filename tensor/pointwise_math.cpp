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

// PyTorch has no bool kernel for floor, ceil, round and trunc.
void check_roundable(UnaryOp op, const Tensor& x) {
  if (x.dtype() == DType::Bool) {
    throw Error("\"" + std::string(unary_op_name(op)) + "_vml_cpu\" not implemented for 'Bool'");
  }
}

// They leave integers as they are, in a new tensor.
Tensor rounded(UnaryOp op, const Tensor& x) {
  check_roundable(op, x);
  if (!x.is_floating_point()) return x.clone();
  return recorded_unary(op, UnaryKind::SameType, x);
}

// nan_to_num's replacements, by default the dtype's largest finite values.
UnaryArgs nan_to_num_args(const Tensor& x, std::optional<double> nan, std::optional<double> posinf,
                          std::optional<double> neginf) {
  double largest = std::numeric_limits<float>::max();
  if (x.dtype() == DType::Float64) largest = std::numeric_limits<double>::max();
  if (x.dtype() == DType::Float16) largest = 65504.0;
  if (x.dtype() == DType::BFloat16) largest = 3.3895313892515355e38;
  return {.op = UnaryOp::NanToNum, .nan = nan.value_or(0.0), .posinf = posinf.value_or(largest),
          .neginf = neginf.value_or(-largest)};
}

// The in-place form of a unary op: recorded through `functional` when autograd needs it, else the
// kernel writes x. A floating op on an integer x fails the in-place dtype check, as PyTorch's does.
Tensor& unary_inplace(Tensor& x, UnaryOp op, UnaryKind kind, Tensor (Tensor::*functional)() const) {
  return detail::inplace(x, {}, [functional](const Tensor& old) { return (old.*functional)(); },
                         [&] { detail::unary_(op, kind, x); });
}

// Rounding an integer tensor in place leaves it as it is.
Tensor& rounded_inplace(Tensor& x, UnaryOp op, Tensor (Tensor::*functional)() const) {
  check_roundable(op, x);
  if (!x.is_floating_point()) return x;
  return unary_inplace(x, op, UnaryKind::SameType, functional);
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
  return recorded_unary(nan_to_num_args(*this, nan, posinf, neginf), UnaryKind::SameType, *this);
}

// ---- in-place forms ----

Tensor& Tensor::neg_() {
  check_negatable(*this);
  return unary_inplace(*this, UnaryOp::Neg, UnaryKind::SameType, &Tensor::neg);
}

Tensor& Tensor::abs_() {
  check_abs_input(*this);
  return unary_inplace(*this, UnaryOp::Abs, UnaryKind::SameType, &Tensor::abs);
}

Tensor& Tensor::sign_() { return unary_inplace(*this, UnaryOp::Sign, UnaryKind::SameType, &Tensor::sign); }
// PyTorch's square_ is pow_(2), recorded as PowBackward0.
Tensor& Tensor::square_() { return pow_(2); }

Tensor& Tensor::reciprocal_() {
  return unary_inplace(*this, UnaryOp::Reciprocal, UnaryKind::Floating, &Tensor::reciprocal);
}
Tensor& Tensor::exp_() { return unary_inplace(*this, UnaryOp::Exp, UnaryKind::Floating, &Tensor::exp); }
Tensor& Tensor::exp2_() { return unary_inplace(*this, UnaryOp::Exp2, UnaryKind::Floating, &Tensor::exp2); }
Tensor& Tensor::expm1_() { return unary_inplace(*this, UnaryOp::Expm1, UnaryKind::Floating, &Tensor::expm1); }
Tensor& Tensor::log_() { return unary_inplace(*this, UnaryOp::Log, UnaryKind::Floating, &Tensor::log); }
Tensor& Tensor::log2_() { return unary_inplace(*this, UnaryOp::Log2, UnaryKind::Floating, &Tensor::log2); }
Tensor& Tensor::log10_() { return unary_inplace(*this, UnaryOp::Log10, UnaryKind::Floating, &Tensor::log10); }
Tensor& Tensor::log1p_() { return unary_inplace(*this, UnaryOp::Log1p, UnaryKind::Floating, &Tensor::log1p); }
Tensor& Tensor::sqrt_() { return unary_inplace(*this, UnaryOp::Sqrt, UnaryKind::Floating, &Tensor::sqrt); }
Tensor& Tensor::rsqrt_() { return unary_inplace(*this, UnaryOp::Rsqrt, UnaryKind::Floating, &Tensor::rsqrt); }
Tensor& Tensor::sin_() { return unary_inplace(*this, UnaryOp::Sin, UnaryKind::Floating, &Tensor::sin); }
Tensor& Tensor::cos_() { return unary_inplace(*this, UnaryOp::Cos, UnaryKind::Floating, &Tensor::cos); }
Tensor& Tensor::tan_() { return unary_inplace(*this, UnaryOp::Tan, UnaryKind::Floating, &Tensor::tan); }
Tensor& Tensor::asin_() { return unary_inplace(*this, UnaryOp::Asin, UnaryKind::Floating, &Tensor::asin); }
Tensor& Tensor::acos_() { return unary_inplace(*this, UnaryOp::Acos, UnaryKind::Floating, &Tensor::acos); }
Tensor& Tensor::atan_() { return unary_inplace(*this, UnaryOp::Atan, UnaryKind::Floating, &Tensor::atan); }
Tensor& Tensor::sinh_() { return unary_inplace(*this, UnaryOp::Sinh, UnaryKind::Floating, &Tensor::sinh); }
Tensor& Tensor::cosh_() { return unary_inplace(*this, UnaryOp::Cosh, UnaryKind::Floating, &Tensor::cosh); }
Tensor& Tensor::tanh_() { return unary_inplace(*this, UnaryOp::Tanh, UnaryKind::Floating, &Tensor::tanh); }
Tensor& Tensor::sigmoid_() { return unary_inplace(*this, UnaryOp::Sigmoid, UnaryKind::Floating, &Tensor::sigmoid); }
Tensor& Tensor::erf_() { return unary_inplace(*this, UnaryOp::Erf, UnaryKind::Floating, &Tensor::erf); }
Tensor& Tensor::erfc_() { return unary_inplace(*this, UnaryOp::Erfc, UnaryKind::Floating, &Tensor::erfc); }

Tensor& Tensor::floor_() { return rounded_inplace(*this, UnaryOp::Floor, &Tensor::floor); }
Tensor& Tensor::ceil_() { return rounded_inplace(*this, UnaryOp::Ceil, &Tensor::ceil); }
Tensor& Tensor::round_() { return rounded_inplace(*this, UnaryOp::Round, &Tensor::round); }
Tensor& Tensor::trunc_() { return rounded_inplace(*this, UnaryOp::Trunc, &Tensor::trunc); }
Tensor& Tensor::frac_() { return unary_inplace(*this, UnaryOp::Frac, UnaryKind::FloatOnlySame, &Tensor::frac); }

Tensor& Tensor::nan_to_num_(std::optional<double> nan, std::optional<double> posinf, std::optional<double> neginf) {
  if (!is_floating_point()) return *this;
  return detail::inplace(*this, {}, [&](const Tensor& old) { return old.nan_to_num(nan, posinf, neginf); }, [&] {
    detail::run_unary(nan_to_num_args(*this, nan, posinf, neginf), UnaryKind::SameType, *this, this);
  });
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
