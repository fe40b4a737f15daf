// Arithmetic: + - * /, the rounding divisions and remainders, powers, maximum and minimum, atan2,
// hypot and copysign, lerp, addcmul and addcdiv, with their in-place forms, operators and functional
// forms. Semantics (promotion, broadcasting, PyTorch's messages) are PyTorch's; each op records its
// node with the formula beside it.
#include <cmath>
#include <string>

#include "tensor/autocast.h"
#include "tensor/elementwise_support.h"

namespace ember {

namespace {

using autograd::FunctionNode;
using autograd::Record;
using autograd::tensor_list;
using detail::binary;
using detail::BinaryKind;
using detail::if_needed;
using detail::negated;
using detail::pass_through;
using detail::scaled;
using detail::wants_grad;

constexpr BinaryKind kArithmetic = BinaryKind::Arithmetic;

// PyTorch computes x ** 0.5 and x ** -0.5 as sqrt and rsqrt, which differ from pow at -inf and -0
// (sqrt(-inf) is NaN, pow(-inf, 0.5) inf).
std::optional<UnaryOp> root_for(Scalar exponent) {
  if (!exponent.is_floating_point()) return std::nullopt;
  if (exponent.to_double() == 0.5) return UnaryOp::Sqrt;
  if (exponent.to_double() == -0.5) return UnaryOp::Rsqrt;
  return std::nullopt;
}

}  // namespace

// ---- + - * / ----

Tensor Tensor::add(const Tensor& o, Scalar alpha) const {
  Record rec("AddBackward0", {this, &o});
  Tensor out = binary(BinaryOp::Add, kArithmetic, *this, o, alpha);
  if (!rec) return out;
  return rec.finish(out, [alpha](FunctionNode& node, const tensor_list& g) {
    return tensor_list{g[0], node.needs_input_grad(1) ? scaled(g[0], alpha) : Tensor()};
  });
}

Tensor Tensor::add(Scalar o, Scalar alpha) const {
  Record rec("AddBackward1", {this});
  Tensor out = binary(BinaryOp::Add, kArithmetic, *this, o, alpha);
  return rec ? rec.finish(out, pass_through) : out;
}

Tensor Tensor::sub(const Tensor& o, Scalar alpha) const {
  Record rec("SubBackward0", {this, &o});
  Tensor out = binary(BinaryOp::Sub, kArithmetic, *this, o, alpha);
  if (!rec) return out;
  return rec.finish(out, [alpha](FunctionNode& node, const tensor_list& g) {
    return tensor_list{g[0], node.needs_input_grad(1) ? scaled(g[0], negated(alpha)) : Tensor()};
  });
}

Tensor Tensor::sub(Scalar o, Scalar alpha) const {
  Record rec("SubBackward1", {this});
  Tensor out = binary(BinaryOp::Sub, kArithmetic, *this, o, alpha);
  return rec ? rec.finish(out, pass_through) : out;
}

Tensor Tensor::mul(const Tensor& o) const {
  Record rec("MulBackward0", {this, &o});
  Tensor out = binary(BinaryOp::Mul, kArithmetic, *this, o);
  if (!rec) return out;
  rec.save(if_needed(wants_grad(o), *this));
  rec.save(if_needed(wants_grad(*this), o));
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    return tensor_list{node.needs_input_grad(0) ? g[0] * node.saved(1) : Tensor(),
                       node.needs_input_grad(1) ? g[0] * node.saved(0) : Tensor()};
  });
}

Tensor Tensor::mul(Scalar o) const {
  Record rec("MulBackward1", {this});
  Tensor out = binary(BinaryOp::Mul, kArithmetic, *this, o);
  if (!rec) return out;
  return rec.finish(out, [o](FunctionNode&, const tensor_list& g) { return tensor_list{scaled(g[0], o)}; });
}

Tensor Tensor::div(const Tensor& o) const {
  Record rec("DivBackward0", {this, &o});
  Tensor out = binary(BinaryOp::Div, BinaryKind::TrueDivision, *this, o);
  if (!rec) return out;
  rec.save(if_needed(wants_grad(o), *this));
  rec.save(o);
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    const Tensor b = node.saved(1);
    return tensor_list{node.needs_input_grad(0) ? g[0] / b : Tensor(),
                       node.needs_input_grad(1) ? -(g[0] * node.saved(0) / (b * b)) : Tensor()};
  });
}

Tensor Tensor::div(Scalar o) const {
  Record rec("DivBackward1", {this});
  Tensor out = binary(BinaryOp::Div, BinaryKind::TrueDivision, *this, o);
  if (!rec) return out;
  return rec.finish(out, [o](FunctionNode&, const tensor_list& g) { return tensor_list{g[0].div(o)}; });
}

Tensor Tensor::div(const Tensor& o, std::string_view mode) const {
  BinaryOp op = BinaryOp::DivTrunc;
  if (mode == "floor") {
    op = BinaryOp::DivFloor;
  } else if (mode != "trunc") {
    throw Error("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '" +
                std::string(mode) + "'");
  }
  // Rounded quotients are piecewise constant: zero gradients, as PyTorch gives.
  Record rec("DivBackward2", {this, &o});
  Tensor out = binary(op, kArithmetic, *this, o);
  if (!rec) return out;
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    return tensor_list{node.needs_input_grad(0) ? zeros_like(g[0]) : Tensor(),
                       node.needs_input_grad(1) ? zeros_like(g[0]) : Tensor()};
  });
}

// ---- floor_divide, remainder, fmod ----

namespace {

// PyTorch records floor_divide but has no derivative for it: backward fails with its message.
// remainder(a, b) = a - floor(a / b) b and fmod(a, b) = a - trunc(a / b) b: the rounded quotient is
// locally constant, so a's gradient is g and b's is -g times that quotient.
Tensor rounded_remainder(BinaryOp op, const char* name, const Tensor& a, const Tensor& b) {
  Record rec(name, {&a, &b});
  Tensor out = binary(op, kArithmetic, a, b);
  if (!rec) return out;
  rec.save(if_needed(wants_grad(b), a));
  rec.save(if_needed(wants_grad(b), b));
  const bool floors = op == BinaryOp::Remainder;
  return rec.finish(out, [floors](FunctionNode& node, const tensor_list& g) {
    if (!node.needs_input_grad(1)) return tensor_list{g[0], Tensor()};
    const Tensor quotient = node.saved(0) / node.saved(1);
    return tensor_list{g[0], -(g[0] * (floors ? quotient.floor() : quotient.trunc()))};
  });
}

Tensor rounded_remainder(BinaryOp op, const char* name, const Tensor& a, Scalar b) {
  Record rec(name, {&a});
  Tensor out = binary(op, kArithmetic, a, b);
  return rec ? rec.finish(out, pass_through) : out;
}

}  // namespace

Tensor Tensor::floor_divide(const Tensor& o) const {
  Record rec("torch::autograd::NotImplemented", {this, &o});
  Tensor out = binary(BinaryOp::DivFloor, kArithmetic, *this, o);
  return rec ? rec.finish(out, autograd::not_implemented_backward("floor_divide")) : out;
}

Tensor Tensor::floor_divide(Scalar o) const {
  Record rec("torch::autograd::NotImplemented", {this});
  Tensor out = binary(BinaryOp::DivFloor, kArithmetic, *this, o);
  return rec ? rec.finish(out, autograd::not_implemented_backward("floor_divide")) : out;
}

Tensor Tensor::remainder(const Tensor& o) const {
  return rounded_remainder(BinaryOp::Remainder, "RemainderBackward1", *this, o);
}

Tensor Tensor::remainder(Scalar o) const {
  return rounded_remainder(BinaryOp::Remainder, "RemainderBackward0", *this, o);
}

Tensor Tensor::fmod(const Tensor& o) const { return rounded_remainder(BinaryOp::Fmod, "FmodBackward1", *this, o); }

Tensor Tensor::fmod(Scalar o) const { return rounded_remainder(BinaryOp::Fmod, "FmodBackward0", *this, o); }

// ---- powers ----
// d/dx x^e = e x^(e-1), taken as 0 where e = 0 (x^0 is constant even at x = 0); d/de x^e = x^e log x,
// taken as 0 where x = 0 and e >= 0 (the one-sided limit PyTorch uses).

Tensor Tensor::pow(const Tensor& e) const {
  if (autocast::is_active()) {
    return autocast::in_float32([](const Tensor& x, const Tensor& y) { return x.pow(y); }, *this, e);
  }
  Record rec("PowBackward1", {this, &e});
  Tensor out = binary(BinaryOp::Pow, kArithmetic, *this, e);
  if (!rec) return out;
  rec.save(*this);
  rec.save(e);
  rec.save_output(if_needed(wants_grad(e), out));
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    const Tensor x = node.saved(0), exponent = node.saved(1);
    Tensor gx, ge;
    if (node.needs_input_grad(0)) gx = (g[0] * exponent * x.pow(exponent - 1)).masked_fill(exponent == 0, 0);
    if (node.needs_input_grad(1)) {
      ge = (g[0] * node.saved(2) * x.log()).masked_fill((x == 0).logical_and(exponent >= 0), 0);
    }
    return tensor_list{gx, ge};
  });
}

Tensor Tensor::pow(Scalar e) const {
  if (autocast::is_active()) return autocast::in_float32([e](const Tensor& x) { return x.pow(e); }, *this);
  Record rec("PowBackward0", {this});
  const std::optional<UnaryOp> root = root_for(e);
  Tensor out = root ? detail::unary(*root, detail::UnaryKind::Floating, *this) : binary(BinaryOp::Pow, kArithmetic, *this, e);
  if (!rec) return out;
  rec.save(*this);
  return rec.finish(out, [e](FunctionNode& node, const tensor_list& g) {
    if (e.to_double() == 0.0) return tensor_list{zeros_like(g[0])};
    const Scalar e_minus_1 = e.is_floating_point() ? Scalar(e.to_double() - 1) : Scalar(e.to_int64() - 1);
    return tensor_list{g[0] * node.saved(0).pow(e_minus_1) * e};
  });
}

Tensor pow(Scalar base, const Tensor& e) {
  if (autocast::is_active()) return autocast::in_float32([base](const Tensor& x) { return pow(base, x); }, e);
  Record rec("PowBackward2", {&e});
  Tensor out = binary(BinaryOp::Pow, kArithmetic, base, e);
  if (!rec) return out;
  const bool zero_base = base.to_double() == 0.0;
  rec.save_output(out);
  rec.save(if_needed(zero_base, e));
  return rec.finish(out, [base, zero_base](FunctionNode& node, const tensor_list& g) {
    const Tensor ge = g[0] * node.saved(0) * std::log(base.to_double());
    return tensor_list{zero_base ? ge.masked_fill(node.saved(1) >= 0, 0) : ge};
  });
}

// ---- maximum, minimum, atan2, hypot, copysign ----

// The larger (smaller) input gets the gradient; ties split it evenly, as PyTorch does. An input gets
// the gradient unless it lost, so a NaN (which compares false) passes it to both.
Tensor Tensor::maximum(const Tensor& o) const {
  Record rec("MaximumBackward0", {this, &o});
  Tensor out = binary(BinaryOp::Maximum, kArithmetic, *this, o);
  if (!rec) return out;
  rec.save(*this);
  rec.save(o);
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    const Tensor a = node.saved(0), b = node.saved(1);
    const Tensor shared = ember::where(a == b, g[0] / 2, g[0]);
    return tensor_list{node.needs_input_grad(0) ? shared.masked_fill(a < b, 0) : Tensor(),
                       node.needs_input_grad(1) ? shared.masked_fill(a > b, 0) : Tensor()};
  });
}

Tensor Tensor::minimum(const Tensor& o) const {
  Record rec("MinimumBackward0", {this, &o});
  Tensor out = binary(BinaryOp::Minimum, kArithmetic, *this, o);
  if (!rec) return out;
  rec.save(*this);
  rec.save(o);
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    const Tensor a = node.saved(0), b = node.saved(1);
    const Tensor shared = ember::where(a == b, g[0] / 2, g[0]);
    return tensor_list{node.needs_input_grad(0) ? shared.masked_fill(a > b, 0) : Tensor(),
                       node.needs_input_grad(1) ? shared.masked_fill(a < b, 0) : Tensor()};
  });
}

// atan2(a, b) = the angle of (b, a): d/da = b / (a^2 + b^2), d/db = -a / (a^2 + b^2).
Tensor Tensor::atan2(const Tensor& o) const {
  Record rec("Atan2Backward0", {this, &o});
  Tensor out = binary(BinaryOp::Atan2, BinaryKind::TrueDivision, *this, o);
  if (!rec) return out;
  rec.save(*this);
  rec.save(o);
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    const Tensor a = node.saved(0), b = node.saved(1);
    const Tensor scale = g[0] / (a * a + b * b);
    return tensor_list{node.needs_input_grad(0) ? scale * b : Tensor(),
                       node.needs_input_grad(1) ? -(scale * a) : Tensor()};
  });
}

namespace {

void check_hypot_dtypes(const Tensor& a, const Tensor& b) {
  const DType common = result_type(a, b);
  if (!ember::is_floating_point(common)) {
    throw Error("\"hypot_cpu\" not implemented for '" + scalar_type_name(common) + "'");
  }
}

}  // namespace

// sqrt(a^2 + b^2) for floating inputs: d/da = a / out, d/db = b / out.
Tensor Tensor::hypot(const Tensor& o) const {
  check_hypot_dtypes(*this, o);
  Record rec("HypotBackward0", {this, &o});
  Tensor out = binary(BinaryOp::Hypot, kArithmetic, *this, o);
  if (!rec) return out;
  rec.save(if_needed(wants_grad(*this), *this));
  rec.save(if_needed(wants_grad(o), o));
  rec.save_output(out);
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    const Tensor scale = g[0] / node.saved(2);
    return tensor_list{node.needs_input_grad(0) ? scale * node.saved(0) : Tensor(),
                       node.needs_input_grad(1) ? scale * node.saved(1) : Tensor()};
  });
}

namespace {

// |a| with b's sign: a's gradient is g times out / a (the sign flip), 0 where a is 0; b gets none.
Tensor recorded_copysign(const char* name, const Tensor& a, const Tensor* b, const detail::TensorOrScalar& sign) {
  Record rec(name, {&a, b});
  Tensor out = binary(BinaryOp::Copysign, BinaryKind::TrueDivision, a, sign);
  if (!rec) return out;
  rec.save(a);
  rec.save_output(out);
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    const Tensor a = node.saved(0);
    return tensor_list{node.needs_input_grad(0) ? g[0] * (node.saved(1) / a).masked_fill(a == 0, 0) : Tensor(),
                       node.needs_input_grad(1) ? zeros_like(g[0]) : Tensor()};
  });
}

}  // namespace

Tensor Tensor::copysign(const Tensor& o) const { return recorded_copysign("CopysignBackward0", *this, &o, o); }

Tensor Tensor::copysign(Scalar o) const { return recorded_copysign("CopysignBackward1", *this, nullptr, o); }

// ---- in-place forms ----

Tensor& Tensor::add_(const Tensor& o, Scalar alpha) {
  return detail::inplace(*this, {&o}, [&](const Tensor& old) { return old.add(o, alpha); },
                         [&] { detail::binary_(BinaryOp::Add, kArithmetic, *this, o, alpha); });
}

Tensor& Tensor::add_(Scalar o, Scalar alpha) {
  return detail::inplace(*this, {}, [&](const Tensor& old) { return old.add(o, alpha); },
                         [&] { detail::binary_(BinaryOp::Add, kArithmetic, *this, o, alpha); });
}

Tensor& Tensor::sub_(const Tensor& o, Scalar alpha) {
  return detail::inplace(*this, {&o}, [&](const Tensor& old) { return old.sub(o, alpha); },
                         [&] { detail::binary_(BinaryOp::Sub, kArithmetic, *this, o, alpha); });
}

Tensor& Tensor::sub_(Scalar o, Scalar alpha) {
  return detail::inplace(*this, {}, [&](const Tensor& old) { return old.sub(o, alpha); },
                         [&] { detail::binary_(BinaryOp::Sub, kArithmetic, *this, o, alpha); });
}

Tensor& Tensor::mul_(const Tensor& o) {
  return detail::inplace(*this, {&o}, [&](const Tensor& old) { return old.mul(o); },
                         [&] { detail::binary_(BinaryOp::Mul, kArithmetic, *this, o); });
}

Tensor& Tensor::mul_(Scalar o) {
  return detail::inplace(*this, {}, [&](const Tensor& old) { return old.mul(o); },
                         [&] { detail::binary_(BinaryOp::Mul, kArithmetic, *this, o); });
}

Tensor& Tensor::div_(const Tensor& o) {
  return detail::inplace(*this, {&o}, [&](const Tensor& old) { return old.div(o); },
                         [&] { detail::binary_(BinaryOp::Div, BinaryKind::TrueDivision, *this, o); });
}

Tensor& Tensor::div_(Scalar o) {
  return detail::inplace(*this, {}, [&](const Tensor& old) { return old.div(o); },
                         [&] { detail::binary_(BinaryOp::Div, BinaryKind::TrueDivision, *this, o); });
}

Tensor& Tensor::floor_divide_(const Tensor& o) {
  return detail::inplace(*this, {&o}, [&](const Tensor& old) { return old.floor_divide(o); },
                         [&] { detail::binary_(BinaryOp::DivFloor, kArithmetic, *this, o); });
}

Tensor& Tensor::floor_divide_(Scalar o) {
  return detail::inplace(*this, {}, [&](const Tensor& old) { return old.floor_divide(o); },
                         [&] { detail::binary_(BinaryOp::DivFloor, kArithmetic, *this, o); });
}

Tensor& Tensor::remainder_(const Tensor& o) {
  return detail::inplace(*this, {&o}, [&](const Tensor& old) { return old.remainder(o); },
                         [&] { detail::binary_(BinaryOp::Remainder, kArithmetic, *this, o); });
}

Tensor& Tensor::remainder_(Scalar o) {
  return detail::inplace(*this, {}, [&](const Tensor& old) { return old.remainder(o); },
                         [&] { detail::binary_(BinaryOp::Remainder, kArithmetic, *this, o); });
}

Tensor& Tensor::fmod_(const Tensor& o) {
  return detail::inplace(*this, {&o}, [&](const Tensor& old) { return old.fmod(o); },
                         [&] { detail::binary_(BinaryOp::Fmod, kArithmetic, *this, o); });
}

Tensor& Tensor::fmod_(Scalar o) {
  return detail::inplace(*this, {}, [&](const Tensor& old) { return old.fmod(o); },
                         [&] { detail::binary_(BinaryOp::Fmod, kArithmetic, *this, o); });
}

Tensor& Tensor::atan2_(const Tensor& o) {
  return detail::inplace(*this, {&o}, [&](const Tensor& old) { return old.atan2(o); },
                         [&] { detail::binary_(BinaryOp::Atan2, BinaryKind::TrueDivision, *this, o); });
}

Tensor& Tensor::hypot_(const Tensor& o) {
  check_hypot_dtypes(*this, o);
  return detail::inplace(*this, {&o}, [&](const Tensor& old) { return old.hypot(o); },
                         [&] { detail::binary_(BinaryOp::Hypot, kArithmetic, *this, o); });
}

Tensor& Tensor::copysign_(const Tensor& o) {
  return detail::inplace(*this, {&o}, [&](const Tensor& old) { return old.copysign(o); },
                         [&] { detail::binary_(BinaryOp::Copysign, BinaryKind::TrueDivision, *this, o); });
}

Tensor& Tensor::copysign_(Scalar o) {
  return detail::inplace(*this, {}, [&](const Tensor& old) { return old.copysign(o); },
                         [&] { detail::binary_(BinaryOp::Copysign, BinaryKind::TrueDivision, *this, o); });
}

Tensor& Tensor::pow_(const Tensor& exponent) {
  return detail::inplace(*this, {&exponent}, [&](const Tensor& old) { return old.pow(exponent); },
                         [&] { detail::binary_(BinaryOp::Pow, kArithmetic, *this, exponent); });
}

Tensor& Tensor::pow_(Scalar exponent) {
  return detail::inplace(*this, {}, [&](const Tensor& old) { return old.pow(exponent); }, [&] {
    if (const std::optional<UnaryOp> root = root_for(exponent)) {
      detail::unary_(*root, detail::UnaryKind::Floating, *this);
    } else {
      detail::binary_(BinaryOp::Pow, kArithmetic, *this, exponent);
    }
  });
}

// ---- lerp, addcmul, addcdiv ----

namespace {

// lerp's operands share self's dtype; `weight` is null for a scalar weight.
void check_lerp_dtypes(const Tensor& self, const Tensor& end, const Tensor* weight) {
  const bool end_differs = end.dtype() != self.dtype();
  if (!end_differs && (!weight || weight->dtype() == self.dtype())) return;
  throw Error("expected dtype " + std::string(dtype_name(self.dtype())) + " for `" + (end_differs ? "end" : "weight") +
              "` but got dtype " + std::string(dtype_name(end_differs ? end.dtype() : weight->dtype())));
}

}  // namespace

// lerp(a, e, w) = a + w (e - a).
Tensor Tensor::lerp(const Tensor& end, Scalar weight) const {
  check_lerp_dtypes(*this, end, nullptr);
  Record rec("LerpBackward0", {this, &end});
  Tensor out = detail::run_ternary(TernaryOp::Lerp, *this, end, weight, dtype(), dtype(), 1, nullptr);
  if (!rec) return out;
  return rec.finish(out, [w = weight.to_double()](FunctionNode& node, const tensor_list& g) {
    return tensor_list{node.needs_input_grad(0) ? g[0] * (1 - w) : Tensor(),
                       node.needs_input_grad(1) ? g[0] * w : Tensor()};
  });
}

Tensor Tensor::lerp(const Tensor& end, const Tensor& weight) const {
  check_lerp_dtypes(*this, end, &weight);
  Record rec("LerpBackward1", {this, &end, &weight});
  Tensor out = detail::run_ternary(TernaryOp::Lerp, *this, end, weight, dtype(), dtype(), 1, nullptr);
  if (!rec) return out;
  const bool weight_grad = wants_grad(weight);
  rec.save(if_needed(weight_grad, *this));
  rec.save(if_needed(weight_grad, end));
  rec.save(if_needed(wants_grad(*this) || wants_grad(end), weight));
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    const Tensor w = node.saved(2);
    return tensor_list{node.needs_input_grad(0) ? g[0] * (1 - w) : Tensor(),
                       node.needs_input_grad(1) ? g[0] * w : Tensor(),
                       node.needs_input_grad(2) ? g[0] * (node.saved(1) - node.saved(0)) : Tensor()};
  });
}

namespace {

DType addc_dtype(const Tensor& self, const Tensor& t1, const Tensor& t2, bool division) {
  const DType result = detail::promote_all({self.dtype(), t1.dtype(), t2.dtype()});
  if (division && !is_floating_point(result)) {
    throw Error("Integer division with addcdiv is no longer supported, and in a future release addcdiv will "
                "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
                "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
                "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
                "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
                "for all dtypes.");
  }
  return result;
}

}  // namespace

// x + v t1 t2.
Tensor Tensor::addcmul(const Tensor& t1, const Tensor& t2, Scalar value) const {
  const DType result = addc_dtype(*this, t1, t2, false);
  Record rec("AddcmulBackward0", {this, &t1, &t2});
  Tensor out = detail::run_ternary(TernaryOp::Addcmul, *this, t1, t2, result, result, value, nullptr);
  if (!rec) return out;
  rec.save(if_needed(wants_grad(t2), t1));
  rec.save(if_needed(wants_grad(t1), t2));
  return rec.finish(out, [value](FunctionNode& node, const tensor_list& g) {
    return tensor_list{g[0], node.needs_input_grad(1) ? scaled(g[0] * node.saved(1), value) : Tensor(),
                       node.needs_input_grad(2) ? scaled(g[0] * node.saved(0), value) : Tensor()};
  });
}

// x + v t1 / t2: d/dt1 = v / t2, d/dt2 = -v t1 / t2^2.
Tensor Tensor::addcdiv(const Tensor& t1, const Tensor& t2, Scalar value) const {
  const DType result = addc_dtype(*this, t1, t2, true);
  Record rec("AddcdivBackward0", {this, &t1, &t2});
  Tensor out = detail::run_ternary(TernaryOp::Addcdiv, *this, t1, t2, result, result, value, nullptr);
  if (!rec) return out;
  rec.save(if_needed(wants_grad(t2), t1));
  rec.save(if_needed(wants_grad(t1) || wants_grad(t2), t2));
  return rec.finish(out, [value](FunctionNode& node, const tensor_list& g) {
    const Tensor t2 = node.saved(1);
    return tensor_list{g[0], node.needs_input_grad(1) ? scaled(g[0] / t2, value) : Tensor(),
                       node.needs_input_grad(2) ? scaled(g[0] * node.saved(0) / (t2 * t2), negated(value))
                                                : Tensor()};
  });
}

Tensor& Tensor::lerp_(const Tensor& end, Scalar weight) {
  check_lerp_dtypes(*this, end, nullptr);
  return detail::inplace(*this, {&end}, [&](const Tensor& old) { return old.lerp(end, weight); },
                         [&] { detail::run_ternary(TernaryOp::Lerp, *this, end, weight, dtype(), dtype(), 1, this); });
}

Tensor& Tensor::lerp_(const Tensor& end, const Tensor& weight) {
  check_lerp_dtypes(*this, end, &weight);
  return detail::inplace(*this, {&end, &weight}, [&](const Tensor& old) { return old.lerp(end, weight); },
                         [&] { detail::run_ternary(TernaryOp::Lerp, *this, end, weight, dtype(), dtype(), 1, this); });
}

Tensor& Tensor::addcmul_(const Tensor& t1, const Tensor& t2, Scalar value) {
  return detail::inplace(*this, {&t1, &t2}, [&](const Tensor& old) { return old.addcmul(t1, t2, value); }, [&] {
    const DType result = addc_dtype(*this, t1, t2, false);
    detail::run_ternary(TernaryOp::Addcmul, *this, t1, t2, result, result, value, this);
  });
}

Tensor& Tensor::addcdiv_(const Tensor& t1, const Tensor& t2, Scalar value) {
  return detail::inplace(*this, {&t1, &t2}, [&](const Tensor& old) { return old.addcdiv(t1, t2, value); }, [&] {
    const DType result = addc_dtype(*this, t1, t2, true);
    detail::run_ternary(TernaryOp::Addcdiv, *this, t1, t2, result, result, value, this);
  });
}

// ---- functional forms and operators ----

Tensor add(const Tensor& a, const Tensor& b, Scalar alpha) { return a.add(b, alpha); }
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha) { return a.sub(b, alpha); }
Tensor mul(const Tensor& a, const Tensor& b) { return a.mul(b); }
Tensor div(const Tensor& a, const Tensor& b) { return a.div(b); }
Tensor pow(const Tensor& a, const Tensor& b) { return a.pow(b); }
Tensor pow(const Tensor& a, Scalar b) { return a.pow(b); }
Tensor maximum(const Tensor& a, const Tensor& b) { return a.maximum(b); }
Tensor minimum(const Tensor& a, const Tensor& b) { return a.minimum(b); }
Tensor hypot(const Tensor& a, const Tensor& b) { return a.hypot(b); }
Tensor copysign(const Tensor& a, const Tensor& b) { return a.copysign(b); }
Tensor lerp(const Tensor& s, const Tensor& e, const Tensor& w) { return s.lerp(e, w); }
Tensor lerp(const Tensor& s, const Tensor& e, Scalar w) { return s.lerp(e, w); }
Tensor addcmul(const Tensor& x, const Tensor& a, const Tensor& b, Scalar v) { return x.addcmul(a, b, v); }
Tensor addcdiv(const Tensor& x, const Tensor& a, const Tensor& b, Scalar v) { return x.addcdiv(a, b, v); }

Tensor operator+(const Tensor& a, const Tensor& b) { return a.add(b); }
Tensor operator+(const Tensor& a, Scalar b) { return a.add(b); }
Tensor operator+(Scalar a, const Tensor& b) { return b.add(a); }
Tensor operator-(const Tensor& a, const Tensor& b) { return a.sub(b); }
Tensor operator-(const Tensor& a, Scalar b) { return a.sub(b); }

// LibTorch computes s - b as full(s) - b, with b's dtype: so the node is SubBackward0, and a bool b is
// a subtraction of two bool tensors.
Tensor operator-(Scalar a, const Tensor& b) {
  if (b.dtype() == DType::Bool) return b.sub(b);  // throws PyTorch's error for two bool tensors
  Record rec("SubBackward0", {&b});
  Tensor out = binary(BinaryOp::Sub, kArithmetic, a, b);
  if (!rec) return out;
  return rec.finish(out, [](FunctionNode&, const tensor_list& g) { return tensor_list{g[0].neg()}; });
}

Tensor operator*(const Tensor& a, const Tensor& b) { return a.mul(b); }
Tensor operator*(const Tensor& a, Scalar b) { return a.mul(b); }
Tensor operator*(Scalar a, const Tensor& b) { return b.mul(a); }
Tensor operator/(const Tensor& a, const Tensor& b) { return a.div(b); }
Tensor operator/(const Tensor& a, Scalar b) { return a.div(b); }

// s / b, as LibTorch's full(s) / b: DivBackward0 with d/db = -s / b^2 = -out / b.
Tensor operator/(Scalar a, const Tensor& b) {
  Record rec("DivBackward0", {&b});
  Tensor out = binary(BinaryOp::Div, BinaryKind::TrueDivision, a, b);
  if (!rec) return out;
  rec.save(b);
  rec.save_output(out);
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    return tensor_list{-(g[0] * node.saved(1) / node.saved(0))};
  });
}

Tensor operator%(const Tensor& a, const Tensor& b) { return a.remainder(b); }
Tensor operator%(const Tensor& a, Scalar b) { return a.remainder(b); }

}  // namespace ember
