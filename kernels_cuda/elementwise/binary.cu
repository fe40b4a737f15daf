// binary: out = a op b elementwise, either operand possibly a host scalar. One kernel per compute type;
// the op is a switch whose value every thread shares.
#include <cstdint>

#include "kernels_cuda/elementwise/elementwise.cuh"

namespace ember::cuda {

namespace {

// a op b in compute type T. Comparisons and logical ops give 1 or 0, which the store makes a bool. Every
// op has a case; ops outside T's domain (binary_ops.def) break out to the end, which the launcher never
// lets a thread reach.
template <class T>
__host__ __device__ T binary_value(BinaryOp op, T a, T b, T param) {
  switch (op) {
    case BinaryOp::Add: return wrap_add(a, wrap_mul(param, b));  // param = alpha
    case BinaryOp::Sub: return wrap_sub(a, wrap_mul(param, b));
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
    case BinaryOp::Div:
      if constexpr (kIsFloat<T>) return a / b;
      break;
    case BinaryOp::Atan2:
      if constexpr (kIsFloat<T>) return m_atan2(a, b);
      break;
    case BinaryOp::Hypot:
      if constexpr (kIsFloat<T>) return m_hypot(a, b);
      break;
    case BinaryOp::Copysign:
      if constexpr (kIsFloat<T>) return m_copysign(a, b);
      break;
    case BinaryOp::TanhBackward:
      if constexpr (kIsFloat<T>) return a * (T(1) - b * b);
      break;
    case BinaryOp::SigmoidBackward:
      if constexpr (kIsFloat<T>) return a * b * (T(1) - b);
      break;
    case BinaryOp::ThresholdBackward:
      if constexpr (kIsFloat<T>) return b <= param ? T(0) : a;  // param = threshold; NaN keeps the gradient
      break;
    // Activation gradients in one pass: a = the incoming gradient, b = the input. PyTorch's selections (a
    // gradient set to 0, not multiplied by 0) are kept.
    case BinaryOp::LeakyReluBackward:
      if constexpr (kIsFloat<T>) return b > T(0) ? a : a * param;  // param = the negative slope
      break;
    case BinaryOp::ShrinkBackward:
      if constexpr (kIsFloat<T>) return (b >= -param && b <= param) ? T(0) : a;  // param = lambd
      break;
    case BinaryOp::HardsigmoidBackward:
      if constexpr (kIsFloat<T>) return (b > T(-3) && b < T(3)) ? a / T(6) : T(0);
      break;
    case BinaryOp::HardswishBackward:
      if constexpr (kIsFloat<T>) return b < T(-3) ? T(0) : (b <= T(3) ? a * (b / T(3) + T(0.5)) : a);
      break;
    case BinaryOp::LogSigmoidBackward:
      if constexpr (kIsFloat<T>) return a / (T(1) + m_exp(b));  // a sigmoid(-b)
      break;
    case BinaryOp::MishBackward:
      if constexpr (kIsFloat<T>) {
        const T t = m_tanh(m_log1p(m_exp(b)));
        return a * (t + b * (T(1) / (T(1) + m_exp(-b))) * (T(1) - t * t));
      }
      break;
    case BinaryOp::SiluBackward:
      if constexpr (kIsFloat<T>) {
        const T s = T(1) / (T(1) + m_exp(-b));
        return a * s * (T(1) + b * (T(1) - s));
      }
      break;
    case BinaryOp::GeluBackward:
      if constexpr (kIsFloat<T>) {
        const T cdf = T(0.5) * (T(1) + m_erf(b * T(0.70710678118654752440)));
        const T pdf = m_exp(T(-0.5) * b * b) * T(0.39894228040143267794);
        return a * (cdf + b * pdf);
      }
      break;
    case BinaryOp::GeluTanhBackward:
      if constexpr (kIsFloat<T>) {
        const T k = T(0.79788456080286535588), c = T(0.044715);
        const T t = m_tanh(k * (b + c * b * b * b));
        const T du = k * (T(1) + T(3) * c * b * b);
        return a * (T(0.5) * (T(1) + t) + T(0.5) * b * (T(1) - t * t) * du);
      }
      break;
    case BinaryOp::Prelu:
      if constexpr (kIsFloat<T>) return a > T(0) ? a : b * a;  // b = the slope of a's channel
      break;
    case BinaryOp::BitwiseAnd:
      if constexpr (!kIsFloat<T>) return a & b;
      break;
    case BinaryOp::BitwiseOr:
      if constexpr (!kIsFloat<T>) return a | b;
      break;
    case BinaryOp::BitwiseXor:
      if constexpr (!kIsFloat<T>) return a ^ b;
      break;
    // PyTorch's shifts: a shift by a negative amount or by the width or more gives 0 (left) or the sign
    // (right). Narrower dtypes computed here in 32 bits keep the same low bits when stored.
    case BinaryOp::LeftShift:
      if constexpr (!kIsFloat<T>) {
        constexpr T kBits = static_cast<T>(8 * sizeof(T));
        using U = std::make_unsigned_t<T>;
        return b < 0 || b >= kBits ? T(0) : static_cast<T>(static_cast<U>(a) << b);
      }
      break;
    case BinaryOp::RightShift:
      if constexpr (!kIsFloat<T>) {
        constexpr T kBits = static_cast<T>(8 * sizeof(T));
        return b < 0 || b >= kBits ? static_cast<T>(a >> (kBits - 1)) : static_cast<T>(a >> b);
      }
      break;
  }
  return a;
}

// The host compiler checks the switch above only where it compiles the function: here.
template float binary_value<float>(BinaryOp, float, float, float);

template <class T>
__global__ void __launch_bounds__(kThreadsPerBlock)
    binary_kernel(const __grid_constant__ StridedOperands<3> operands, const ElementwiseOperands<T, 3> typed,
                  const BinaryOp op, const T param) {
  for (int64_t i = first_index(); i < operands.numel; i += index_step()) {
    int64_t offsets[3];
    element_offsets(operands, i, offsets);
    const T a = operand_value(operands, typed, 1, offsets);
    const T b = operand_value(operands, typed, 2, offsets);
    store_as<T>(typed.dtypes[0], operands.data[0], offsets[0], binary_value(op, a, b, param));
  }
}

}  // namespace

void CudaElementwise::binary(Stream& stream, const BinaryArgs& args) {
  const TensorRef& out = args.out;
  const Operand& a = args.a;
  const Operand& b = args.b;
  const DType compute = args.compute;
  require_domain(op_domain(args.op), compute, "binary", binary_op_name(args.op));
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
        operands, typed, args.op, scalar_as<T>(args.parameter()));
  });
  check_launch(cuda_stream, "the binary kernel's launch");
  cuda_stream.note_dispatch({out.allocation, a_ref.allocation, b_ref.allocation});
}

}  // namespace ember::cuda
