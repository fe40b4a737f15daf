// Elementwise ops: the result dtype (PyTorch's promotion), broadcasting, in-place checks, and the
// unary, binary or ternary kernel each becomes. Inputs keep their strides; broadcast dims read with
// stride 0.
#include <cmath>
#include <limits>

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
    if (!can_cast(result_dtype(kind, common), out->dtype())) {
      throw Error("result type " + type_name(result_dtype(kind, common)) +
                  " can't be cast to the desired output type " + type_name(out->dtype()));
    }
    const std::vector<int64_t> full = broadcast_shapes(out->sizes(), shape);
    if (!(IntArrayRef(full) == out->sizes())) {
      throw Error("output with shape " + to_string(out->sizes()) + " doesn't match the broadcast shape " +
                  to_string(full));
    }
    detail::check_no_internal_overlap(*out);
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
    if (!can_cast(result, out->dtype())) {
      throw Error("result type " + type_name(result) + " can't be cast to the desired output type " +
                  type_name(out->dtype()));
    }
    detail::check_no_internal_overlap(*out);
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
    if (!can_cast(result, out->dtype())) {
      throw Error("result type " + type_name(result) + " can't be cast to the desired output type " +
                  type_name(out->dtype()));
    }
    const std::vector<int64_t> full = broadcast_shapes(out->sizes(), shape);
    if (!(IntArrayRef(full) == out->sizes())) {
      throw Error("output with shape " + to_string(out->sizes()) + " doesn't match the broadcast shape " +
                  to_string(full));
    }
    detail::check_no_internal_overlap(*out);
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

}  // namespace

// ---- arithmetic ----
Tensor Tensor::add(const Tensor& o, Scalar alpha) const {
  autograd::Record rec("AddBackward0", {this, &o});
  Tensor out = binary(BinaryOp::Add, Kind::Arithmetic, *this, o, alpha);
  if (!rec) return out;
  return rec.finish(out, [alpha](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    const bool unit = alpha.to_double() == 1.0;
    return autograd::tensor_list{g[0], node.needs_input_grad(1) ? (unit ? g[0] : g[0].mul(alpha)) : Tensor()};
  });
}
Tensor Tensor::add(Scalar o, Scalar alpha) const { return binary(BinaryOp::Add, Kind::Arithmetic, *this, o, alpha); }
Tensor Tensor::sub(const Tensor& o, Scalar alpha) const { return binary(BinaryOp::Sub, Kind::Arithmetic, *this, o, alpha); }
Tensor Tensor::sub(Scalar o, Scalar alpha) const { return binary(BinaryOp::Sub, Kind::Arithmetic, *this, o, alpha); }
Tensor Tensor::mul(const Tensor& o) const {
  autograd::Record rec("MulBackward0", {this, &o});
  if (rec) {
    rec.save(*this);
    rec.save(o);
  }
  Tensor out = binary(BinaryOp::Mul, Kind::Arithmetic, *this, o);
  if (!rec) return out;
  return rec.finish(out, [](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    return autograd::tensor_list{node.needs_input_grad(0) ? g[0] * node.saved(1) : Tensor(),
                                 node.needs_input_grad(1) ? g[0] * node.saved(0) : Tensor()};
  });
}
Tensor Tensor::mul(Scalar o) const { return binary(BinaryOp::Mul, Kind::Arithmetic, *this, o); }
Tensor Tensor::div(const Tensor& o) const { return binary(BinaryOp::Div, Kind::TrueDivision, *this, o); }
Tensor Tensor::div(Scalar o) const { return binary(BinaryOp::Div, Kind::TrueDivision, *this, o); }
Tensor Tensor::div(const Tensor& o, std::string_view mode) const {
  if (mode == "trunc") return binary(BinaryOp::DivTrunc, Kind::Arithmetic, *this, o);
  if (mode == "floor") return binary(BinaryOp::DivFloor, Kind::Arithmetic, *this, o);
  throw Error("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '" +
              std::string(mode) + "'");
}
Tensor Tensor::floor_divide(const Tensor& o) const { return binary(BinaryOp::DivFloor, Kind::Arithmetic, *this, o); }
Tensor Tensor::floor_divide(Scalar o) const { return binary(BinaryOp::DivFloor, Kind::Arithmetic, *this, o); }
Tensor Tensor::remainder(const Tensor& o) const { return binary(BinaryOp::Remainder, Kind::Arithmetic, *this, o); }
Tensor Tensor::remainder(Scalar o) const { return binary(BinaryOp::Remainder, Kind::Arithmetic, *this, o); }
Tensor Tensor::fmod(const Tensor& o) const { return binary(BinaryOp::Fmod, Kind::Arithmetic, *this, o); }
Tensor Tensor::fmod(Scalar o) const { return binary(BinaryOp::Fmod, Kind::Arithmetic, *this, o); }
Tensor Tensor::pow(const Tensor& e) const { return binary(BinaryOp::Pow, Kind::Arithmetic, *this, e); }
Tensor Tensor::pow(Scalar e) const { return binary(BinaryOp::Pow, Kind::Arithmetic, *this, e); }
Tensor Tensor::maximum(const Tensor& o) const { return binary(BinaryOp::Maximum, Kind::Arithmetic, *this, o); }
Tensor Tensor::minimum(const Tensor& o) const { return binary(BinaryOp::Minimum, Kind::Arithmetic, *this, o); }
Tensor Tensor::atan2(const Tensor& o) const { return binary(BinaryOp::Atan2, Kind::TrueDivision, *this, o); }

Tensor& Tensor::add_(const Tensor& o, Scalar alpha) { return binary_(BinaryOp::Add, Kind::Arithmetic, *this, o, alpha); }
Tensor& Tensor::add_(Scalar o, Scalar alpha) { return binary_(BinaryOp::Add, Kind::Arithmetic, *this, o, alpha); }
Tensor& Tensor::sub_(const Tensor& o, Scalar alpha) { return binary_(BinaryOp::Sub, Kind::Arithmetic, *this, o, alpha); }
Tensor& Tensor::sub_(Scalar o, Scalar alpha) { return binary_(BinaryOp::Sub, Kind::Arithmetic, *this, o, alpha); }
Tensor& Tensor::mul_(const Tensor& o) { return binary_(BinaryOp::Mul, Kind::Arithmetic, *this, o); }
Tensor& Tensor::mul_(Scalar o) { return binary_(BinaryOp::Mul, Kind::Arithmetic, *this, o); }
Tensor& Tensor::div_(const Tensor& o) { return binary_(BinaryOp::Div, Kind::TrueDivision, *this, o); }
Tensor& Tensor::div_(Scalar o) { return binary_(BinaryOp::Div, Kind::TrueDivision, *this, o); }
Tensor& Tensor::floor_divide_(const Tensor& o) { return binary_(BinaryOp::DivFloor, Kind::Arithmetic, *this, o); }
Tensor& Tensor::floor_divide_(Scalar o) { return binary_(BinaryOp::DivFloor, Kind::Arithmetic, *this, o); }
Tensor& Tensor::remainder_(const Tensor& o) { return binary_(BinaryOp::Remainder, Kind::Arithmetic, *this, o); }
Tensor& Tensor::remainder_(Scalar o) { return binary_(BinaryOp::Remainder, Kind::Arithmetic, *this, o); }
Tensor& Tensor::pow_(const Tensor& e) { return binary_(BinaryOp::Pow, Kind::Arithmetic, *this, e); }
Tensor& Tensor::pow_(Scalar e) { return binary_(BinaryOp::Pow, Kind::Arithmetic, *this, e); }

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
Tensor Tensor::neg() const {
  if (dtype() == DType::Bool) {
    throw Error("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a "
                "mask, use the `~` or `logical_not()` operator instead.");
  }
  return unary(UnaryOp::Neg, UnaryKind::SameType, *this);
}
Tensor Tensor::abs() const { return unary(UnaryOp::Abs, UnaryKind::SameType, *this); }
Tensor Tensor::sign() const { return unary(UnaryOp::Sign, UnaryKind::SameType, *this); }
Tensor Tensor::square() const { return mul(*this); }
Tensor Tensor::relu() const { return unary(UnaryOp::Relu, UnaryKind::SameType, *this); }

Tensor Tensor::exp() const {
  autograd::Record rec("ExpBackward0", {this});
  Tensor out = unary(UnaryOp::Exp, UnaryKind::Floating, *this);
  if (!rec) return out;
  rec.save_output(out);
  return rec.finish(out, [](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    return autograd::tensor_list{g[0] * node.saved(0)};
  });
}

Tensor Tensor::tanh() const {
  autograd::Record rec("TanhBackward0", {this});
  Tensor out = unary(UnaryOp::Tanh, UnaryKind::Floating, *this);
  if (!rec) return out;
  rec.save_output(out);
  return rec.finish(out, [](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    const Tensor y = node.saved(0);
    return autograd::tensor_list{g[0] * (1 - y * y)};
  });
}

#define EMBER_FLOAT_UNARY(name, OP) \
  Tensor Tensor::name() const { return unary(UnaryOp::OP, UnaryKind::Floating, *this); }
EMBER_FLOAT_UNARY(reciprocal, Reciprocal)
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
EMBER_FLOAT_UNARY(sigmoid, Sigmoid)
EMBER_FLOAT_UNARY(silu, Silu)
EMBER_FLOAT_UNARY(erf, Erf)
EMBER_FLOAT_UNARY(erfc, Erfc)
#undef EMBER_FLOAT_UNARY

Tensor Tensor::gelu(std::string_view approximate) const {
  if (approximate == "none") return unary(UnaryOp::Gelu, UnaryKind::FloatOnlySame, *this);
  if (approximate == "tanh") return unary(UnaryOp::GeluTanh, UnaryKind::FloatOnlySame, *this);
  throw Error("approximate argument must be either none or tanh.");
}

#define EMBER_ROUNDING(name, OP)                                                         \
  Tensor Tensor::name() const {                                                          \
    if (!is_floating_point()) return clone();                                            \
    return unary(UnaryOp::OP, UnaryKind::SameType, *this);                               \
  }
EMBER_ROUNDING(floor, Floor)
EMBER_ROUNDING(ceil, Ceil)
EMBER_ROUNDING(round, Round)
EMBER_ROUNDING(trunc, Trunc)
#undef EMBER_ROUNDING
Tensor Tensor::frac() const { return unary(UnaryOp::Frac, UnaryKind::FloatOnlySame, *this); }

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
  return run_unary(UnaryOp::NanToNum, UnaryKind::SameType, *this, nullptr, nan.value_or(0.0),
                   posinf.value_or(largest), neginf.value_or(-largest));
}

Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  if (!min && !max) throw Error("torch.clamp: At least one of 'min' or 'max' must not be None");
  DType result = dtype();
  if (min) result = result_type(*this, *min);
  if (max) result = promote_types(result, result_type(*this, *max));
  const Tensor x = result == dtype() ? *this : to(result);
  if (min && max) return run_unary(UnaryOp::Clamp, UnaryKind::SameType, x, nullptr, *min, *max);
  if (min) return run_unary(UnaryOp::ClampMin, UnaryKind::SameType, x, nullptr, *min);
  return run_unary(UnaryOp::ClampMax, UnaryKind::SameType, x, nullptr, *max);
}

Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) {
  if (!min && !max) throw Error("torch.clamp: At least one of 'min' or 'max' must not be None");
  if (min && max) run_unary(UnaryOp::Clamp, UnaryKind::SameType, *this, this, *min, *max);
  else if (min) run_unary(UnaryOp::ClampMin, UnaryKind::SameType, *this, this, *min);
  else run_unary(UnaryOp::ClampMax, UnaryKind::SameType, *this, this, *max);
  return *this;
}

Tensor Tensor::clamp(const std::optional<Tensor>& min, const std::optional<Tensor>& max) const {
  if (!min && !max) throw Error("torch.clamp: At least one of 'min' or 'max' must not be None");
  if (!max) return maximum(*min);
  if (!min) return minimum(*max);
  const DType result = promote_all({result_type(*this, *min), result_type(*this, *max)});
  return run_ternary(TernaryOp::Clamp, *this, {&*min, {}}, {&*max, {}}, result, result, 1, nullptr);
}

Tensor& Tensor::neg_() { return unary_(UnaryOp::Neg, UnaryKind::SameType, *this); }
Tensor& Tensor::abs_() { return unary_(UnaryOp::Abs, UnaryKind::SameType, *this); }
Tensor& Tensor::exp_() { return unary_(UnaryOp::Exp, UnaryKind::Floating, *this); }
Tensor& Tensor::log_() { return unary_(UnaryOp::Log, UnaryKind::Floating, *this); }
Tensor& Tensor::sqrt_() { return unary_(UnaryOp::Sqrt, UnaryKind::Floating, *this); }
Tensor& Tensor::tanh_() { return unary_(UnaryOp::Tanh, UnaryKind::Floating, *this); }
Tensor& Tensor::sigmoid_() { return unary_(UnaryOp::Sigmoid, UnaryKind::Floating, *this); }
Tensor& Tensor::relu_() { return unary_(UnaryOp::Relu, UnaryKind::SameType, *this); }

// ---- ternary ----
Tensor Tensor::lerp(const Tensor& end, Scalar weight) const {
  if (end.dtype() != dtype()) {
    throw Error("expected dtype " + std::string(dtype_name(dtype())) + " for `end` but got dtype " +
                std::string(dtype_name(end.dtype())));
  }
  return run_ternary(TernaryOp::Lerp, *this, {&end, {}}, {nullptr, weight}, dtype(), dtype(), 1, nullptr);
}

Tensor Tensor::lerp(const Tensor& end, const Tensor& weight) const {
  if (end.dtype() != dtype() || weight.dtype() != dtype()) {
    const Tensor& bad = end.dtype() != dtype() ? end : weight;
    throw Error("expected dtype " + std::string(dtype_name(dtype())) + " for `" +
                (end.dtype() != dtype() ? "end" : "weight") + "` but got dtype " +
                std::string(dtype_name(bad.dtype())));
  }
  return run_ternary(TernaryOp::Lerp, *this, {&end, {}}, {&weight, {}}, dtype(), dtype(), 1, nullptr);
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

Tensor Tensor::addcmul(const Tensor& t1, const Tensor& t2, Scalar value) const {
  const DType result = addc_dtype(*this, t1, t2, false);
  return run_ternary(TernaryOp::Addcmul, *this, {&t1, {}}, {&t2, {}}, result, result, value, nullptr);
}
Tensor Tensor::addcdiv(const Tensor& t1, const Tensor& t2, Scalar value) const {
  const DType result = addc_dtype(*this, t1, t2, true);
  return run_ternary(TernaryOp::Addcdiv, *this, {&t1, {}}, {&t2, {}}, result, result, value, nullptr);
}
Tensor& Tensor::addcmul_(const Tensor& t1, const Tensor& t2, Scalar value) {
  const DType result = addc_dtype(*this, t1, t2, false);
  run_ternary(TernaryOp::Addcmul, *this, {&t1, {}}, {&t2, {}}, result, result, value, this);
  return *this;
}
Tensor& Tensor::addcdiv_(const Tensor& t1, const Tensor& t2, Scalar value) {
  const DType result = addc_dtype(*this, t1, t2, true);
  run_ternary(TernaryOp::Addcdiv, *this, {&t1, {}}, {&t2, {}}, result, result, value, this);
  return *this;
}

Tensor Tensor::where(const Tensor& condition, const Tensor& other) const {
  return ember::where(condition, *this, other);
}

Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) {
  check_condition(condition);
  const DType result = result_type(a, b);
  return run_ternary(TernaryOp::Where, condition, {&a, {}}, {&b, {}}, result, result, 1, nullptr);
}
Tensor where(const Tensor& condition, Scalar a, const Tensor& b) {
  check_condition(condition);
  const DType result = result_type(b, a);
  return run_ternary(TernaryOp::Where, condition, {nullptr, a}, {&b, {}}, result, result, 1, nullptr);
}
Tensor where(const Tensor& condition, const Tensor& a, Scalar b) {
  check_condition(condition);
  const DType result = result_type(a, b);
  return run_ternary(TernaryOp::Where, condition, {&a, {}}, {nullptr, b}, result, result, 1, nullptr);
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

// The out-of-place forms are one where() launch into a new tensor of the broadcast shape, as PyTorch's
// expand-then-fill gives, rather than a clone followed by the in-place fill.
Tensor Tensor::masked_fill(const Tensor& mask, Scalar value) const {
  check_mask(mask);
  return run_ternary(TernaryOp::Where, mask, {nullptr, value}, {this, {}}, dtype(), dtype(), 1, nullptr);
}

Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const {
  check_fill_value(value);
  check_mask(mask);
  return run_ternary(TernaryOp::Where, mask, {&value, {}}, {this, {}}, dtype(), dtype(), 1, nullptr);
}

Tensor& Tensor::masked_fill_(const Tensor& mask, Scalar value) {
  check_mask(mask);
  run_ternary(TernaryOp::Where, mask, {nullptr, value}, {this, {}}, dtype(), dtype(), 1, this);
  return *this;
}

Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) {
  check_fill_value(value);
  check_mask(mask);
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
Tensor pow(Scalar a, const Tensor& b) { return binary(BinaryOp::Pow, Kind::Arithmetic, a, b); }
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
Tensor operator-(Scalar a, const Tensor& b) { return binary(BinaryOp::Sub, Kind::Arithmetic, a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return a.mul(b); }
Tensor operator*(const Tensor& a, Scalar b) { return a.mul(b); }
Tensor operator*(Scalar a, const Tensor& b) { return b.mul(a); }
Tensor operator/(const Tensor& a, const Tensor& b) { return a.div(b); }
Tensor operator/(const Tensor& a, Scalar b) { return a.div(b); }
Tensor operator/(Scalar a, const Tensor& b) { return binary(BinaryOp::Div, Kind::TrueDivision, a, b); }
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
