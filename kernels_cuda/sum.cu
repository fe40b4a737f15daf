// sum: out (one element) = the sum of every element of a float32 view.
//
// Deterministic tree reduction in two passes. Each thread of pass one adds its grid-stride share, then each
// block reduces its threads through warp shuffles and shared memory into one partial; pass two reduces the
// partials the same way in one block. The block count depends on the element count alone, so the order of
// additions, and the result, is the same on every run and every GPU.
#include <cstdint>
#include <string>

#include "kernels_cuda/cuda_kernels.h"
#include "kernels_cuda/strided_index.cuh"

namespace ember::cuda {

namespace {

constexpr int kWarpSize = 32;
constexpr int kWarpsPerBlock = kThreadsPerBlock / kWarpSize;
// Partials from pass one; pass two's block reads them four per thread.
constexpr int64_t kMaxPartials = 4 * kThreadsPerBlock;
// Fewer elements per thread and the launch costs more than the additions.
constexpr int64_t kMinElementsPerThread = 8;

__device__ float warp_sum(float value) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    value += __shfl_down_sync(0xffffffffu, value, offset);
  }
  return value;
}

// The sum of `value` over the block, valid in thread 0.
__device__ float block_sum(float value) {
  __shared__ float warp_sums[kWarpsPerBlock];
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  value = warp_sum(value);
  if (lane == 0) warp_sums[warp] = value;
  __syncthreads();
  if (warp == 0) value = warp_sum(lane < kWarpsPerBlock ? warp_sums[lane] : 0.0f);
  return value;
}

__global__ void __launch_bounds__(kThreadsPerBlock)
    sum_partials_kernel(const __grid_constant__ StridedOperands<1> in, float* partials) {
  const float* data = static_cast<const float*>(in.data[0]);
  float sum = 0.0f;
  for (int64_t i = first_index(); i < in.numel; i += index_step()) {
    int64_t offsets[1];
    element_offsets(in, i, offsets);
    sum += data[offsets[0]];
  }
  sum = block_sum(sum);
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

__global__ void __launch_bounds__(kThreadsPerBlock)
    sum_partials_final_kernel(const float* partials, int count, float* out) {
  float sum = 0.0f;
  for (int i = threadIdx.x; i < count; i += kThreadsPerBlock) sum += partials[i];
  sum = block_sum(sum);
  if (threadIdx.x == 0) *out = sum;
}

int64_t partial_count(int64_t numel) {
  const int64_t per_block = kThreadsPerBlock * kMinElementsPerThread;
  const int64_t blocks = (numel + per_block - 1) / per_block;
  return blocks < kMaxPartials ? blocks : kMaxPartials;
}

}  // namespace

void CudaKernels::sum(Stream& stream, const TensorRef& out, const TensorRef& in) {
  for (const TensorRef* operand : {&out, &in}) {
    if (operand->dtype != DType::Float32) {
      throw UnsupportedError("the CUDA backend has no sum kernel for " +
                             std::string(dtype_name(operand->dtype)) + "; only float32");
    }
  }
  if (out.numel() != 1) {
    throw Error("sum kernel: the output must have one element, not " + std::to_string(out.numel()));
  }
  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  float* result = static_cast<float*>(device_pointer(*out.allocation, out.byte_offset));

  // CUDA kernels reach all memory and take kMaxDims dims, so the whole view is always one window.
  const LaunchShape shape = plan_launch({&in});
  if (shape.numel() == 0) {
    // The sum of nothing is 0, whose float32 bits are all zero.
    cuda_stream.context().check(cudaMemsetAsync(result, 0, sizeof(float), cuda_stream.handle()),
                                "cudaMemsetAsync (sum of an empty tensor)");
    cuda_stream.note_dispatch({out.allocation});
    return;
  }
  const auto operands = strided_operands<1>(shape);
  const int64_t partials = partial_count(operands.numel);
  if (partials == 1) {
    sum_partials_kernel<<<1, kThreadsPerBlock, 0, cuda_stream.handle()>>>(operands, result);
    check_launch(cuda_stream, "the sum kernel's launch");
    cuda_stream.note_dispatch({in.allocation, out.allocation});
    return;
  }
  // The scratch memory goes back to this stream's cache when it goes out of scope here; the stream may
  // reuse it at once, because its later work runs after these kernels.
  std::shared_ptr<Allocation> scratch =
      allocator_.allocate(static_cast<uint64_t>(partials) * sizeof(float), stream.shared_from_this());
  float* partial_sums = static_cast<float*>(device_pointer(*scratch, 0));
  sum_partials_kernel<<<static_cast<unsigned int>(partials), kThreadsPerBlock, 0, cuda_stream.handle()>>>(
      operands, partial_sums);
  check_launch(cuda_stream, "the sum kernel's first launch");
  cuda_stream.note_dispatch({in.allocation, scratch.get()});
  sum_partials_final_kernel<<<1, kThreadsPerBlock, 0, cuda_stream.handle()>>>(
      partial_sums, static_cast<int>(partials), result);
  check_launch(cuda_stream, "the sum kernel's second launch");
  cuda_stream.note_dispatch({scratch.get(), out.allocation});
}

}  // namespace ember::cuda
