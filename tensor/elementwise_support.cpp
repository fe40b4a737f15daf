#include "tensor/elementwise_support.h"

#include <string>
#include <vector>

#include "runtime/half.h"

namespace ember::detail {

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

// What an in-place destination of a broadcasting op must satisfy: it holds the result dtype, the
// broadcast shape is its own shape, and no two of its elements share memory.
void check_inplace_target(const Tensor& out, DType result, IntArrayRef shape) {
  check_can_cast(result, out.dtype());
  const std::vector<int64_t> full = broadcast_shapes(out.sizes(), shape);
  if (!(IntArrayRef(full) == out.sizes())) {
    throw Error("output with shape " + to_string(out.sizes()) + " doesn't match the broadcast shape " +
                to_string(full));
  }
  check_no_internal_overlap(out);
}

namespace {

DType result_dtype(BinaryKind kind, DType common) {
  switch (kind) {
    case BinaryKind::TrueDivision: return is_floating_point(common) ? common : get_default_dtype();
    case BinaryKind::Comparison:
    case BinaryKind::Logical: return DType::Bool;
    case BinaryKind::Arithmetic:
    case BinaryKind::Bitwise: return common;
  }
  return common;
}

// The kernel PyTorch lacks for bool operands of `op`, by the name its message gives, or null.
const char* missing_bool_kernel(BinaryOp op) {
  if (op == BinaryOp::DivTrunc) return "div_trunc_cpu";
  if (op == BinaryOp::DivFloor) return "div_floor_cpu";
  if (op == BinaryOp::Remainder) return "remainder_cpu";
  if (op == BinaryOp::Fmod) return "fmod_cpu";
  if (op == BinaryOp::Pow) return "pow";
  if (op == BinaryOp::LeftShift) return "lshift_cpu";
  if (op == BinaryOp::RightShift) return "rshift_cpu";
  return nullptr;
}

void check_binary_dtypes(BinaryOp op, BinaryKind kind, DType common) {
  if (kind == BinaryKind::Bitwise && is_floating_point(common)) {
    throw Error("\"" + std::string(binary_op_name(op)) + "_cpu\" not implemented for '" + scalar_type_name(common) +
                "'");
  }
  if (const char* kernel = missing_bool_kernel(op); kernel && common == DType::Bool) {
    throw Error("\"" + std::string(kernel) + "\" not implemented for 'Bool'");
  }
}

// PyTorch's CPU kernels raise on an integer division or remainder by zero. A scalar divisor is on the
// host, so its check costs nothing; finding a zero in a tensor divisor would cost a host wait, so there
// ember does what PyTorch's CUDA kernels do and computes without raising.
void check_integer_divisor(BinaryOp op, DType compute, const TensorOrScalar& divisor) {
  const bool divides = op == BinaryOp::DivTrunc || op == BinaryOp::DivFloor || op == BinaryOp::Remainder ||
                       op == BinaryOp::Fmod;
  if (divides && !is_floating_point(compute) && divisor.scalar && divisor.scalar->to_double() == 0) {
    throw Error("ZeroDivisionError");
  }
}

// PyTorch's checks of add's and sub's alpha against the result dtype, which it is then converted to.
void check_alpha(Scalar alpha, DType result) {
  if (alpha.is_bool() && result != DType::Bool) throw Error("Boolean alpha only supported for Boolean results.");
  if (alpha.is_floating_point() && !is_floating_point(result)) {
    throw Error("For integral input tensors, argument alpha must not be a floating point number.");
  }
  check_scalar_fits(alpha, result);
}

// PyTorch's subtraction refuses bool operands: both bool, or one (a tensor or a scalar).
void check_bool_subtraction(const TensorOrScalar& a, const TensorOrScalar& b) {
  auto is_bool = [](const TensorOrScalar& x) {
    return x.tensor ? x.tensor->dtype() == DType::Bool : x.scalar->is_bool();
  };
  if (is_bool(a) && is_bool(b)) {
    throw Error("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                "`logical_xor()` operator instead.");
  }
  if (is_bool(a) || is_bool(b)) {
    throw Error("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
                "invert a mask, use the `~` or `logical_not()` operator instead.");
  }
}

// The kernel arguments of a unary op: `parameters` names the op and what it reads; its scalars are cast
// to the compute dtype's range, as PyTorch casts scalars.
UnaryArgs unary_args(UnaryArgs parameters, const TensorRef& out, const TensorRef& in, DType compute) {
  parameters.out = out;
  parameters.in = in;
  parameters.compute = compute;
  for (Scalar* s : {&parameters.min, &parameters.max, &parameters.negative_slope, &parameters.threshold,
                    &parameters.value, &parameters.nan, &parameters.posinf, &parameters.neginf}) {
    *s = scalar_in(*s, compute);
  }
  return parameters;
}

// The kernels read each operand in its own dtype and compute in the compute dtype, which is right when
// the compute dtype holds every value of the operand's. A 0-dim operand need not decide the dtype, so it
// may not be: a float64 one beside float32 tensors (only float64 modules read float64, see
// shaders/common/typed_operands.glsl), an int64 one beside int32 tensors, an int8 one beside uint8
// tensors (-3 must become 253 before it is compared or divided). Such an operand is converted first, as
// PyTorch converts every operand to the common dtype; the copy (undefined when none is needed) must live
// until the kernel is launched.
// The same goes for float16 and bfloat16, which the kernels compute in float32: an operand of another
// dtype must be rounded to them first (int32 2049 is 2048 in float16).
bool is_half(DType dtype) { return dtype == DType::Float16 || dtype == DType::BFloat16; }

Tensor converted_copy(const TensorOrScalar& x, DType compute) {
  const bool needed = x.tensor && (promote_types(x.tensor->dtype(), compute) != compute ||
                                   (is_half(compute) && x.tensor->dtype() != compute));
  return needed ? x.tensor->to(compute) : Tensor();
}

// A scalar operand as PyTorch's wrapped number becomes once converted to the compute dtype: rounded to
// float16 or bfloat16 (0.1 is 0.0999755859375 in float16, which must compare equal to it).
Scalar scalar_operand(Scalar value, DType compute) {
  if (compute == DType::Float16) return double(half_bits_to_float(float_to_half_bits(float(value.to_double()))));
  if (compute == DType::BFloat16) {
    return double(bfloat16_bits_to_float(float_to_bfloat16_bits(float(value.to_double()))));
  }
  return scalar_in(value, compute);
}

Operand operand(const TensorOrScalar& x, const Tensor& copy, IntArrayRef shape, DType compute) {
  if (copy.defined()) return Operand(copy.ref(shape));
  return x.tensor ? Operand(x.tensor->ref(shape)) : Operand(scalar_operand(*x.scalar, compute));
}

}  // namespace

Tensor run_binary(const BinaryArgs& op, BinaryKind kind, const TensorOrScalar& a, const TensorOrScalar& b,
                  Tensor* out) {
  const Tensor& any = a.tensor ? *a.tensor : *b.tensor;
  if (a.tensor && b.tensor) check_same_device({a.tensor, b.tensor});
  const DType common = a.tensor && b.tensor ? result_type(*a.tensor, *b.tensor)
                       : a.tensor           ? result_type(*a.tensor, *b.scalar)
                                            : result_type(*a.scalar, *b.tensor);
  const DType compute = kind == BinaryKind::TrueDivision ? result_dtype(kind, common) : common;
  check_binary_dtypes(op.op, kind, common);
  if (op.op == BinaryOp::Add || op.op == BinaryOp::Sub) check_alpha(op.alpha, common);
  if (op.op == BinaryOp::Sub) check_bool_subtraction(a, b);
  if (op.op == BinaryOp::Pow && !is_floating_point(compute) && b.scalar && b.scalar->to_int64() < 0) {
    throw Error("Integers to negative integer powers are not allowed.");
  }
  // PyTorch converts a scalar exponent to an integer or half-precision result's dtype, with its overflow
  // check (float32 and float64 take it as a double).
  if (op.op == BinaryOp::Pow && b.scalar &&
      (!is_floating_point(common) || common == DType::Float16 || common == DType::BFloat16)) {
    check_scalar_fits(*b.scalar, common);
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
    result = empty_on(shape, result_dtype(kind, common), any.device());
  }
  if (result.numel() > 0) {
    check_integer_divisor(op.op, compute, b);
    BinaryArgs args = op;
    args.out = result.ref();
    const Tensor a_copy = converted_copy(a, compute), b_copy = converted_copy(b, compute);
    args.a = operand(a, a_copy, shape, compute);
    args.b = operand(b, b_copy, shape, compute);
    args.compute = compute;
    args.alpha = scalar_in(op.alpha, compute);
    args.threshold = scalar_in(op.threshold, compute);
    kernels_for<ElementwiseKernels>(*any.device()).binary(*stream_for(*any.device()), args);
  }
  if (out) bump_version(*out);
  return result;
}

Tensor binary(BinaryOp op, BinaryKind kind, const TensorOrScalar& a, const TensorOrScalar& b, Scalar alpha) {
  return run_binary({.op = op, .alpha = alpha}, kind, a, b, nullptr);
}

Tensor& binary_(BinaryOp op, BinaryKind kind, Tensor& self, const TensorOrScalar& b, Scalar alpha) {
  run_binary({.op = op, .alpha = alpha}, kind, self, b, &self);
  return self;
}

Tensor run_unary(const UnaryArgs& op, UnaryKind kind, const Tensor& x, Tensor* out) {
  DType result = x.dtype(), compute = x.dtype();
  switch (kind) {
    case UnaryKind::Floating:
      if (!x.is_floating_point()) result = compute = get_default_dtype();
      break;
    case UnaryKind::ToBool: result = DType::Bool; break;
    case UnaryKind::FloatOnlySame:
      if (!x.is_floating_point()) {
        throw Error("\"" + std::string(unary_op_name(op.op)) + "_cpu\" not implemented for '" +
                    scalar_type_name(x.dtype()) + "'");
      }
      break;
    case UnaryKind::SameType: break;
  }
  Tensor target;
  if (out) {
    check_inplace_target(*out, result, out->sizes());
    target = *out;
  } else {
    target = empty_on(x.sizes(), result, x.device());
  }
  if (x.numel() > 0) {
    kernels_for<ElementwiseKernels>(*x.device())
        .unary(*stream_for(*x.device()), unary_args(op, target.ref(), x.ref(), compute));
  }
  if (out) bump_version(*out);
  return target;
}

Tensor unary(UnaryOp op, UnaryKind kind, const Tensor& x) { return run_unary({.op = op}, kind, x, nullptr); }

Tensor& unary_(UnaryOp op, UnaryKind kind, Tensor& x) {
  run_unary({.op = op}, kind, x, &x);
  return x;
}

Tensor run_ternary(TernaryOp op, const Tensor& a, const TensorOrScalar& b, const TensorOrScalar& c, DType result,
                   DType compute, Scalar value, Tensor* out) {
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
    target = empty_on(shape, result, a.device());
  }
  if (target.numel() > 0) {
    const Tensor a_copy = converted_copy(a, compute), b_copy = converted_copy(b, compute),
                 c_copy = converted_copy(c, compute);
    kernels_for<ElementwiseKernels>(*a.device())
        .ternary(*stream_for(*a.device()),
                 {.op = op, .out = target.ref(), .a = (a_copy.defined() ? a_copy : a).ref(shape),
                  .b = operand(b, b_copy, shape, compute), .c = operand(c, c_copy, shape, compute),
                  .compute = compute, .value = scalar_in(value, compute)});
  }
  if (out) bump_version(*out);
  return target;
}

DType promote_all(std::initializer_list<DType> dtypes) {
  DType result = *dtypes.begin();
  for (DType d : dtypes) result = promote_types(result, d);
  return result;
}

bool wants_grad(const Tensor& t) { return t.defined() && t.requires_grad(); }

Tensor if_needed(bool needed, const Tensor& t) { return needed ? t : Tensor(); }

Tensor scaled(const Tensor& g, Scalar s) { return s.to_double() == 1.0 ? g : g.mul(s); }

Scalar negated(Scalar s) { return s.is_floating_point() ? Scalar(-s.to_double()) : Scalar(-s.to_int64()); }

autograd::tensor_list pass_through(autograd::FunctionNode&, const autograd::tensor_list& grads) {
  return {grads[0]};
}

}  // namespace ember::detail
