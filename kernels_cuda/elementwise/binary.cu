// binary: out = a op b elementwise, either operand possibly a host scalar. One kernel per compute type;
// the op is a switch whose value every thread shares.
#include <cstdint>

#include "kernels_cuda/elementwise.cuh"

namespace ember::cuda {

namespace {

// a op b in compute type T. Comparisons and logical ops give 1 or 0, which the store makes a bool.
template <class T>
__host__ __device__ T binary_value(BinaryOp op, T a, T b, T alpha) {
  switch (op) {
    case BinaryOp::Add: return wrap_add(a, wrap_mul(alpha, b));
    case BinaryOp::Sub: return wrap_sub(a, wrap_mul(alpha, b));
    case BinaryOp::Mul: return wrap_mul(a, b);
    case BinaryOp::DivTrunc: return div_trunc(a, b);
    case BinaryOp::DivFloor: return div_floor(a, b);
    case BinaryOp::Remainder: return remainder(a, b);
    case BinaryOp::Fmod: return fmod_value(a, b);
    case BinaryOp::Pow: return pow_value(a, b);
    case BinaryOp::Maximum: return maximum(a, b);
    case BinaryOp::Minimum: return minimum(a, b);
    case BinaryOp::Eq: return a == b ? T(1) : T(0);
    case BinaryOp::Ne: return a != b ? T(1) : T(0);
    case BinaryOp::Lt: return a < b ? T(1) : T(0);
    case BinaryOp::Le: return a <= b ? T(1) : T(0);
    case BinaryOp::Gt: return a > b ? T(1) : T(0);
    case BinaryOp::Ge: return a >= b ? T(1) : T(0);
    case BinaryOp::LogicalAnd: return a != T(0) && b != T(0) ? T(1) : T(0);
    case BinaryOp::LogicalOr: return a != T(0) || b != T(0) ? T(1) : T(0);
    case BinaryOp::LogicalXor: return (a != T(0)) != (b != T(0)) ? T(1) : T(0);
    default: break;
  }
  if constexpr (kIsFloat<T>) {
    switch (op) {
      case BinaryOp::Div: return a / b;
      case BinaryOp::Atan2: return m_atan2(a, b);
      case BinaryOp::Hypot: return m_hypot(a, b);
      case BinaryOp::Copysign: return m_copysign(a, b);
      case BinaryOp::TanhBackward: return a * (T(1) - b * b);
      case BinaryOp::SigmoidBackward: return a * b * (T(1) - b);
      case BinaryOp::ThresholdBackward: return b <= alpha ? T(0) : a;  // NaN keeps the gradient
      default: return a;
    }
  } else {
    constexpr T kBits = static_cast<T>(8 * sizeof(T));
    using U = std::make_unsigned_t<T>;
    switch (op) {
      case BinaryOp::BitwiseAnd: return a & b;
      case BinaryOp::BitwiseOr: return a | b;
      case BinaryOp::BitwiseXor: return a ^ b;
      // PyTorch's shifts: a shift by a negative amount or by the width or more gives 0 (left) or the sign
      // (right). Narrower dtypes computed here in 32 bits keep the same low bits when stored.
      case BinaryOp::LeftShift: return b < 0 || b >= kBits ? T(0) : static_cast<T>(static_cast<U>(a) << b);
      case BinaryOp::RightShift: return b < 0 || b >= kBits ? static_cast<T>(a >> (kBits - 1)) : static_cast<T>(a >> b);
      default: return a;
    }
  }
}

template <class T>
__global__ void __launch_bounds__(kThreadsPerBlock)
    binary_kernel(const __grid_constant__ StridedOperands<3> operands, const ElementwiseOperands<T, 3> typed,
                  const BinaryOp op, const T alpha) {
  for (int64_t i = first_index(); i < operands.numel; i += index_step()) {
    int64_t offsets[3];
    element_offsets(operands, i, offsets);
    const T a = operand_value(operands, typed, 1, offsets);
    const T b = operand_value(operands, typed, 2, offsets);
    store_as<T>(typed.dtypes[0], operands.data[0], offsets[0], binary_value(op, a, b, alpha));
  }
}

bool needs_floating_compute(BinaryOp op) {
  switch (op) {
    case BinaryOp::Div: case BinaryOp::Atan2: case BinaryOp::Hypot: case BinaryOp::Copysign:
    case BinaryOp::TanhBackward: case BinaryOp::SigmoidBackward: case BinaryOp::ThresholdBackward:
      return true;
    default:
      return false;
  }
}

bool needs_integral_compute(BinaryOp op) {
  switch (op) {
    case BinaryOp::BitwiseAnd: case BinaryOp::BitwiseOr: case BinaryOp::BitwiseXor:
    case BinaryOp::LeftShift: case BinaryOp::RightShift:
      return true;
    default:
      return false;
  }
}

}  // namespace

void CudaKernels::binary(Stream& stream, BinaryOp op, const TensorRef& out, const Operand& a, const Operand& b,
                         DType compute, Scalar alpha) {
  if ((needs_floating_compute(op) && is_integral_compute(compute)) ||
      (needs_integral_compute(op) && !is_integral_compute(compute))) {
    throw_no_kernel("binary", binary_op_name(op), compute);
  }
  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  const TensorRef a_ref = launch_ref(a, out);
  const TensorRef b_ref = launch_ref(b, out);
  const LaunchShape shape = plan_launch({&out, &a_ref, &b_ref});
  if (shape.numel() == 0) return;
  const auto operands = strided_operands<3>(shape);
  with_compute_type(compute, [&](auto zero) {
    using T = decltype(zero);
    ElementwiseOperands<T, 3> typed{};
    typed.dtypes[0] = dtype_code(out.dtype);
    typed.is_scalar[0] = false;
    set_operand(typed, 1, a);
    set_operand(typed, 2, b);
    binary_kernel<T><<<grid_size(operands.numel), kThreadsPerBlock, 0, cuda_stream.handle()>>>(
        operands, typed, op, scalar_as<T>(alpha));
  });
  check_launch(cuda_stream, "the binary kernel's launch");
  cuda_stream.note_dispatch({out.allocation, a_ref.allocation, b_ref.allocation});
}

}  // namespace ember::cuda
