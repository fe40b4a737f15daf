// The CTC recursion on CUDA (runtime/kernels/loss.h, CtcRecursionArgs): one block per sequence, its
// threads over the extended positions, __syncthreads() between frames (it also makes one frame's
// global writes visible to the block's reads of the next), so that a whole recursion is one launch.
#include "kernels_cuda/loss/ctc_recursion.h"

#include <cstdint>

#include "kernels_cuda/common/cuda_family.h"
#include "kernels_cuda/common/device_math.cuh"
#include "kernels_cuda/common/strided_index.cuh"

namespace ember::cuda {

namespace {

template <class A>
__device__ A logsumexp3(A a, A b, A c) {
  if (is_nan(a) || is_nan(b) || is_nan(c)) return quiet_nan<A>();
  const A m = maximum(maximum(a, b), c);
  if (is_inf(m)) return m;  // every value -inf, or one +inf: exp(inf - inf) would make NaN
  return m + m_log(m_exp(a - m) + m_exp(b - m) + m_exp(c - m));
}

template <class A>
__global__ void ctc_recursion_kernel(A* table, const A* emissions, const A* moves, int64_t batch, int64_t positions,
                                     int64_t first_frame, int64_t end_frame, bool backward) {
  const int64_t n = blockIdx.x;
  const int64_t width = positions + 2;
  const int64_t row_stride = batch * width;
  for (int64_t k = first_frame; k < end_frame; ++k) {
    const int64_t frame = backward ? end_frame - 1 - (k - first_frame) : k;
    const A* read = table + (backward ? frame + 1 : frame - 1) * row_stride + n * width;
    A* write = table + frame * row_stride + n * width + (backward ? 0 : 2);
    const A* emission = emissions + (frame * batch + n) * positions;
    const A* move = moves + n * positions * 3;
    for (int64_t s = threadIdx.x; s < positions; s += blockDim.x) {
      write[s] = logsumexp3(read[s] + move[3 * s], read[s + 1] + move[3 * s + 1], read[s + 2] + move[3 * s + 2]) +
                 emission[s];
    }
    __syncthreads();
  }
}

}  // namespace

void launch_ctc_recursion(Stream& stream, const CtcRecursionArgs& args) {
  args.check();
  if (args.batch == 0 || args.positions == 0 || args.first_frame == args.end_frame) return;
  if (args.batch > 0x7fffffff) throw UnsupportedError("the cuda ctc recursion takes at most 2^31 - 1 sequences");
  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  int threads = 32;
  while (threads < 256 && threads < args.positions) threads *= 2;
  const unsigned int blocks = static_cast<unsigned int>(args.batch);
  const bool backward = args.direction == CtcDirection::Backward;
  void* table = device_pointer(*args.table.allocation, args.table.byte_offset);
  const void* emissions = device_pointer(*args.emissions.allocation, args.emissions.byte_offset);
  const void* moves = device_pointer(*args.moves.allocation, args.moves.byte_offset);
  if (args.table.dtype == DType::Float64) {
    ctc_recursion_kernel<double><<<blocks, threads, 0, cuda_stream.handle()>>>(
        static_cast<double*>(table), static_cast<const double*>(emissions), static_cast<const double*>(moves),
        args.batch, args.positions, args.first_frame, args.end_frame, backward);
  } else {
    ctc_recursion_kernel<float><<<blocks, threads, 0, cuda_stream.handle()>>>(
        static_cast<float*>(table), static_cast<const float*>(emissions), static_cast<const float*>(moves),
        args.batch, args.positions, args.first_frame, args.end_frame, backward);
  }
  check_launch(cuda_stream, "the ctc recursion's launch");
  cuda_stream.note_dispatch({args.table.allocation, args.emissions.allocation, args.moves.allocation});
}

}  // namespace ember::cuda
