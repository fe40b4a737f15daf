// unary: out = f(in) elementwise, for every UnaryOp. One kernel per compute type; the op is a switch
// whose value every thread shares. Registers the CUDA elementwise family.
#include <cstdint>

#include "kernels_cuda/elementwise/elementwise.cuh"

namespace ember::cuda {

namespace {

// min(max(t, 0), 6), keeping NaN.
template <class T>
__host__ __device__ T clamp_0_6(T t) {
  return t < T(0) ? T(0) : (t > T(6) ? T(6) : t);
}

// f(x) in compute type T. Ops whose result is bool give 1 or 0, which the store turns into true or false.
// Every op has a case: a missing one fails the build (-Werror=switch). Ops outside T's domain (see
// unary_ops.def) break out to the end, which the launcher never lets a thread reach.
template <class T>
__host__ __device__ T unary_value(UnaryOp op, T x, T p0, T p1, T p2, int out_dtype) {
  switch (op) {
    case UnaryOp::Cast: return x;
    case UnaryOp::Neg: return wrap_neg(x);
    case UnaryOp::Abs:
      if constexpr (kIsFloat<T>) return m_fabs(x);
      return x < T(0) ? wrap_neg(x) : x;
    // 0 for NaN and for both zeros, as torch.sign.
    case UnaryOp::Sign: return static_cast<T>((T(0) < x ? 1 : 0) - (x < T(0) ? 1 : 0));
    case UnaryOp::Square: return wrap_mul(x, x);
    case UnaryOp::Relu: return x < T(0) ? T(0) : x;  // NaN and -0 pass through
    case UnaryOp::IsNan: return is_nan(x) ? T(1) : T(0);
    case UnaryOp::IsInf: return is_inf(x) ? T(1) : T(0);
    case UnaryOp::IsPosInf: return kIsFloat<T> && x == highest<T>() ? T(1) : T(0);
    case UnaryOp::IsNegInf: return kIsFloat<T> && x == lowest<T>() ? T(1) : T(0);
    case UnaryOp::IsFinite: return is_nan(x) || is_inf(x) ? T(0) : T(1);
    case UnaryOp::LogicalNot: return x == T(0) ? T(1) : T(0);
    case UnaryOp::Clamp: {
      // p0 = min, p1 = max. A NaN x stays NaN. Bounds are never NaN here: tensor/clamp.cpp settles those.
      const T low = x < p0 ? p0 : x;
      return low > p1 ? p1 : low;
    }
    case UnaryOp::ClampMin: return x < p0 ? p0 : x;
    case UnaryOp::ClampMax: return x > p0 ? p0 : x;
    case UnaryOp::Threshold: return x <= p0 ? p1 : x;  // p0 = threshold, p1 = value
    case UnaryOp::BitwiseNot:
      // Bool's complement is logical; an integer's is bitwise.
      if constexpr (!kIsFloat<T>) return out_dtype == kBool ? (x == T(0) ? T(1) : T(0)) : static_cast<T>(~x);
      break;
    case UnaryOp::Reciprocal:
      if constexpr (kIsFloat<T>) return T(1) / x;
      break;
    case UnaryOp::Exp:
      if constexpr (kIsFloat<T>) return m_exp(x);
      break;
    case UnaryOp::Exp2:
      if constexpr (kIsFloat<T>) return m_exp2(x);
      break;
    case UnaryOp::Log:
      if constexpr (kIsFloat<T>) return m_log(x);
      break;
    case UnaryOp::Log2:
      if constexpr (kIsFloat<T>) return m_log2(x);
      break;
    case UnaryOp::Log10:
      if constexpr (kIsFloat<T>) return m_log10(x);
      break;
    case UnaryOp::Log1p:
      if constexpr (kIsFloat<T>) return m_log1p(x);
      break;
    case UnaryOp::Expm1:
      if constexpr (kIsFloat<T>) return m_expm1(x);
      break;
    case UnaryOp::Sqrt:
      if constexpr (kIsFloat<T>) return m_sqrt(x);
      break;
    case UnaryOp::Rsqrt:
      if constexpr (kIsFloat<T>) return T(1) / m_sqrt(x);
      break;
    case UnaryOp::Sin:
      if constexpr (kIsFloat<T>) return m_sin(x);
      break;
    case UnaryOp::Cos:
      if constexpr (kIsFloat<T>) return m_cos(x);
      break;
    case UnaryOp::Tan:
      if constexpr (kIsFloat<T>) return m_tan(x);
      break;
    case UnaryOp::Asin:
      if constexpr (kIsFloat<T>) return m_asin(x);
      break;
    case UnaryOp::Acos:
      if constexpr (kIsFloat<T>) return m_acos(x);
      break;
    case UnaryOp::Atan:
      if constexpr (kIsFloat<T>) return m_atan(x);
      break;
    case UnaryOp::Sinh:
      if constexpr (kIsFloat<T>) return m_sinh(x);
      break;
    case UnaryOp::Cosh:
      if constexpr (kIsFloat<T>) return m_cosh(x);
      break;
    case UnaryOp::Tanh:
      if constexpr (kIsFloat<T>) return m_tanh(x);
      break;
    case UnaryOp::Sigmoid:
      if constexpr (kIsFloat<T>) return T(1) / (T(1) + m_exp(-x));
      break;
    case UnaryOp::Gelu:
      if constexpr (kIsFloat<T>) return T(0.5) * x * (T(1) + m_erf(x * T(0.70710678118654752440)));
      break;
    case UnaryOp::GeluTanh:
      if constexpr (kIsFloat<T>) {
        const T inner = T(0.79788456080286535588) * (x + T(0.044715) * x * x * x);
        return T(0.5) * x * (T(1) + m_tanh(inner));
      }
      break;
    case UnaryOp::Silu:
      if constexpr (kIsFloat<T>) return x / (T(1) + m_exp(-x));
      break;
    case UnaryOp::Erf:
      if constexpr (kIsFloat<T>) return m_erf(x);
      break;
    case UnaryOp::Erfc:
      if constexpr (kIsFloat<T>) return m_erfc(x);
      break;
    case UnaryOp::Floor:
      if constexpr (kIsFloat<T>) return m_floor(x);
      break;
    case UnaryOp::Ceil:
      if constexpr (kIsFloat<T>) return m_ceil(x);
      break;
    case UnaryOp::Round:
      if constexpr (kIsFloat<T>) return m_rint(x);  // half to even, as torch.round
      break;
    case UnaryOp::Trunc:
      if constexpr (kIsFloat<T>) return m_trunc(x);
      break;
    case UnaryOp::Frac:
      if constexpr (kIsFloat<T>) return x - m_trunc(x);
      break;
    case UnaryOp::NanToNum:
      // p0 replaces NaN, p1 +inf, p2 -inf.
      if constexpr (kIsFloat<T>) {
        if (is_nan(x)) return p0;
        if (x == highest<T>()) return p1;
        if (x == lowest<T>()) return p2;
        return x;
      }
      break;
    case UnaryOp::LeakyRelu:
      if constexpr (kIsFloat<T>) return x > T(0) ? x : x * p0;  // p0 = the negative slope
      break;
    // p0 = alpha, p1 = scale, p2 = input_scale: PyTorch's elu kernel, which selu and celu call too.
    case UnaryOp::Elu:
      if constexpr (kIsFloat<T>) return x <= T(0) ? m_expm1(x * p2) * (p0 * p1) : x * p1;
      break;
    // Comparisons rather than fmin and fmax, so that NaN stays NaN.
    case UnaryOp::Hardsigmoid:
      if constexpr (kIsFloat<T>) return clamp_0_6(x + T(3)) / T(6);
      break;
    case UnaryOp::Hardswish:
      if constexpr (kIsFloat<T>) return x * clamp_0_6(x + T(3)) / T(6);
      break;
    case UnaryOp::Hardshrink:
      if constexpr (kIsFloat<T>) return (x >= -p0 && x <= p0) ? T(0) : x;  // p0 = lambd
      break;
    case UnaryOp::Softshrink:
      // p0 = lambd; NaN gives 0, as PyTorch 1.13's kernel.
      if constexpr (kIsFloat<T>) return x > p0 ? x - p0 : (x < -p0 ? x + p0 : T(0));
      break;
    case UnaryOp::Softplus:
      // p0 = beta, p1 = threshold: linear where beta x exceeds it.
      if constexpr (kIsFloat<T>) return x * p0 > p1 ? x : m_log1p(m_exp(x * p0)) / p0;
      break;
    case UnaryOp::LogSigmoid:
      if constexpr (kIsFloat<T>) return (x < T(0) ? x : T(0)) - m_log1p(m_exp(-m_fabs(x)));
      break;
    case UnaryOp::Mish:
      if constexpr (kIsFloat<T>) return x * m_tanh(m_log1p(m_exp(x)));
      break;
    // Derivatives, which plain backward multiplies the incoming gradient by. p0..p2 as Elu's.
    case UnaryOp::EluGrad:
      if constexpr (kIsFloat<T>) return x <= T(0) ? (p0 * p1 * p2) * m_exp(x * p2) : p1;
      break;
    case UnaryOp::SoftplusGrad:
      // p0 = beta, p1 = threshold.
      if constexpr (kIsFloat<T>) return x * p0 > p1 ? T(1) : T(1) / (T(1) + m_exp(-(x * p0)));
      break;
  }
  return x;
}

// The host compiler checks the switch above only where it compiles the function: here.
template float unary_value<float>(UnaryOp, float, float, float, float, int);

template <class T>
__global__ void __launch_bounds__(kThreadsPerBlock)
    unary_kernel(const __grid_constant__ StridedOperands<2> operands, const int out_dtype, const int in_dtype,
                 const UnaryOp op, const T p0, const T p1, const T p2) {
  for (int64_t i = first_index(); i < operands.numel; i += index_step()) {
    int64_t offsets[2];
    element_offsets(operands, i, offsets);
    const T x = load_as<T>(in_dtype, operands.data[1], offsets[1]);
    store_as<T>(out_dtype, operands.data[0], offsets[0], unary_value(op, x, p0, p1, p2, out_dtype));
  }
}

// Cast computes in whichever type loses nothing before the one conversion of the store: the input's
// own type when the result is bool (so 0.5 is true) or when a float becomes an integer (so the store
// truncates the exact value), and the output's type otherwise.
DType cast_compute(DType in, DType out) {
  if (out == DType::Bool) return in;
  if (is_floating_point(in) && !is_floating_point(out)) return in;
  return out;
}

}  // namespace

void CudaElementwise::unary(Stream& stream, const UnaryArgs& args) {
  const TensorRef& out = args.out;
  const TensorRef& in = args.in;
  const DType compute = args.op == UnaryOp::Cast ? cast_compute(in.dtype, out.dtype) : args.compute;
  require_domain(op_domain(args.op), compute, "unary", unary_op_name(args.op));
  const std::array<Scalar, 3> parameters = args.parameters();

  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  // CUDA kernels reach all memory and take kMaxDims dims, so the whole view is always one launch.
  const LaunchShape shape = plan_launch({&out, &in});
  if (shape.numel() == 0) return;
  const auto operands = strided_operands<2>(shape);
  with_compute_type(compute, [&](auto zero) {
    using T = decltype(zero);
    unary_kernel<T><<<grid_size(operands.numel), kThreadsPerBlock, 0, cuda_stream.handle()>>>(
        operands, dtype_code(out.dtype), dtype_code(in.dtype), args.op, scalar_as<T>(parameters[0]),
        scalar_as<T>(parameters[1]), scalar_as<T>(parameters[2]));
  });
  check_launch(cuda_stream, "the unary kernel's launch");
  cuda_stream.note_dispatch({out.allocation, in.allocation});
}

EMBER_CUDA_KERNELS(ElementwiseKernels, CudaElementwise);

}  // namespace ember::cuda
