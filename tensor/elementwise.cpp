// Elementwise ops: the result dtype (PyTorch's promotion), broadcasting, in-place checks, and the
// unary, binary or ternary kernel each becomes. Inputs keep their strides; broadcast dims read with
// stride 0.
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>

#include "autograd/record.h"
#include "tensor/ops_support.h"

namespace ember {

namespace {

using detail::check_same_device;
using detail::type_name;

// A scalar converted to an integral compute dtype's range first, as PyTorch casts scalars to the
// common dtype (uint8 compared with -1 compares with 255).
Scalar scalar_in(Scalar value, DType compute) {
  switch (compute) {
    case DType::Int8: return static_cast<int64_t>(static_cast<int8_t>(value.to_int64()));
    case DType::UInt8: return static_cast<int64_t>(static_cast<uint8_t>(value.to_int64()));
    case DType::Int16: return static_cast<int64_t>(static_cast<int16_t>(value.to_int64()));
    case DType::Int32: return static_cast<int64_t>(static_cast<int32_t>(value.to_int64()));
    case DType::Bool: return value.to_bool();
    default: return value;
  }
}

enum class Kind { Arithmetic, TrueDivision, Comparison, Logical, Bitwise };

DType result_dtype(Kind kind, DType common) {
  switch (kind) {
    case Kind::TrueDivision: return is_floating_point(common) ? common : get_default_dtype();
    case Kind::Comparison:
    case Kind::Logical: return DType::Bool;
    default: return common;
  }
}

// What an in-place destination of a broadcasting op must satisfy: it holds the result dtype, the
// broadcast shape is its own shape, and no two of its elements share memory.
void check_inplace_target(const Tensor& out, DType result, IntArrayRef shape) {
  detail::check_castable(result, out.dtype());
  const std::vector<int64_t> full = broadcast_shapes(out.sizes(), shape);
  if (!(IntArrayRef(full) == out.sizes())) {
    throw Error("output with shape " + to_string(out.sizes()) + " doesn't match the broadcast shape " +
                to_string(full));
  }
  detail::check_no_internal_overlap(out);
}

void check_binary_dtypes(BinaryOp op, Kind kind, DType common) {
  if (kind == Kind::Bitwise && is_floating_point(common)) {
    throw Error("\"" + std::string(binary_op_name(op)) + "_cpu\" not implemented for '" + type_name(common) + "'");
  }
  if (op == BinaryOp::Sub && common == DType::Bool) {
    throw Error("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                "`logical_xor()` operator instead.");
  }
}

struct Input {
  const Tensor* tensor = nullptr;
  std::optional<Scalar> scalar;
};

// Runs a binary op. `out` is the destination for in-place forms, else null.
Tensor run_binary(BinaryOp op, Kind kind, const Input& a, const Input& b, Scalar alpha, Tensor* out) {
  const Tensor& any = a.tensor ? *a.tensor : *b.tensor;
  if (a.tensor && b.tensor) check_same_device({a.tensor, b.tensor});
  const DType common = a.tensor && b.tensor ? result_type(*a.tensor, *b.tensor)
                       : a.tensor           ? result_type(*a.tensor, *b.scalar)
                                            : result_type(*a.scalar, *b.tensor);
  DType compute = kind == Kind::TrueDivision ? result_dtype(kind, common) : common;
  check_binary_dtypes(op, kind, common);
  if (op == BinaryOp::Pow && !is_floating_point(compute) && b.scalar && b.scalar->to_int64() < 0) {
    throw Error("Integers to negative integer powers are not allowed.");
  }
  std::vector<int64_t> shape = a.tensor && b.tensor ? broadcast_shapes(a.tensor->sizes(), b.tensor->sizes())
                                                    : any.sizes().vec();
  Tensor result;
  if (out) {
    check_same_device({out, &any});
    check_inplace_target(*out, result_dtype(kind, common), shape);
    result = *out;
    shape = out->sizes().vec();
  } else {
    result = detail::empty_on(shape, result_dtype(kind, common), any.device());
  }
  if (result.numel() > 0) {
    const Operand oa = a.tensor ? Operand(a.tensor->ref(shape)) : Operand(scalar_in(*a.scalar, compute));
    const Operand ob = b.tensor ? Operand(b.tensor->ref(shape)) : Operand(scalar_in(*b.scalar, compute));
    detail::kernels_for(*any.device())
        .binary(*detail::stream_for(*any.device()), op, result.ref(), oa, ob, compute,
                scalar_in(alpha, compute));
  }
  if (out) detail::bump_version(*out);
  return result;
}

Tensor binary(BinaryOp op, Kind kind, const Tensor& a, const Tensor& b, Scalar alpha = 1) {
  return run_binary(op, kind, {&a, {}}, {&b, {}}, alpha, nullptr);
}
Tensor binary(BinaryOp op, Kind kind, const Tensor& a, Scalar b, Scalar alpha = 1) {
  return run_binary(op, kind, {&a, {}}, {nullptr, b}, alpha, nullptr);
}
Tensor binary(BinaryOp op, Kind kind, Scalar a, const Tensor& b) {
  return run_binary(op, kind, {nullptr, a}, {&b, {}}, 1, nullptr);
}
Tensor& binary_(BinaryOp op, Kind kind, Tensor& self, const Tensor& b, Scalar alpha = 1) {
  run_binary(op, kind, {&self, {}}, {&b, {}}, alpha, &self);
  return self;
}
Tensor& binary_(BinaryOp op, Kind kind, Tensor& self, Scalar b, Scalar alpha = 1) {
  run_binary(op, kind, {&self, {}}, {nullptr, b}, alpha, &self);
  return self;
}

enum class UnaryKind {
  SameType,      // abs, neg, sign: integral stays integral
  Floating,      // exp, sin: integral and bool become the default float dtype
  ToBool,        // isnan, logical_not
  FloatOnlySame, // frac: floating inputs only
};

Tensor run_unary(UnaryOp op, UnaryKind kind, const Tensor& x, Tensor* out, Scalar p0 = 0, Scalar p1 = 0,
                 Scalar p2 = 0) {
  DType result = x.dtype(), compute = x.dtype();
  switch (kind) {
    case UnaryKind::Floating:
      if (!x.is_floating_point()) result = compute = get_default_dtype();
      break;
    case UnaryKind::ToBool: result = DType::Bool; break;
    case UnaryKind::FloatOnlySame:
      if (!x.is_floating_point()) {
        throw Error("\"" + std::string(unary_op_name(op)) + "_cpu\" not implemented for '" + type_name(x.dtype()) + "'");
      }
      break;
    case UnaryKind::SameType: break;
  }
  Tensor target;
  if (out) {
    check_inplace_target(*out, result, out->sizes());
    target = *out;
  } else {
    target = detail::empty_on(x.sizes(), result, x.device());
  }
  if (x.numel() > 0) {
    detail::kernels_for(*x.device())
        .unary(*detail::stream_for(*x.device()), op, target.ref(), x.ref(), compute, scalar_in(p0, compute),
               scalar_in(p1, compute), scalar_in(p2, compute));
  }
  if (out) detail::bump_version(*out);
  return target;
}

Tensor unary(UnaryOp op, UnaryKind kind, const Tensor& x) { return run_unary(op, kind, x, nullptr); }
Tensor& unary_(UnaryOp op, UnaryKind kind, Tensor& x) {
  run_unary(op, kind, x, &x);
  return x;
}

// Ternary ops. `b`/`c` may be scalars; `shape` and dtypes are decided by the caller.
Tensor run_ternary(TernaryOp op, const Tensor& a, const Input& b, const Input& c, DType result,
                   DType compute, Scalar alpha, Tensor* out) {
  std::vector<int64_t> shape = a.sizes().vec();
  if (b.tensor) shape = broadcast_shapes(shape, b.tensor->sizes());
  if (c.tensor) shape = broadcast_shapes(shape, c.tensor->sizes());
  check_same_device({&a, b.tensor ? b.tensor : &a, c.tensor ? c.tensor : &a});
  Tensor target;
  if (out) {
    check_inplace_target(*out, result, shape);
    target = *out;
    shape = out->sizes().vec();
  } else {
    target = detail::empty_on(shape, result, a.device());
  }
  if (target.numel() > 0) {
    const Operand ob = b.tensor ? Operand(b.tensor->ref(shape)) : Operand(scalar_in(*b.scalar, compute));
    const Operand oc = c.tensor ? Operand(c.tensor->ref(shape)) : Operand(scalar_in(*c.scalar, compute));
    detail::kernels_for(*a.device())
        .ternary(*detail::stream_for(*a.device()), op, target.ref(), a.ref(shape), ob, oc, compute,
                 scalar_in(alpha, compute));
  }
  if (out) detail::bump_version(*out);
  return target;
}

DType promote_all(std::initializer_list<DType> dtypes) {
  DType result = *dtypes.begin();
  for (DType d : dtypes) result = promote_types(result, d);
  return result;
}

void check_condition(const Tensor& condition) {
  if (condition.dtype() != DType::Bool && condition.dtype() != DType::UInt8) {
    throw Error("where expected condition to be a boolean tensor, but got a tensor with dtype " +
                type_name(condition.dtype()));
  }
}

// ---- autograd ----
// Backward formulas are written with the public ops, so under create_graph they record a graph of their
// own. Closures capture only scalars; tensors are saved on the node.
using autograd::FunctionNode;
using autograd::Record;
using autograd::tensor_list;
using autograd::record_inplace;

bool wants_grad(const Tensor& t) { return t.defined() && t.requires_grad(); }

// What a node saves is only what the gradients it will compute read (as in PyTorch), so later in-place
// writes to the other inputs stay legal. An undefined tensor keeps the saved indices fixed.
Tensor if_needed(bool needed, const Tensor& t) { return needed ? t : Tensor(); }

// g * s, without a kernel for s == 1.
Tensor scaled(const Tensor& g, Scalar s) { return s.to_double() == 1.0 ? g : g.mul(s); }

Scalar negated(Scalar s) { return s.is_floating_point() ? Scalar(-s.to_double()) : Scalar(-s.to_int64()); }

tensor_list pass_through(FunctionNode&, const tensor_list& g) { return {g[0]}; }

// The common activations' gradients are one fused kernel in plain backward; under create_graph they
// are written with differentiable ops instead, so that they record their own graph.
Tensor tanh_grad(const Tensor& g, const Tensor& y) {
  if (autograd::GradMode::is_enabled()) return g * (1 - y * y);
  return binary(BinaryOp::TanhBackward, Kind::Arithmetic, g, y);
}
Tensor sigmoid_grad(const Tensor& g, const Tensor& y) {
  if (autograd::GradMode::is_enabled()) return g * y * (1 - y);
  return binary(BinaryOp::SigmoidBackward, Kind::Arithmetic, g, y);
}
Tensor relu_grad(const Tensor& g, const Tensor& y) {
  if (autograd::GradMode::is_enabled()) return g.masked_fill(y <= 0, 0);
  return binary(BinaryOp::ThresholdBackward, Kind::Arithmetic, g, y, 0);
}

// A unary op's backward: g is the output's gradient, `s` the saved input x or output y (or nothing).
enum class Saved { Nothing, Input, Output };
struct UnaryGrad {
  const char* name = nullptr;  // PyTorch's node name; null: not differentiable
  Saved saved = Saved::Nothing;
  Tensor (*formula)(const Tensor& g, const Tensor& s) = nullptr;
};

Tensor zero_grad(const Tensor& g, const Tensor&) { return zeros_like(g); }

// d/dx gelu(x) = Phi(x) + x phi(x), Phi and phi the standard normal cdf and density.
Tensor gelu_grad(const Tensor& g, const Tensor& x) {
  const double inv_sqrt2 = 1 / std::numbers::sqrt2;
  const double inv_sqrt_2pi = std::numbers::inv_sqrtpi * inv_sqrt2;
  const Tensor cdf = ((x * inv_sqrt2).erf() + 1) * 0.5;
  const Tensor pdf = (x * x * -0.5).exp() * inv_sqrt_2pi;
  return g * (cdf + x * pdf);
}

// gelu's tanh form is 0.5 x (1 + tanh(u)) with u = k (x + c x^3); its derivative is
// 0.5 (1 + tanh u) + 0.5 x (1 - tanh^2 u) du/dx with du/dx = k (1 + 3 c x^2).
Tensor gelu_tanh_grad(const Tensor& g, const Tensor& x) {
  const double k = std::numbers::sqrt2 * std::numbers::inv_sqrtpi;  // sqrt(2 / pi)
  const double c = 0.044715;
  const Tensor x2 = x * x;
  const Tensor t = (x * (x2 * c + 1) * k).tanh();
  const Tensor du = (x2 * (3 * c) + 1) * k;
  return g * ((t + 1) * 0.5 + x * 0.5 * (1 - t * t) * du);
}

UnaryGrad unary_grad(UnaryOp op) {
  using T = const Tensor&;
  using std::numbers::ln10;
  using std::numbers::ln2;
  switch (op) {
    case UnaryOp::Neg: return {"NegBackward0", Saved::Nothing, [](T g, T) { return g.neg(); }};
    case UnaryOp::Abs: return {"AbsBackward0", Saved::Input, [](T g, T x) { return g * x.sign(); }};
    case UnaryOp::Sign: return {"SignBackward0", Saved::Nothing, zero_grad};
    case UnaryOp::Reciprocal: return {"ReciprocalBackward0", Saved::Output, [](T g, T y) { return -(g * y * y); }};
    case UnaryOp::Exp: return {"ExpBackward0", Saved::Output, [](T g, T y) { return g * y; }};
    case UnaryOp::Exp2: return {"Exp2Backward0", Saved::Output, [](T g, T y) { return g * y * ln2; }};
    case UnaryOp::Expm1: return {"Expm1Backward0", Saved::Output, [](T g, T y) { return g * (y + 1); }};
    case UnaryOp::Log: return {"LogBackward0", Saved::Input, [](T g, T x) { return g / x; }};
    case UnaryOp::Log2: return {"Log2Backward0", Saved::Input, [](T g, T x) { return g / (x * ln2); }};
    case UnaryOp::Log10: return {"Log10Backward0", Saved::Input, [](T g, T x) { return g / (x * ln10); }};
    case UnaryOp::Log1p: return {"Log1PBackward0", Saved::Input, [](T g, T x) { return g / (x + 1); }};
    case UnaryOp::Sqrt: return {"SqrtBackward0", Saved::Output, [](T g, T y) { return g / (y * 2); }};
    case UnaryOp::Rsqrt: return {"RsqrtBackward0", Saved::Output, [](T g, T y) { return g * y.pow(3) * -0.5; }};
    case UnaryOp::Sin: return {"SinBackward0", Saved::Input, [](T g, T x) { return g * x.cos(); }};
    case UnaryOp::Cos: return {"CosBackward0", Saved::Input, [](T g, T x) { return -(g * x.sin()); }};
    case UnaryOp::Tan: return {"TanBackward0", Saved::Output, [](T g, T y) { return g * (y * y + 1); }};
    case UnaryOp::Asin: return {"AsinBackward0", Saved::Input, [](T g, T x) { return g * (1 - x * x).rsqrt(); }};
    case UnaryOp::Acos: return {"AcosBackward0", Saved::Input, [](T g, T x) { return -(g * (1 - x * x).rsqrt()); }};
    case UnaryOp::Atan: return {"AtanBackward0", Saved::Input, [](T g, T x) { return g / (x * x + 1); }};
    case UnaryOp::Sinh: return {"SinhBackward0", Saved::Input, [](T g, T x) { return g * x.cosh(); }};
    case UnaryOp::Cosh: return {"CoshBackward0", Saved::Input, [](T g, T x) { return g * x.sinh(); }};
    case UnaryOp::Tanh: return {"TanhBackward0", Saved::Output, tanh_grad};
    case UnaryOp::Sigmoid: return {"SigmoidBackward0", Saved::Output, sigmoid_grad};
    // Zero where the output is not positive, x = 0 included.
    case UnaryOp::Relu: return {"ReluBackward0", Saved::Output, relu_grad};
    case UnaryOp::Gelu: return {"GeluBackward0", Saved::Input, gelu_grad};
    case UnaryOp::GeluTanh: return {"GeluBackward0", Saved::Input, gelu_tanh_grad};
    // silu = x s(x): s + x s (1 - s).
    case UnaryOp::Silu:
      return {"SiluBackward0", Saved::Input, [](T g, T x) {
                const Tensor s = x.sigmoid();
                return g * s * (x * (1 - s) + 1);
              }};
    // d/dx erf(x) = 2 / sqrt(pi) exp(-x^2).
    case UnaryOp::Erf:
      return {"ErfBackward0", Saved::Input,
              [](T g, T x) { return g * (x * x).neg().exp() * (2 * std::numbers::inv_sqrtpi); }};
    case UnaryOp::Erfc:
      return {"ErfcBackward0", Saved::Input,
              [](T g, T x) { return g * (x * x).neg().exp() * (-2 * std::numbers::inv_sqrtpi); }};
    case UnaryOp::Floor: return {"FloorBackward0", Saved::Nothing, zero_grad};
    case UnaryOp::Ceil: return {"CeilBackward0", Saved::Nothing, zero_grad};
    case UnaryOp::Round: return {"RoundBackward0", Saved::Nothing, zero_grad};
    case UnaryOp::Trunc: return {"TruncBackward0", Saved::Nothing, zero_grad};
    case UnaryOp::Frac: return {"FracBackward0", Saved::Nothing, [](T g, T) { return g; }};
    // Replaced values (NaN and infinities) get no gradient.
    case UnaryOp::NanToNum: return {"NanToNumBackward0", Saved::Input, [](T g, T x) { return g * x.isfinite(); }};
    default: return {};
  }
}

// A unary kernel, recorded with its formula when autograd needs it.
Tensor recorded_unary(UnaryOp op, UnaryKind kind, const Tensor& x, Scalar p0 = 0, Scalar p1 = 0, Scalar p2 = 0) {
  const UnaryGrad grad = unary_grad(op);
  if (!grad.name) return run_unary(op, kind, x, nullptr, p0, p1, p2);
  Record rec(grad.name, {&x});
  Tensor out = run_unary(op, kind, x, nullptr, p0, p1, p2);
  if (!rec) return out;
  if (grad.saved == Saved::Input) rec.save(x);
  if (grad.saved == Saved::Output) rec.save_output(out);
  return rec.finish(out, [grad](FunctionNode& node, const tensor_list& g) {
    return tensor_list{grad.formula(g[0], grad.saved == Saved::Nothing ? Tensor() : node.saved(0))};
  });
}

}  // namespace

// ---- arithmetic ----
Tensor Tensor::add(const Tensor& o, Scalar alpha) const {
  Record rec("AddBackward0", {this, &o});
  Tensor out = binary(BinaryOp::Add, Kind::Arithmetic, *this, o, alpha);
  if (!rec) return out;
  return rec.finish(out, [alpha](FunctionNode& node, const tensor_list& g) {
    return tensor_list{g[0], node.needs_input_grad(1) ? scaled(g[0], alpha) : Tensor()};
  });
}
Tensor Tensor::add(Scalar o, Scalar alpha) const {
  Record rec("AddBackward1", {this});
  Tensor out = binary(BinaryOp::Add, Kind::Arithmetic, *this, o, alpha);
  return rec ? rec.finish(out, pass_through) : out;
}
Tensor Tensor::sub(const Tensor& o, Scalar alpha) const {
  Record rec("SubBackward0", {this, &o});
  Tensor out = binary(BinaryOp::Sub, Kind::Arithmetic, *this, o, alpha);
  if (!rec) return out;
  return rec.finish(out, [alpha](FunctionNode& node, const tensor_list& g) {
    return tensor_list{g[0], node.needs_input_grad(1) ? scaled(g[0], negated(alpha)) : Tensor()};
  });
}
Tensor Tensor::sub(Scalar o, Scalar alpha) const {
  Record rec("SubBackward1", {this});
  Tensor out = binary(BinaryOp::Sub, Kind::Arithmetic, *this, o, alpha);
  return rec ? rec.finish(out, pass_through) : out;
}
Tensor Tensor::mul(const Tensor& o) const {
  Record rec("MulBackward0", {this, &o});
  Tensor out = binary(BinaryOp::Mul, Kind::Arithmetic, *this, o);
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
  Tensor out = binary(BinaryOp::Mul, Kind::Arithmetic, *this, o);
  if (!rec) return out;
  return rec.finish(out, [o](FunctionNode&, const tensor_list& g) { return tensor_list{scaled(g[0], o)}; });
}
Tensor Tensor::div(const Tensor& o) const {
  Record rec("DivBackward0", {this, &o});
  Tensor out = binary(BinaryOp::Div, Kind::TrueDivision, *this, o);
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
  Tensor out = binary(BinaryOp::Div, Kind::TrueDivision, *this, o);
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
  Tensor out = binary(op, Kind::Arithmetic, *this, o);
  if (!rec) return out;
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    return tensor_list{node.needs_input_grad(0) ? zeros_like(g[0]) : Tensor(),
                       node.needs_input_grad(1) ? zeros_like(g[0]) : Tensor()};
  });
}

namespace {
// PyTorch records floor_divide but has no derivative for it: backward fails with its message.
tensor_list floor_divide_backward(FunctionNode&, const tensor_list&) {
  throw Error("derivative for aten::floor_divide is not implemented");
}
}  // namespace

Tensor Tensor::floor_divide(const Tensor& o) const {
  Record rec("torch::autograd::NotImplemented", {this, &o});
  Tensor out = binary(BinaryOp::DivFloor, Kind::Arithmetic, *this, o);
  return rec ? rec.finish(out, floor_divide_backward) : out;
}
Tensor Tensor::floor_divide(Scalar o) const {
  Record rec("torch::autograd::NotImplemented", {this});
  Tensor out = binary(BinaryOp::DivFloor, Kind::Arithmetic, *this, o);
  return rec ? rec.finish(out, floor_divide_backward) : out;
}

namespace {

// remainder(a, b) = a - floor(a / b) b and fmod(a, b) = a - trunc(a / b) b: the rounded quotient is
// locally constant, so a's gradient is g and b's is -g times that quotient.
Tensor rounded_remainder(BinaryOp op, const char* name, const Tensor& a, const Tensor& b) {
  Record rec(name, {&a, &b});
  Tensor out = binary(op, Kind::Arithmetic, a, b);
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
  Tensor out = binary(op, Kind::Arithmetic, a, b);
  return rec ? rec.finish(out, pass_through) : out;
}

}  // namespace

Tensor Tensor::remainder(const Tensor& o) const {
  return rounded_remainder(BinaryOp::Remainder, "RemainderBackward1", *this, o);
}
Tensor Tensor::remainder(Scalar o) const { return rounded_remainder(BinaryOp::Remainder, "RemainderBackward0", *this, o); }
Tensor Tensor::fmod(const Tensor& o) const { return rounded_remainder(BinaryOp::Fmod, "FmodBackward1", *this, o); }
Tensor Tensor::fmod(Scalar o) const { return rounded_remainder(BinaryOp::Fmod, "FmodBackward0", *this, o); }

// Powers. d/dx x^e = e x^(e-1), taken as 0 where e = 0 (x^0 is constant even at x = 0); d/de x^e =
// x^e log x, taken as 0 where x = 0 and e >= 0 (the one-sided limit PyTorch uses).
Tensor Tensor::pow(const Tensor& e) const {
  Record rec("PowBackward1", {this, &e});
  Tensor out = binary(BinaryOp::Pow, Kind::Arithmetic, *this, e);
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
  Record rec("PowBackward0", {this});
  Tensor out = binary(BinaryOp::Pow, Kind::Arithmetic, *this, e);
  if (!rec) return out;
  rec.save(*this);
  return rec.finish(out, [e](FunctionNode& node, const tensor_list& g) {
    if (e.to_double() == 0.0) return tensor_list{zeros_like(g[0])};
    const Scalar e_minus_1 = e.is_floating_point() ? Scalar(e.to_double() - 1) : Scalar(e.to_int64() - 1);
    return tensor_list{g[0] * node.saved(0).pow(e_minus_1) * e};
  });
}
Tensor pow(Scalar base, const Tensor& e) {
  Record rec("PowBackward2", {&e});
  Tensor out = binary(BinaryOp::Pow, Kind::Arithmetic, base, e);
  if (!rec) return out;
  const bool zero_base = base.to_double() == 0.0;
  rec.save_output(out);
  rec.save(if_needed(zero_base, e));
  return rec.finish(out, [base, zero_base](FunctionNode& node, const tensor_list& g) {
    const Tensor ge = g[0] * node.saved(0) * std::log(base.to_double());
    return tensor_list{zero_base ? ge.masked_fill(node.saved(1) >= 0, 0) : ge};
  });
}

// The larger (smaller) input gets the gradient; ties split it evenly, as PyTorch does. An input gets
// the gradient unless it lost, so a NaN (which compares false) passes it to both.
Tensor Tensor::maximum(const Tensor& o) const {
  Record rec("MaximumBackward0", {this, &o});
  Tensor out = binary(BinaryOp::Maximum, Kind::Arithmetic, *this, o);
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
  Tensor out = binary(BinaryOp::Minimum, Kind::Arithmetic, *this, o);
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
  Tensor out = binary(BinaryOp::Atan2, Kind::TrueDivision, *this, o);
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

// In place: when autograd must record the write, the op runs out of place and its result is written
// back (record_inplace); otherwise the in-place kernel runs.
// add_ and sub_, which take alpha.
#define EMBER_ALPHA_INPLACE(name, OP)                                                                    \
  Tensor& Tensor::name##_(const Tensor& o, Scalar alpha) {                                               \
    if (autograd::inplace_needs_record(*this, {&o})) {                                                   \
      return record_inplace(*this, [&](const Tensor& old) { return old.name(o, alpha); });               \
    }                                                                                                    \
    return binary_(BinaryOp::OP, Kind::Arithmetic, *this, o, alpha);                                     \
  }                                                                                                      \
  Tensor& Tensor::name##_(Scalar o, Scalar alpha) {                                                      \
    if (autograd::inplace_needs_record(*this, {})) {                                                     \
      return record_inplace(*this, [&](const Tensor& old) { return old.name(o, alpha); });               \
    }                                                                                                    \
    return binary_(BinaryOp::OP, Kind::Arithmetic, *this, o, alpha);                                     \
  }
EMBER_ALPHA_INPLACE(add, Add)
EMBER_ALPHA_INPLACE(sub, Sub)
#undef EMBER_ALPHA_INPLACE

// The in-place forms of the binary ops without alpha.
#define EMBER_BINARY_INPLACE(name, OP, KIND)                                                             \
  Tensor& Tensor::name##_(const Tensor& o) {                                                             \
    if (autograd::inplace_needs_record(*this, {&o})) {                                                   \
      return record_inplace(*this, [&](const Tensor& old) { return old.name(o); });                      \
    }                                                                                                    \
    return binary_(BinaryOp::OP, Kind::KIND, *this, o);                                                  \
  }                                                                                                      \
  Tensor& Tensor::name##_(Scalar o) {                                                                    \
    if (autograd::inplace_needs_record(*this, {})) {                                                     \
      return record_inplace(*this, [&](const Tensor& old) { return old.name(o); });                      \
    }                                                                                                    \
    return binary_(BinaryOp::OP, Kind::KIND, *this, o);                                                  \
  }
EMBER_BINARY_INPLACE(mul, Mul, Arithmetic)
EMBER_BINARY_INPLACE(div, Div, TrueDivision)
EMBER_BINARY_INPLACE(floor_divide, DivFloor, Arithmetic)
EMBER_BINARY_INPLACE(remainder, Remainder, Arithmetic)
EMBER_BINARY_INPLACE(pow, Pow, Arithmetic)
#undef EMBER_BINARY_INPLACE

// ---- comparisons and logic ----
#define EMBER_COMPARISON(name, OP)                                                                      \
  Tensor Tensor::name(const Tensor& o) const { return binary(BinaryOp::OP, Kind::Comparison, *this, o); } \
  Tensor Tensor::name(Scalar o) const { return binary(BinaryOp::OP, Kind::Comparison, *this, o); }
EMBER_COMPARISON(eq, Eq)
EMBER_COMPARISON(ne, Ne)
EMBER_COMPARISON(lt, Lt)
EMBER_COMPARISON(le, Le)
EMBER_COMPARISON(gt, Gt)
EMBER_COMPARISON(ge, Ge)
#undef EMBER_COMPARISON

Tensor Tensor::logical_and(const Tensor& o) const { return binary(BinaryOp::LogicalAnd, Kind::Logical, *this, o); }
Tensor Tensor::logical_or(const Tensor& o) const { return binary(BinaryOp::LogicalOr, Kind::Logical, *this, o); }
Tensor Tensor::logical_xor(const Tensor& o) const { return binary(BinaryOp::LogicalXor, Kind::Logical, *this, o); }
Tensor Tensor::logical_not() const { return unary(UnaryOp::LogicalNot, UnaryKind::ToBool, *this); }
Tensor Tensor::bitwise_and(const Tensor& o) const { return binary(BinaryOp::BitwiseAnd, Kind::Bitwise, *this, o); }
Tensor Tensor::bitwise_or(const Tensor& o) const { return binary(BinaryOp::BitwiseOr, Kind::Bitwise, *this, o); }
Tensor Tensor::bitwise_xor(const Tensor& o) const { return binary(BinaryOp::BitwiseXor, Kind::Bitwise, *this, o); }
Tensor Tensor::bitwise_not() const {
  if (dtype() == DType::Bool) return logical_not();
  if (is_floating_point()) {
    throw Error("\"bitwise_not_cpu\" not implemented for '" + type_name(dtype()) + "'");
  }
  return unary(UnaryOp::BitwiseNot, UnaryKind::SameType, *this);
}


// ---- unary ----
// Each records itself with its formula from unary_grad().
Tensor Tensor::neg() const {
  if (dtype() == DType::Bool) {
    throw Error("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a "
                "mask, use the `~` or `logical_not()` operator instead.");
  }
  return recorded_unary(UnaryOp::Neg, UnaryKind::SameType, *this);
}
Tensor Tensor::abs() const { return recorded_unary(UnaryOp::Abs, UnaryKind::SameType, *this); }
Tensor Tensor::sign() const { return recorded_unary(UnaryOp::Sign, UnaryKind::SameType, *this); }
Tensor Tensor::relu() const { return recorded_unary(UnaryOp::Relu, UnaryKind::SameType, *this); }

// x * x, recorded as PyTorch's square (which is pow(x, 2)).
Tensor Tensor::square() const {
  Record rec("PowBackward0", {this});
  Tensor out = binary(BinaryOp::Mul, Kind::Arithmetic, *this, *this);
  if (!rec) return out;
  rec.save(*this);
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    return tensor_list{g[0] * (node.saved(0) * 2)};
  });
}

#define EMBER_FLOAT_UNARY(name, OP) \
  Tensor Tensor::name() const { return recorded_unary(UnaryOp::OP, UnaryKind::Floating, *this); }
EMBER_FLOAT_UNARY(reciprocal, Reciprocal)
EMBER_FLOAT_UNARY(exp, Exp)
EMBER_FLOAT_UNARY(exp2, Exp2)
EMBER_FLOAT_UNARY(log, Log)
EMBER_FLOAT_UNARY(log2, Log2)
EMBER_FLOAT_UNARY(log10, Log10)
EMBER_FLOAT_UNARY(log1p, Log1p)
EMBER_FLOAT_UNARY(expm1, Expm1)
EMBER_FLOAT_UNARY(sqrt, Sqrt)
EMBER_FLOAT_UNARY(rsqrt, Rsqrt)
EMBER_FLOAT_UNARY(sin, Sin)
EMBER_FLOAT_UNARY(cos, Cos)
EMBER_FLOAT_UNARY(tan, Tan)
EMBER_FLOAT_UNARY(asin, Asin)
EMBER_FLOAT_UNARY(acos, Acos)
EMBER_FLOAT_UNARY(atan, Atan)
EMBER_FLOAT_UNARY(sinh, Sinh)
EMBER_FLOAT_UNARY(cosh, Cosh)
EMBER_FLOAT_UNARY(tanh, Tanh)
EMBER_FLOAT_UNARY(sigmoid, Sigmoid)
EMBER_FLOAT_UNARY(silu, Silu)
EMBER_FLOAT_UNARY(erf, Erf)
EMBER_FLOAT_UNARY(erfc, Erfc)
#undef EMBER_FLOAT_UNARY

Tensor Tensor::gelu(std::string_view approximate) const {
  if (approximate == "none") return recorded_unary(UnaryOp::Gelu, UnaryKind::FloatOnlySame, *this);
  if (approximate == "tanh") return recorded_unary(UnaryOp::GeluTanh, UnaryKind::FloatOnlySame, *this);
  throw Error("approximate argument must be either none or tanh.");
}

#define EMBER_ROUNDING(name, OP)                                                         \
  Tensor Tensor::name() const {                                                          \
    if (!is_floating_point()) return clone();                                            \
    return recorded_unary(UnaryOp::OP, UnaryKind::SameType, *this);                      \
  }
EMBER_ROUNDING(floor, Floor)
EMBER_ROUNDING(ceil, Ceil)
EMBER_ROUNDING(round, Round)
EMBER_ROUNDING(trunc, Trunc)
#undef EMBER_ROUNDING
Tensor Tensor::frac() const { return recorded_unary(UnaryOp::Frac, UnaryKind::FloatOnlySame, *this); }

Tensor Tensor::isnan() const { return unary(UnaryOp::IsNan, UnaryKind::ToBool, *this); }
Tensor Tensor::isinf() const { return unary(UnaryOp::IsInf, UnaryKind::ToBool, *this); }
Tensor Tensor::isposinf() const { return unary(UnaryOp::IsPosInf, UnaryKind::ToBool, *this); }
Tensor Tensor::isneginf() const { return unary(UnaryOp::IsNegInf, UnaryKind::ToBool, *this); }
Tensor Tensor::isfinite() const { return unary(UnaryOp::IsFinite, UnaryKind::ToBool, *this); }

Tensor Tensor::nan_to_num(std::optional<double> nan, std::optional<double> posinf,
                          std::optional<double> neginf) const {
  if (!is_floating_point()) return clone();
  double largest = std::numeric_limits<float>::max();
  if (dtype() == DType::Float64) largest = std::numeric_limits<double>::max();
  if (dtype() == DType::Float16) largest = 65504.0;
  if (dtype() == DType::BFloat16) largest = 3.3895313892515355e38;
  return recorded_unary(UnaryOp::NanToNum, UnaryKind::SameType, *this, nan.value_or(0.0), posinf.value_or(largest),
                        neginf.value_or(-largest));
}

// ---- clamp ----
// The gradient flows to x where clamp passes it through, the bounds included (PyTorch's rule).
namespace {
Tensor passes_through(const Tensor& x, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  if (min && max) return (x >= *min).logical_and(x <= *max);
  return min ? x >= *min : x <= *max;
}
}  // namespace

Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  if (!min && !max) throw Error("torch.clamp: At least one of 'min' or 'max' must not be None");
  Record rec("ClampBackward1", {this});
  DType result = dtype();
  if (min) result = result_type(*this, *min);
  if (max) result = promote_types(result, result_type(*this, *max));
  const Tensor x = result == dtype() ? *this : to(result);
  Tensor out;
  if (min && max) out = run_unary(UnaryOp::Clamp, UnaryKind::SameType, x, nullptr, *min, *max);
  else if (min) out = run_unary(UnaryOp::ClampMin, UnaryKind::SameType, x, nullptr, *min);
  else out = run_unary(UnaryOp::ClampMax, UnaryKind::SameType, x, nullptr, *max);
  if (!rec) return out;
  rec.save(*this);
  return rec.finish(out, [min, max](FunctionNode& node, const tensor_list& g) {
    return tensor_list{ember::where(passes_through(node.saved(0), min, max), g[0], 0)};
  });
}

Tensor Tensor::clamp_min(Scalar min) const {
  Record rec("ClampMinBackward0", {this});
  Tensor out = clamp(min, std::nullopt);
  if (!rec) return out;
  rec.save(*this);
  return rec.finish(out, [min](FunctionNode& node, const tensor_list& g) {
    return tensor_list{ember::where(node.saved(0) >= min, g[0], 0)};
  });
}

Tensor Tensor::clamp_max(Scalar max) const {
  Record rec("ClampMaxBackward0", {this});
  Tensor out = clamp(std::nullopt, max);
  if (!rec) return out;
  rec.save(*this);
  return rec.finish(out, [max](FunctionNode& node, const tensor_list& g) {
    return tensor_list{ember::where(node.saved(0) <= max, g[0], 0)};
  });
}

Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) {
  if (!min && !max) throw Error("torch.clamp: At least one of 'min' or 'max' must not be None");
  if (autograd::inplace_needs_record(*this, {})) {
    return record_inplace(*this, [&](const Tensor& old) { return old.clamp(min, max); });
  }
  if (min && max) run_unary(UnaryOp::Clamp, UnaryKind::SameType, *this, this, *min, *max);
  else if (min) run_unary(UnaryOp::ClampMin, UnaryKind::SameType, *this, this, *min);
  else run_unary(UnaryOp::ClampMax, UnaryKind::SameType, *this, this, *max);
  return *this;
}

// With tensor bounds the result is min(max(x, lo), hi). x gets the gradient where lo <= x <= hi; lo
// where x < lo and lo < hi; hi where x > hi, or everywhere hi < lo (there the result is hi). With lo ==
// hi and x outside, nobody gets it, as in PyTorch.
Tensor Tensor::clamp(const std::optional<Tensor>& min, const std::optional<Tensor>& max) const {
  if (!min && !max) throw Error("torch.clamp: At least one of 'min' or 'max' must not be None");
  const Tensor* lo = min ? &*min : nullptr;
  const Tensor* hi = max ? &*max : nullptr;
  Record rec("ClampBackward0", {this, lo, hi});
  Tensor out;
  if (!hi) {
    out = maximum(*lo);
  } else if (!lo) {
    out = minimum(*hi);
  } else {
    const DType result = promote_all({result_type(*this, *lo), result_type(*this, *hi)});
    out = run_ternary(TernaryOp::Clamp, *this, {lo, {}}, {hi, {}}, result, result, 1, nullptr);
  }
  if (!rec) return out;
  rec.save(*this);
  rec.save(lo ? *lo : Tensor());
  rec.save(hi ? *hi : Tensor());
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    const Tensor x = node.saved(0), lo = node.saved(1), hi = node.saved(2);
    tensor_list grads(3);
    if (node.needs_input_grad(0)) {
      const Tensor inside = !hi.defined()   ? x >= lo
                            : !lo.defined() ? x <= hi
                                            : (x >= lo).logical_and(x <= hi);
      grads[0] = ember::where(inside, g[0], 0);
    }
    if (node.needs_input_grad(1)) {
      grads[1] = ember::where(hi.defined() ? (x < lo).logical_and(lo < hi) : x < lo, g[0], 0);
    }
    if (node.needs_input_grad(2)) {
      grads[2] = ember::where(lo.defined() ? (x > hi).logical_or(hi < lo) : x > hi, g[0], 0);
    }
    return grads;
  });
}

#define EMBER_UNARY_INPLACE(name, OP, KIND)                                                              \
  Tensor& Tensor::name##_() {                                                                            \
    if (autograd::inplace_needs_record(*this, {})) {                                                     \
      return record_inplace(*this, [](const Tensor& old) { return old.name(); });                        \
    }                                                                                                    \
    return unary_(UnaryOp::OP, UnaryKind::KIND, *this);                                                  \
  }
EMBER_UNARY_INPLACE(neg, Neg, SameType)
EMBER_UNARY_INPLACE(abs, Abs, SameType)
EMBER_UNARY_INPLACE(exp, Exp, Floating)
EMBER_UNARY_INPLACE(log, Log, Floating)
EMBER_UNARY_INPLACE(sqrt, Sqrt, Floating)
EMBER_UNARY_INPLACE(tanh, Tanh, Floating)
EMBER_UNARY_INPLACE(sigmoid, Sigmoid, Floating)
EMBER_UNARY_INPLACE(relu, Relu, SameType)
#undef EMBER_UNARY_INPLACE

// ---- ternary ----
// lerp(a, e, w) = a + w (e - a).
Tensor Tensor::lerp(const Tensor& end, Scalar weight) const {
  if (end.dtype() != dtype()) {
    throw Error("expected dtype " + std::string(dtype_name(dtype())) + " for `end` but got dtype " +
                std::string(dtype_name(end.dtype())));
  }
  Record rec("LerpBackward0", {this, &end});
  Tensor out = run_ternary(TernaryOp::Lerp, *this, {&end, {}}, {nullptr, weight}, dtype(), dtype(), 1, nullptr);
  if (!rec) return out;
  return rec.finish(out, [w = weight.to_double()](FunctionNode& node, const tensor_list& g) {
    return tensor_list{node.needs_input_grad(0) ? g[0] * (1 - w) : Tensor(),
                       node.needs_input_grad(1) ? g[0] * w : Tensor()};
  });
}

Tensor Tensor::lerp(const Tensor& end, const Tensor& weight) const {
  if (end.dtype() != dtype() || weight.dtype() != dtype()) {
    const Tensor& bad = end.dtype() != dtype() ? end : weight;
    throw Error("expected dtype " + std::string(dtype_name(dtype())) + " for `" +
                (end.dtype() != dtype() ? "end" : "weight") + "` but got dtype " +
                std::string(dtype_name(bad.dtype())));
  }
  Record rec("LerpBackward1", {this, &end, &weight});
  Tensor out = run_ternary(TernaryOp::Lerp, *this, {&end, {}}, {&weight, {}}, dtype(), dtype(), 1, nullptr);
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
  const DType result = promote_all({self.dtype(), t1.dtype(), t2.dtype()});
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
  Tensor out = run_ternary(TernaryOp::Addcmul, *this, {&t1, {}}, {&t2, {}}, result, result, value, nullptr);
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
  Tensor out = run_ternary(TernaryOp::Addcdiv, *this, {&t1, {}}, {&t2, {}}, result, result, value, nullptr);
  if (!rec) return out;
  rec.save(if_needed(wants_grad(t2), t1));
  rec.save(if_needed(wants_grad(t1) || wants_grad(t2), t2));
  return rec.finish(out, [value](FunctionNode& node, const tensor_list& g) {
    const Tensor t2 = node.saved(1);
    return tensor_list{g[0], node.needs_input_grad(1) ? scaled(g[0] / t2, value) : Tensor(),
                       node.needs_input_grad(2) ? scaled(g[0] * node.saved(0) / (t2 * t2), negated(value)) : Tensor()};
  });
}
Tensor& Tensor::addcmul_(const Tensor& t1, const Tensor& t2, Scalar value) {
  if (autograd::inplace_needs_record(*this, {&t1, &t2})) {
    return record_inplace(*this, [&](const Tensor& old) { return old.addcmul(t1, t2, value); });
  }
  const DType result = addc_dtype(*this, t1, t2, false);
  run_ternary(TernaryOp::Addcmul, *this, {&t1, {}}, {&t2, {}}, result, result, value, this);
  return *this;
}
Tensor& Tensor::addcdiv_(const Tensor& t1, const Tensor& t2, Scalar value) {
  if (autograd::inplace_needs_record(*this, {&t1, &t2})) {
    return record_inplace(*this, [&](const Tensor& old) { return old.addcdiv(t1, t2, value); });
  }
  const DType result = addc_dtype(*this, t1, t2, true);
  run_ternary(TernaryOp::Addcdiv, *this, {&t1, {}}, {&t2, {}}, result, result, value, this);
  return *this;
}

Tensor Tensor::where(const Tensor& condition, const Tensor& other) const {
  return ember::where(condition, *this, other);
}

// ember::where(c, a, b): a's gradient where c holds, b's elsewhere. `a`/`b` null are scalars.
namespace {
Tensor recorded_where(const Tensor& condition, const Tensor* a, const Tensor* b, const std::function<Tensor()>& run) {
  Record rec("WhereBackward0", {a, b});
  Tensor out = run();
  if (!rec) return out;
  rec.save(condition);
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    const Tensor c = node.saved(0);
    return tensor_list{node.needs_input_grad(0) ? ember::where(c, g[0], 0) : Tensor(),
                       node.needs_input_grad(1) ? ember::where(c, 0, g[0]) : Tensor()};
  });
}
}  // namespace

Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) {
  check_condition(condition);
  return recorded_where(condition, &a, &b, [&] {
    const DType result = result_type(a, b);
    return run_ternary(TernaryOp::Where, condition, {&a, {}}, {&b, {}}, result, result, 1, nullptr);
  });
}
Tensor where(const Tensor& condition, Scalar a, const Tensor& b) {
  check_condition(condition);
  return recorded_where(condition, nullptr, &b, [&] {
    const DType result = result_type(b, a);
    return run_ternary(TernaryOp::Where, condition, {nullptr, a}, {&b, {}}, result, result, 1, nullptr);
  });
}
Tensor where(const Tensor& condition, const Tensor& a, Scalar b) {
  check_condition(condition);
  return recorded_where(condition, &a, nullptr, [&] {
    const DType result = result_type(a, b);
    return run_ternary(TernaryOp::Where, condition, {&a, {}}, {nullptr, b}, result, result, 1, nullptr);
  });
}
Tensor where(const Tensor& condition, Scalar a, Scalar b) {
  check_condition(condition);
  DType result = promote_types(a.is_floating_point() ? get_default_dtype() : a.is_bool() ? DType::Bool : DType::Int64,
                               b.is_floating_point() ? get_default_dtype() : b.is_bool() ? DType::Bool : DType::Int64);
  Tensor filled = full(condition.sizes(), b, TensorOptions().dtype(result).device(condition.device()));
  return run_ternary(TernaryOp::Where, condition, {nullptr, a}, {&filled, {}}, result, result, 1, nullptr);
}

namespace {
void check_mask(const Tensor& mask) {
  if (mask.dtype() != DType::Bool) {
    throw Error("masked_fill_ only supports boolean masks, but got mask with dtype " +
                std::string(dtype_name(mask.dtype())));
  }
}

void check_fill_value(const Tensor& value) {
  if (value.dim() != 0) {
    throw Error("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with " +
                std::to_string(value.dim()) + " dimension(s).");
  }
}
}  // namespace

// The out-of-place forms are one ember::where() launch into a new tensor of the broadcast shape, as PyTorch's
// expand-then-fill gives, rather than a clone followed by the in-place fill. Filled positions pass no
// gradient to self; a tensor value gets the sum of theirs.
Tensor Tensor::masked_fill(const Tensor& mask, Scalar value) const {
  check_mask(mask);
  Record rec("MaskedFillBackward0", {this});
  Tensor out = run_ternary(TernaryOp::Where, mask, {nullptr, value}, {this, {}}, dtype(), dtype(), 1, nullptr);
  if (!rec) return out;
  rec.save(mask);
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    return tensor_list{g[0].masked_fill(node.saved(0), 0)};
  });
}

Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const {
  check_fill_value(value);
  check_mask(mask);
  Record rec("MaskedFillBackward1", {this, &value});
  Tensor out = run_ternary(TernaryOp::Where, mask, {&value, {}}, {this, {}}, dtype(), dtype(), 1, nullptr);
  if (!rec) return out;
  rec.save(mask);
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    const Tensor m = node.saved(0);
    return tensor_list{node.needs_input_grad(0) ? g[0].masked_fill(m, 0) : Tensor(),
                       node.needs_input_grad(1) ? ember::where(m, g[0], 0).sum() : Tensor()};
  });
}

Tensor& Tensor::masked_fill_(const Tensor& mask, Scalar value) {
  check_mask(mask);
  if (autograd::inplace_needs_record(*this, {})) {
    return record_inplace(*this, [&](const Tensor& old) { return old.masked_fill(mask, value); });
  }
  run_ternary(TernaryOp::Where, mask, {nullptr, value}, {this, {}}, dtype(), dtype(), 1, this);
  return *this;
}

Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) {
  check_fill_value(value);
  check_mask(mask);
  if (autograd::inplace_needs_record(*this, {&value})) {
    return record_inplace(*this, [&](const Tensor& old) { return old.masked_fill(mask, value); });
  }
  run_ternary(TernaryOp::Where, mask, {&value, {}}, {this, {}}, dtype(), dtype(), 1, this);
  return *this;
}

// ---- functional forms and operators ----
Tensor add(const Tensor& a, const Tensor& b, Scalar alpha) { return a.add(b, alpha); }
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha) { return a.sub(b, alpha); }
Tensor mul(const Tensor& a, const Tensor& b) { return a.mul(b); }
Tensor div(const Tensor& a, const Tensor& b) { return a.div(b); }
Tensor pow(const Tensor& a, const Tensor& b) { return a.pow(b); }
Tensor pow(const Tensor& a, Scalar b) { return a.pow(b); }
Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max) { return x.clamp(min, max); }
Tensor maximum(const Tensor& a, const Tensor& b) { return a.maximum(b); }
Tensor minimum(const Tensor& a, const Tensor& b) { return a.minimum(b); }
Tensor lerp(const Tensor& s, const Tensor& e, const Tensor& w) { return s.lerp(e, w); }
Tensor lerp(const Tensor& s, const Tensor& e, Scalar w) { return s.lerp(e, w); }
Tensor addcmul(const Tensor& x, const Tensor& a, const Tensor& b, Scalar v) { return x.addcmul(a, b, v); }
Tensor addcdiv(const Tensor& x, const Tensor& a, const Tensor& b, Scalar v) { return x.addcdiv(a, b, v); }
Tensor abs(const Tensor& x) { return x.abs(); }
Tensor neg(const Tensor& x) { return x.neg(); }
Tensor exp(const Tensor& x) { return x.exp(); }
Tensor log(const Tensor& x) { return x.log(); }
Tensor sqrt(const Tensor& x) { return x.sqrt(); }
Tensor sin(const Tensor& x) { return x.sin(); }
Tensor cos(const Tensor& x) { return x.cos(); }
Tensor tanh(const Tensor& x) { return x.tanh(); }
Tensor sigmoid(const Tensor& x) { return x.sigmoid(); }
Tensor relu(const Tensor& x) { return x.relu(); }
Tensor isnan(const Tensor& x) { return x.isnan(); }
Tensor isinf(const Tensor& x) { return x.isinf(); }

Tensor operator+(const Tensor& a, const Tensor& b) { return a.add(b); }
Tensor operator+(const Tensor& a, Scalar b) { return a.add(b); }
Tensor operator+(Scalar a, const Tensor& b) { return b.add(a); }
Tensor operator-(const Tensor& a, const Tensor& b) { return a.sub(b); }
Tensor operator-(const Tensor& a, Scalar b) { return a.sub(b); }
// LibTorch computes s - b as full(s) - b, so the node is SubBackward0.
Tensor operator-(Scalar a, const Tensor& b) {
  Record rec("SubBackward0", {&b});
  Tensor out = binary(BinaryOp::Sub, Kind::Arithmetic, a, b);
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
  Tensor out = binary(BinaryOp::Div, Kind::TrueDivision, a, b);
  if (!rec) return out;
  rec.save(b);
  rec.save_output(out);
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    return tensor_list{-(g[0] * node.saved(1) / node.saved(0))};
  });
}
Tensor operator%(const Tensor& a, const Tensor& b) { return a.remainder(b); }
Tensor operator%(const Tensor& a, Scalar b) { return a.remainder(b); }
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

}  // namespace ember
