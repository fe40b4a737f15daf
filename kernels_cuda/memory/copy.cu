// copy: out[...] = in[...] between same-dtype views of any strides. Only bits move, so the kernel is
// instantiated per element width.
#include <cstdint>

#include "kernels_cuda/common/strided_index.cuh"
#include "kernels_cuda/memory/cuda_memory.h"

namespace ember::cuda {

namespace {

// Operand 0 is the output, operand 1 the input.
template <class Bits>
__global__ void copy_kernel(const __grid_constant__ StridedOperands<2> operands) {
  Bits* out = static_cast<Bits*>(operands.data[0]);
  const Bits* in = static_cast<const Bits*>(operands.data[1]);
  for (int64_t i = first_index(); i < operands.numel; i += index_step()) {
    int64_t offsets[2];
    element_offsets(operands, i, offsets);
    out[offsets[0]] = in[offsets[1]];
  }
}

}  // namespace

void CudaMemory::copy(Stream& stream, const CopyArgs& args) {
  const TensorRef& out = args.out;
  const TensorRef& in = args.in;
  if (out.dtype != in.dtype) {
    throw Error("copy kernel: dtypes differ (" + std::string(dtype_name(out.dtype)) + " output, " +
                std::string(dtype_name(in.dtype)) + " input)");
  }
  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  const LaunchShape shape = plan_launch({&out, &in});
  for_each_window(shape, kMaxDims, UINT64_MAX, [&](const LaunchShape& window) {
    const auto operands = strided_operands<2>(window);
    with_element_bits(element_size(out.dtype), [&](auto zero) {
      using Bits = decltype(zero);
      copy_kernel<Bits><<<grid_size(operands.numel), kThreadsPerBlock, 0, cuda_stream.handle()>>>(
          operands);
    });
    check_launch(cuda_stream, "the copy kernel's launch");
    cuda_stream.note_dispatch({out.allocation, in.allocation});
  });
}

}  // namespace ember::cuda
