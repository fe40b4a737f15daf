// sequence: out[i] = start + i * step (arange), or with `end` the linspace form whose second half counts
// back from end so that the last element is exactly end. Values are computed in double, as PyTorch's CPU
// kernels compute them, or in int64 when out is an integer and every parameter is one; the store
// converts once.
#include <cstdint>

#include "kernels_cuda/elementwise/elementwise.cuh"

namespace ember::cuda {

namespace {

template <class T>
__global__ void __launch_bounds__(kThreadsPerBlock)
    sequence_kernel(const __grid_constant__ StridedOperands<1> out, const int out_dtype, const T start,
                    const T step, const T end, const bool from_end) {
  const int64_t count = out.numel;
  const int64_t halfway = count / 2;
  for (int64_t i = first_index(); i < count; i += index_step()) {
    int64_t offsets[1];
    element_offsets(out, i, offsets);
    T value;
    if (from_end && i >= halfway) {
      value = end - step * static_cast<T>(count - 1 - i);
    } else {
      value = start + step * static_cast<T>(i);
    }
    store_as<T>(out_dtype, out.data[0], offsets[0], value);
  }
}

}  // namespace

void CudaElementwise::sequence(Stream& stream, const SequenceArgs& args) {
  const TensorRef& out = args.out;
  const Scalar start = args.start;
  const Scalar step = args.step;
  const std::optional<Scalar>& end = args.end;
  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  const LaunchShape shape = plan_launch({&out});
  if (shape.numel() == 0) return;
  const auto operands = strided_operands<1>(shape);
  const bool integral = !is_floating_point(out.dtype) && !start.is_floating_point() && !step.is_floating_point() &&
                        !(end && end->is_floating_point());
  const Scalar last = end.value_or(Scalar(0));
  const auto launch = [&](auto zero) {
    using T = decltype(zero);
    sequence_kernel<T><<<grid_size(operands.numel), kThreadsPerBlock, 0, cuda_stream.handle()>>>(
        operands, dtype_code(out.dtype), scalar_as<T>(start), scalar_as<T>(step), scalar_as<T>(last),
        end.has_value());
  };
  if (integral) {
    launch(int64_t{});
  } else {
    launch(double{});
  }
  check_launch(cuda_stream, "the sequence kernel's launch");
  cuda_stream.note_dispatch({out.allocation});
}

}  // namespace ember::cuda
