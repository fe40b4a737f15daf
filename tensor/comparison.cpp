// Comparisons, logical and bitwise ops, shifts and the floating-point class tests (isnan, isinf, ...):
// results are bool, or for the bitwise ops the integral common dtype. None is differentiable; the in-place
// comparisons and logical ops record zero gradients where autograd must see the write.
#include <sstream>
#include <string>

#include "tensor/elementwise_support.h"
#include "tensor/functions.h"

namespace ember {

namespace {

using detail::binary;
using detail::BinaryKind;
using detail::unary;
using detail::UnaryKind;

constexpr BinaryKind kComparison = BinaryKind::Comparison;
constexpr BinaryKind kLogical = BinaryKind::Logical;
constexpr BinaryKind kBitwise = BinaryKind::Bitwise;

// PyTorch names its shift kernels lshift and rshift; they take integral and bool operands only.
void check_shift_dtypes(BinaryOp op, const Tensor& a, const detail::TensorOrScalar& b) {
  const DType common = b.tensor ? result_type(a, *b.tensor) : result_type(a, *b.scalar);
  if (is_floating_point(common)) {
    throw Error(std::string(op == BinaryOp::LeftShift ? "\"lshift_cpu\"" : "\"rshift_cpu\"") +
                " not implemented for '" + scalar_type_name(common) + "'");
  }
}

Tensor shift(BinaryOp op, const Tensor& a, const detail::TensorOrScalar& b) {
  check_shift_dtypes(op, a, b);
  return binary(op, kBitwise, a, b);
}

// A comparison or logical op written into self in self's dtype. Where autograd must see the write it is
// recorded as PyTorch records lt_: a node (`node`, PyTorch's name) whose gradients are zeros, so a tensor
// that required grad still does. PyTorch 1.13 records no logical op in place, and so lets one overwrite
// a leaf that requires grad; here that raises, as every other in-place op does.
Tensor& compare_(const char* node, BinaryOp op, BinaryKind kind, Tensor& self, const detail::TensorOrScalar& other) {
  const auto recorded = [&](const Tensor& old) {
    autograd::Record record(node, {&old, other.tensor});
    Tensor written = binary(op, kind, old, other).to(old.dtype());
    if (!record) return written;
    const std::vector<int64_t> other_sizes = other.tensor ? other.tensor->sizes().vec() : std::vector<int64_t>{};
    const DType other_dtype = other.tensor ? other.tensor->dtype() : old.dtype();
    const auto zero_gradients = [other_sizes, other_dtype](autograd::FunctionNode& fn, const autograd::tensor_list& g) {
      const TensorOptions other_options = TensorOptions().dtype(other_dtype);
      return autograd::tensor_list{fn.needs_input_grad(0) ? zeros_like(g[0]) : Tensor(),
                                   fn.needs_input_grad(1) ? g[0].new_zeros(other_sizes, other_options) : Tensor()};
    };
    return record.finish(written, zero_gradients);
  };
  return detail::inplace(self, {other.tensor}, recorded, [&] { detail::binary_(op, kind, self, other); });
}

// A bitwise op in place: integral and bool tensors only, which autograd never records. As in PyTorch, an
// integral self with a floating operand is refused for the cast before the op's dtypes are checked.
Tensor& bitwise_(BinaryOp op, Tensor& self, const detail::TensorOrScalar& other) {
  check_can_cast(other.tensor ? result_type(self, *other.tensor) : result_type(self, *other.scalar), self.dtype());
  if (op == BinaryOp::LeftShift || op == BinaryOp::RightShift) check_shift_dtypes(op, self, other);
  return detail::binary_(op, kBitwise, self, other);
}

}  // namespace

// ---- comparisons ----

Tensor Tensor::eq(const Tensor& o) const { return binary(BinaryOp::Eq, kComparison, *this, o); }
Tensor Tensor::eq(Scalar o) const { return binary(BinaryOp::Eq, kComparison, *this, o); }
Tensor Tensor::ne(const Tensor& o) const { return binary(BinaryOp::Ne, kComparison, *this, o); }
Tensor Tensor::ne(Scalar o) const { return binary(BinaryOp::Ne, kComparison, *this, o); }
Tensor Tensor::lt(const Tensor& o) const { return binary(BinaryOp::Lt, kComparison, *this, o); }
Tensor Tensor::lt(Scalar o) const { return binary(BinaryOp::Lt, kComparison, *this, o); }
Tensor Tensor::le(const Tensor& o) const { return binary(BinaryOp::Le, kComparison, *this, o); }
Tensor Tensor::le(Scalar o) const { return binary(BinaryOp::Le, kComparison, *this, o); }
Tensor Tensor::gt(const Tensor& o) const { return binary(BinaryOp::Gt, kComparison, *this, o); }
Tensor Tensor::gt(Scalar o) const { return binary(BinaryOp::Gt, kComparison, *this, o); }
Tensor Tensor::ge(const Tensor& o) const { return binary(BinaryOp::Ge, kComparison, *this, o); }
Tensor Tensor::ge(Scalar o) const { return binary(BinaryOp::Ge, kComparison, *this, o); }

Tensor& Tensor::eq_(const Tensor& o) { return compare_("EqBackward1", BinaryOp::Eq, kComparison, *this, o); }
Tensor& Tensor::eq_(Scalar o) { return compare_("EqBackward0", BinaryOp::Eq, kComparison, *this, o); }
Tensor& Tensor::ne_(const Tensor& o) { return compare_("NeBackward1", BinaryOp::Ne, kComparison, *this, o); }
Tensor& Tensor::ne_(Scalar o) { return compare_("NeBackward0", BinaryOp::Ne, kComparison, *this, o); }
Tensor& Tensor::lt_(const Tensor& o) { return compare_("LtBackward1", BinaryOp::Lt, kComparison, *this, o); }
Tensor& Tensor::lt_(Scalar o) { return compare_("LtBackward0", BinaryOp::Lt, kComparison, *this, o); }
Tensor& Tensor::le_(const Tensor& o) { return compare_("LeBackward1", BinaryOp::Le, kComparison, *this, o); }
Tensor& Tensor::le_(Scalar o) { return compare_("LeBackward0", BinaryOp::Le, kComparison, *this, o); }
Tensor& Tensor::gt_(const Tensor& o) { return compare_("GtBackward1", BinaryOp::Gt, kComparison, *this, o); }
Tensor& Tensor::gt_(Scalar o) { return compare_("GtBackward0", BinaryOp::Gt, kComparison, *this, o); }
Tensor& Tensor::ge_(const Tensor& o) { return compare_("GeBackward1", BinaryOp::Ge, kComparison, *this, o); }
Tensor& Tensor::ge_(Scalar o) { return compare_("GeBackward0", BinaryOp::Ge, kComparison, *this, o); }

// ---- logical ----

Tensor Tensor::logical_and(const Tensor& o) const { return binary(BinaryOp::LogicalAnd, kLogical, *this, o); }
Tensor Tensor::logical_or(const Tensor& o) const { return binary(BinaryOp::LogicalOr, kLogical, *this, o); }
Tensor Tensor::logical_xor(const Tensor& o) const { return binary(BinaryOp::LogicalXor, kLogical, *this, o); }
Tensor Tensor::logical_not() const { return unary(UnaryOp::LogicalNot, UnaryKind::ToBool, *this); }
Tensor& Tensor::logical_and_(const Tensor& o) {
  return compare_("LogicalAndBackward0", BinaryOp::LogicalAnd, kLogical, *this, o);
}
Tensor& Tensor::logical_or_(const Tensor& o) {
  return compare_("LogicalOrBackward0", BinaryOp::LogicalOr, kLogical, *this, o);
}
Tensor& Tensor::logical_xor_(const Tensor& o) {
  return compare_("LogicalXorBackward0", BinaryOp::LogicalXor, kLogical, *this, o);
}
// Where autograd must see the write, recorded as logical_and_ is, through `self == 0` (the same values);
// otherwise the unary kernel writes in place.
Tensor& Tensor::logical_not_() {
  if (autograd::inplace_needs_record(*this, {})) {
    return compare_("LogicalNotBackward0", BinaryOp::Eq, kComparison, *this, 0);
  }
  return detail::unary_(UnaryOp::LogicalNot, UnaryKind::ToBool, *this);
}

// ---- bitwise ----

Tensor Tensor::bitwise_and(const Tensor& o) const { return binary(BinaryOp::BitwiseAnd, kBitwise, *this, o); }
Tensor Tensor::bitwise_or(const Tensor& o) const { return binary(BinaryOp::BitwiseOr, kBitwise, *this, o); }
Tensor Tensor::bitwise_xor(const Tensor& o) const { return binary(BinaryOp::BitwiseXor, kBitwise, *this, o); }

Tensor Tensor::bitwise_not() const {
  if (dtype() == DType::Bool) return logical_not();
  if (is_floating_point()) {
    throw Error("\"bitwise_not_cpu\" not implemented for '" + scalar_type_name(dtype()) + "'");
  }
  return unary(UnaryOp::BitwiseNot, UnaryKind::SameType, *this);
}

Tensor& Tensor::bitwise_and_(const Tensor& o) { return bitwise_(BinaryOp::BitwiseAnd, *this, o); }
Tensor& Tensor::bitwise_and_(Scalar o) { return bitwise_(BinaryOp::BitwiseAnd, *this, o); }
Tensor& Tensor::bitwise_or_(const Tensor& o) { return bitwise_(BinaryOp::BitwiseOr, *this, o); }
Tensor& Tensor::bitwise_or_(Scalar o) { return bitwise_(BinaryOp::BitwiseOr, *this, o); }
Tensor& Tensor::bitwise_xor_(const Tensor& o) { return bitwise_(BinaryOp::BitwiseXor, *this, o); }
Tensor& Tensor::bitwise_xor_(Scalar o) { return bitwise_(BinaryOp::BitwiseXor, *this, o); }

Tensor& Tensor::bitwise_not_() {
  if (dtype() == DType::Bool) return detail::unary_(UnaryOp::LogicalNot, UnaryKind::ToBool, *this);
  if (is_floating_point()) {
    throw Error("\"bitwise_not_cpu\" not implemented for '" + scalar_type_name(dtype()) + "'");
  }
  return detail::unary_(UnaryOp::BitwiseNot, UnaryKind::SameType, *this);
}

Tensor Tensor::bitwise_left_shift(const Tensor& o) const { return shift(BinaryOp::LeftShift, *this, o); }
Tensor Tensor::bitwise_left_shift(Scalar o) const { return shift(BinaryOp::LeftShift, *this, o); }
Tensor Tensor::bitwise_right_shift(const Tensor& o) const { return shift(BinaryOp::RightShift, *this, o); }
Tensor Tensor::bitwise_right_shift(Scalar o) const { return shift(BinaryOp::RightShift, *this, o); }
Tensor& Tensor::bitwise_left_shift_(const Tensor& o) { return bitwise_(BinaryOp::LeftShift, *this, o); }
Tensor& Tensor::bitwise_left_shift_(Scalar o) { return bitwise_(BinaryOp::LeftShift, *this, o); }
Tensor& Tensor::bitwise_right_shift_(const Tensor& o) { return bitwise_(BinaryOp::RightShift, *this, o); }
Tensor& Tensor::bitwise_right_shift_(Scalar o) { return bitwise_(BinaryOp::RightShift, *this, o); }

// ---- floating-point classes ----

Tensor Tensor::isnan() const { return unary(UnaryOp::IsNan, UnaryKind::ToBool, *this); }
Tensor Tensor::isinf() const { return unary(UnaryOp::IsInf, UnaryKind::ToBool, *this); }
Tensor Tensor::isposinf() const { return unary(UnaryOp::IsPosInf, UnaryKind::ToBool, *this); }
Tensor Tensor::isneginf() const { return unary(UnaryOp::IsNegInf, UnaryKind::ToBool, *this); }
Tensor Tensor::isfinite() const { return unary(UnaryOp::IsFinite, UnaryKind::ToBool, *this); }

// ---- closeness ----

// PyTorch's isclose: a == b, or |a - b| <= atol + rtol |b| where that error is finite, computed in a's
// floating dtype (the default one for integral and bool inputs); NaN equals NaN only with equal_nan.
Tensor Tensor::isclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  if (dtype() != other.dtype()) {
    throw Error(scalar_type_name(dtype()) + " did not match " + scalar_type_name(other.dtype()));
  }
  auto number = [](double v) {
    std::ostringstream text;
    text << v;
    return text.str();
  };
  if (rtol < 0) throw Error("rtol must be greater than or equal to zero, but got " + number(rtol));
  if (atol < 0) throw Error("atol must be greater than or equal to zero, but got " + number(atol));
  Tensor close = eq(other);
  if (equal_nan && is_floating_point()) close = close.logical_or(isnan().logical_and(other.isnan()));
  if (rtol == 0 && atol == 0) return close;
  const DType wide = is_floating_point() ? dtype() : get_default_dtype();
  const Tensor a = to(wide), b = other.to(wide);
  const Tensor allowed = (b * rtol).abs() + atol;
  const Tensor error = (a - b).abs();
  return close.logical_or(error.isfinite().logical_and(error <= allowed));
}

// ---- functional forms and operators ----

Tensor isnan(const Tensor& x) { return x.isnan(); }
Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return a.isclose(b, rtol, atol, equal_nan);
}

// Both read one bool back from the device.
bool equal(const Tensor& a, const Tensor& b) {
  detail::check_same_device({&a, &b});
  if (!(a.sizes() == b.sizes())) return false;
  return a.eq(b).all().item<bool>();
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return a.isclose(b, rtol, atol, equal_nan).all().item<bool>();
}

bool Tensor::equal(const Tensor& other) const { return ember::equal(*this, other); }

bool Tensor::allclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return ember::allclose(*this, other, rtol, atol, equal_nan);
}

Tensor isinf(const Tensor& x) { return x.isinf(); }
Tensor bitwise_left_shift(const Tensor& a, const Tensor& b) { return a.bitwise_left_shift(b); }
Tensor bitwise_right_shift(const Tensor& a, const Tensor& b) { return a.bitwise_right_shift(b); }

Tensor operator==(const Tensor& a, const Tensor& b) { return a.eq(b); }
Tensor operator==(const Tensor& a, Scalar b) { return a.eq(b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return a.ne(b); }
Tensor operator!=(const Tensor& a, Scalar b) { return a.ne(b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return a.lt(b); }
Tensor operator<(const Tensor& a, Scalar b) { return a.lt(b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return a.le(b); }
Tensor operator<=(const Tensor& a, Scalar b) { return a.le(b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return a.gt(b); }
Tensor operator>(const Tensor& a, Scalar b) { return a.gt(b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return a.ge(b); }
Tensor operator>=(const Tensor& a, Scalar b) { return a.ge(b); }
Tensor operator&(const Tensor& a, const Tensor& b) { return a.bitwise_and(b); }
Tensor operator|(const Tensor& a, const Tensor& b) { return a.bitwise_or(b); }
Tensor operator^(const Tensor& a, const Tensor& b) { return a.bitwise_xor(b); }
Tensor operator<<(const Tensor& a, const Tensor& b) { return a.bitwise_left_shift(b); }
Tensor operator<<(const Tensor& a, Scalar b) { return a.bitwise_left_shift(b); }
Tensor operator>>(const Tensor& a, const Tensor& b) { return a.bitwise_right_shift(b); }
Tensor operator>>(const Tensor& a, Scalar b) { return a.bitwise_right_shift(b); }

}  // namespace ember
