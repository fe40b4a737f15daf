// ternary: out = f(a, b, c) elementwise (where, lerp, addcmul, addcdiv, clamp); b and c may be host
// scalars. One kernel per compute type; the op is a switch whose value every thread shares.
#include <cstdint>

#include "kernels_cuda/elementwise/elementwise.cuh"

namespace ember::cuda {

namespace {

// f(a, b, c) in compute type T for every op but Where, whose condition is tested in its own dtype. Ops
// outside T's domain (ternary_ops.def) break out to the end, which the launcher never lets a thread
// reach.
template <class T>
__host__ __device__ T ternary_value(TernaryOp op, T a, T b, T c, T value) {
  switch (op) {
    case TernaryOp::Where: return a != T(0) ? b : c;  // the kernel tests the condition itself
    case TernaryOp::Addcmul: return wrap_add(a, wrap_mul(wrap_mul(value, b), c));
    // NaN anywhere propagates: the tensor bounds of torch.clamp are not ignored when NaN.
    case TernaryOp::Clamp: return minimum(maximum(a, b), c);
    // PyTorch's lerp: the form that is exact at each end, chosen by the weight's magnitude.
    case TernaryOp::Lerp:
      if constexpr (kIsFloat<T>) return m_fabs(c) < T(0.5) ? a + c * (b - a) : b - (b - a) * (T(1) - c);
      break;
    case TernaryOp::Addcdiv:
      if constexpr (kIsFloat<T>) return a + value * (b / c);
      break;
  }
  return a;
}

// The host compiler checks the switch above only where it compiles the function: here.
template float ternary_value<float>(TernaryOp, float, float, float, float);

// Operand 0 is out, then a, b and c.
template <class T>
__global__ void __launch_bounds__(kThreadsPerBlock)
    ternary_kernel(const __grid_constant__ StridedOperands<4> operands, const ElementwiseOperands<T, 4> typed,
                   const TernaryOp op, const T value) {
  for (int64_t i = first_index(); i < operands.numel; i += index_step()) {
    int64_t offsets[4];
    element_offsets(operands, i, offsets);
    T result;
    if (op == TernaryOp::Where) {
      // The condition is any dtype's != 0, read without converting it to T (0.5 is true).
      const bool condition = load_as<double>(typed.dtypes[1], operands.data[1], offsets[1]) != 0.0;
      result = operand_value(operands, typed, condition ? 2 : 3, offsets);
    } else {
      result = ternary_value(op, operand_value(operands, typed, 1, offsets), operand_value(operands, typed, 2, offsets),
                             operand_value(operands, typed, 3, offsets), value);
    }
    store_as<T>(typed.dtypes[0], operands.data[0], offsets[0], result);
  }
}

}  // namespace

void CudaElementwise::ternary(Stream& stream, const TernaryArgs& args) {
  const TernaryOp op = args.op;
  const TensorRef& out = args.out;
  const TensorRef& a = args.a;
  const Operand& b = args.b;
  const Operand& c = args.c;
  require_domain(op_domain(op), args.compute, "ternary", ternary_op_name(op));
  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  const TensorRef b_ref = launch_ref(b, out);
  const TensorRef c_ref = launch_ref(c, out);
  const LaunchShape shape = plan_launch({&out, &a, &b_ref, &c_ref});
  if (shape.numel() == 0) return;
  const auto operands = strided_operands<4>(shape);
  with_compute_type(args.compute, [&](auto zero) {
    using T = decltype(zero);
    ElementwiseOperands<T, 4> typed{};
    typed.dtypes[0] = dtype_code(out.dtype);
    typed.dtypes[1] = dtype_code(a.dtype);
    set_operand(typed, 2, b);
    set_operand(typed, 3, c);
    ternary_kernel<T><<<grid_size(operands.numel), kThreadsPerBlock, 0, cuda_stream.handle()>>>(
        operands, typed, op, scalar_as<T>(args.value));
  });
  check_launch(cuda_stream, "the ternary kernel's launch");
  cuda_stream.note_dispatch({out.allocation, a.allocation, b_ref.allocation, c_ref.allocation});
}

}  // namespace ember::cuda
