// unary: out = f(in) elementwise, for every UnaryOp. One kernel per compute type; the op is a switch
// whose value every thread shares.
#include <cstdint>

#include "kernels_cuda/elementwise.cuh"

namespace ember::cuda {

namespace {

// f(x) in compute type T. Ops whose result is bool give 1 or 0, which the store turns into true or false.
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
      // A NaN x stays NaN; NaN bounds are ignored, as torch.clamp with scalar bounds does.
      const T low = x < p0 ? p0 : x;
      return low > p1 ? p1 : low;
    }
    case UnaryOp::ClampMin: return x < p0 ? p0 : x;
    case UnaryOp::ClampMax: return x > p0 ? p0 : x;
    case UnaryOp::LeakyRelu: return x > T(0) ? x : x * p0;
    case UnaryOp::Threshold: return x <= p0 ? p1 : x;
    default: break;
  }
  if constexpr (kIsFloat<T>) {
    switch (op) {
      case UnaryOp::Reciprocal: return T(1) / x;
      case UnaryOp::Exp: return m_exp(x);
      case UnaryOp::Exp2: return m_exp2(x);
      case UnaryOp::Log: return m_log(x);
      case UnaryOp::Log2: return m_log2(x);
      case UnaryOp::Log10: return m_log10(x);
      case UnaryOp::Log1p: return m_log1p(x);
      case UnaryOp::Expm1: return m_expm1(x);
      case UnaryOp::Sqrt: return m_sqrt(x);
      case UnaryOp::Rsqrt: return T(1) / m_sqrt(x);
      case UnaryOp::Sin: return m_sin(x);
      case UnaryOp::Cos: return m_cos(x);
      case UnaryOp::Tan: return m_tan(x);
      case UnaryOp::Asin: return m_asin(x);
      case UnaryOp::Acos: return m_acos(x);
      case UnaryOp::Atan: return m_atan(x);
      case UnaryOp::Sinh: return m_sinh(x);
      case UnaryOp::Cosh: return m_cosh(x);
      case UnaryOp::Tanh: return m_tanh(x);
      case UnaryOp::Sigmoid: return T(1) / (T(1) + m_exp(-x));
      case UnaryOp::Gelu: return T(0.5) * x * (T(1) + m_erf(x * T(0.70710678118654752440)));
      case UnaryOp::GeluTanh: {
        const T inner = T(0.79788456080286535588) * (x + T(0.044715) * x * x * x);
        return T(0.5) * x * (T(1) + m_tanh(inner));
      }
      case UnaryOp::Silu: return x / (T(1) + m_exp(-x));
      case UnaryOp::Erf: return m_erf(x);
      case UnaryOp::Erfc: return m_erfc(x);
      case UnaryOp::Floor: return m_floor(x);
      case UnaryOp::Ceil: return m_ceil(x);
      case UnaryOp::Round: return m_rint(x);  // half to even, as torch.round
      case UnaryOp::Trunc: return m_trunc(x);
      case UnaryOp::Frac: return x - m_trunc(x);
      case UnaryOp::NanToNum:
        if (is_nan(x)) return p0;
        if (x == highest<T>()) return p1;
        if (x == lowest<T>()) return p2;
        return x;
      default: return x;
    }
  } else {
    switch (op) {
      // Bool's complement is logical; an integer's is bitwise.
      case UnaryOp::BitwiseNot: return out_dtype == kBool ? (x == T(0) ? T(1) : T(0)) : static_cast<T>(~x);
      default: return x;  // Floor, Ceil, Round, Trunc and NanToNum leave integers as they are
    }
  }
}

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

bool needs_floating_compute(UnaryOp op) {
  switch (op) {
    case UnaryOp::Reciprocal: case UnaryOp::Exp: case UnaryOp::Exp2: case UnaryOp::Log: case UnaryOp::Log2:
    case UnaryOp::Log10: case UnaryOp::Log1p: case UnaryOp::Expm1: case UnaryOp::Sqrt: case UnaryOp::Rsqrt:
    case UnaryOp::Sin: case UnaryOp::Cos: case UnaryOp::Tan: case UnaryOp::Asin: case UnaryOp::Acos:
    case UnaryOp::Atan: case UnaryOp::Sinh: case UnaryOp::Cosh: case UnaryOp::Tanh: case UnaryOp::Sigmoid:
    case UnaryOp::Gelu: case UnaryOp::GeluTanh: case UnaryOp::Silu: case UnaryOp::Erf: case UnaryOp::Erfc:
    case UnaryOp::Frac:
      return true;
    default:
      return false;
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

void CudaKernels::unary(Stream& stream, UnaryOp op, const TensorRef& out, const TensorRef& in, DType compute,
                        Scalar p0, Scalar p1, Scalar p2) {
  if (op == UnaryOp::Cast) compute = cast_compute(in.dtype, out.dtype);
  if (needs_floating_compute(op) && is_integral_compute(compute)) throw_no_kernel("unary", unary_op_name(op), compute);
  if (op == UnaryOp::BitwiseNot && !is_integral_compute(compute)) throw_no_kernel("unary", unary_op_name(op), compute);

  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  // CUDA kernels reach all memory and take kMaxDims dims, so the whole view is always one launch.
  const LaunchShape shape = plan_launch({&out, &in});
  if (shape.numel() == 0) return;
  const auto operands = strided_operands<2>(shape);
  with_compute_type(compute, [&](auto zero) {
    using T = decltype(zero);
    unary_kernel<T><<<grid_size(operands.numel), kThreadsPerBlock, 0, cuda_stream.handle()>>>(
        operands, dtype_code(out.dtype), dtype_code(in.dtype), op, scalar_as<T>(p0), scalar_as<T>(p1),
        scalar_as<T>(p2));
  });
  check_launch(cuda_stream, "the unary kernel's launch");
  cuda_stream.note_dispatch({out.allocation, in.allocation});
}

}  // namespace ember::cuda
