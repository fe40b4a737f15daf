#include "tensor/elementwise_support.h"

#include <string>
#include <vector>

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

void check_binary_dtypes(BinaryOp op, BinaryKind kind, DType common) {
  if (kind == BinaryKind::Bitwise && is_floating_point(common)) {
    throw Error("\"" + std::string(binary_op_name(op)) + "_cpu\" not implemented for '" + scalar_type_name(common) +
                "'");
  }
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

Operand operand(const TensorOrScalar& x, IntArrayRef shape, DType compute) {
  return x.tensor ? Operand(x.tensor->ref(shape)) : Operand(scalar_in(*x.scalar, compute));
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
  if (op.op == BinaryOp::Sub) check_bool_subtraction(a, b);
  if (op.op == BinaryOp::Pow && !is_floating_point(compute) && b.scalar && b.scalar->to_int64() < 0) {
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
    result = empty_on(shape, result_dtype(kind, common), any.device());
  }
  if (result.numel() > 0) {
    BinaryArgs args = op;
    args.out = result.ref();
    args.a = operand(a, shape, compute);
    args.b = operand(b, shape, compute);
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
    kernels_for<ElementwiseKernels>(*a.device())
        .ternary(*stream_for(*a.device()),
                 {.op = op, .out = target.ref(), .a = a.ref(shape), .b = operand(b, shape, compute),
                  .c = operand(c, shape, compute), .compute = compute, .value = scalar_in(value, compute)});
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
