// fill: out[...] = value, for every dtype. The host converts the value to the dtype's bit pattern, so the
// kernel only stores bits of the element's width. Registers the CUDA memory family.
#include <cstdint>

#include "kernels_cuda/common/strided_index.cuh"
#include "kernels_cuda/memory/cuda_memory.h"

namespace ember::cuda {

namespace {

template <class Bits>
__global__ void fill_kernel(const __grid_constant__ StridedOperands<1> out, Bits value) {
  Bits* data = static_cast<Bits*>(out.data[0]);
  for (int64_t i = first_index(); i < out.numel; i += index_step()) {
    int64_t offsets[1];
    element_offsets(out, i, offsets);
    data[offsets[0]] = value;
  }
}

}  // namespace

void CudaMemory::fill(Stream& stream, const FillArgs& args) {
  const TensorRef& out = args.out;
  const Scalar value = args.value;
  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  const uint64_t bits = value.bits_as(out.dtype);
  const LaunchShape shape = plan_launch({&out});
  for_each_window(shape, kMaxDims, UINT64_MAX, [&](const LaunchShape& window) {
    const auto operands = strided_operands<1>(window);
    with_element_bits(element_size(out.dtype), [&](auto zero) {
      using Bits = decltype(zero);
      fill_kernel<Bits><<<grid_size(operands.numel), kThreadsPerBlock, 0, cuda_stream.handle()>>>(
          operands, static_cast<Bits>(bits));
    });
    check_launch(cuda_stream, "the fill kernel's launch");
    cuda_stream.note_dispatch({out.allocation});
  });
}

EMBER_CUDA_KERNELS(MemoryKernels, CudaMemory);

}  // namespace ember::cuda
