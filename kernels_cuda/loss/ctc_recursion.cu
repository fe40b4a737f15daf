// The CTC kernels on CUDA (runtime/kernels/loss.h). The recursion (CtcRecursionArgs): one block per
// sequence, its threads over the extended positions, __syncthreads() between frames (it also makes one
// frame's global writes visible to the block's reads of the next), so that a whole recursion is one
// launch. The gradient (CtcGradientArgs): one thread per row adds the occupancy per class into the zeroed
// gradient, then one thread per cell finishes it.
#include "kernels_cuda/loss/ctc_recursion.h"

#include <cstdint>
#include <memory>

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

struct GradientLaunch {
  void* grad;
  const void* log_probs;
  const void* alpha;
  const void* beta;
  const int32_t* labels;
  const void* nll;
  const int32_t* input_lengths;
  void* shift;
  int64_t rows, batch, positions, classes;
  bool zero_infinity;
};

template <class A>
__device__ bool zero_row(const GradientLaunch& p, int64_t row, int64_t& n) {
  const int64_t t = row / p.batch;
  n = row - t * p.batch;
  if (t >= p.input_lengths[n]) return true;
  return p.zero_infinity && static_cast<const A*>(p.nll)[n] == infinity<A>();
}

template <class A>
__global__ void ctc_occupancy_kernel(const GradientLaunch p) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  int64_t n = 0;
  if (row >= p.rows || zero_row<A>(p, row, n)) return;
  const A* alpha = static_cast<const A*>(p.alpha) + row * (p.positions + 2) + 2;
  const A* beta = static_cast<const A*>(p.beta) + row * (p.positions + 2);
  A m = -infinity<A>();
  for (int64_t s = 0; s < p.positions; ++s) m = maximum(m, alpha[s] + beta[s]);
  if (m == -infinity<A>()) m = A(0);
  static_cast<A*>(p.shift)[row] = m;
  A* grad = static_cast<A*>(p.grad) + row * p.classes;
  const int32_t* labels = p.labels + n * p.positions;
  for (int64_t s = 0; s < p.positions; ++s) grad[labels[s]] += m_exp(alpha[s] + beta[s] - m);
}

template <class A>
__global__ void ctc_finish_kernel(const GradientLaunch p) {
  const int64_t cell = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (cell >= p.rows * p.classes) return;
  const int64_t row = cell / p.classes;
  int64_t n = 0;
  if (zero_row<A>(p, row, n)) return;
  const A lp = static_cast<const A*>(p.log_probs)[cell];
  A& g = static_cast<A*>(p.grad)[cell];
  g = m_exp(lp) - m_exp(m_log(g) + static_cast<const A*>(p.shift)[row] + static_cast<const A*>(p.nll)[n] - lp);
}

template <class A>
void launch_gradient(CudaStream& stream, const GradientLaunch& p) {
  const int64_t cells = p.rows * p.classes;
  ctc_occupancy_kernel<A><<<static_cast<unsigned int>((p.rows + kThreadsPerBlock - 1) / kThreadsPerBlock),
                            kThreadsPerBlock, 0, stream.handle()>>>(p);
  check_launch(stream, "the ctc occupancy's launch");
  ctc_finish_kernel<A><<<static_cast<unsigned int>((cells + kThreadsPerBlock - 1) / kThreadsPerBlock),
                         kThreadsPerBlock, 0, stream.handle()>>>(p);
  check_launch(stream, "the ctc gradient's launch");
}

}  // namespace

void launch_ctc_gradient(CudaDevice& cuda_device, Stream& stream, const CtcGradientArgs& args) {
  args.check();
  GradientLaunch p{};
  p.batch = args.grad.sizes[1];
  p.rows = args.grad.sizes[0] * p.batch;
  p.classes = args.grad.sizes[2];
  p.positions = args.labels.sizes[1];
  const int64_t cells = p.rows * p.classes;
  if (cells == 0) return;
  if ((cells + kThreadsPerBlock - 1) / kThreadsPerBlock > 0x7fffffff) {
    throw UnsupportedError("the cuda ctc gradient takes at most 2^31 - 1 blocks of cells");
  }
  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  const uint64_t element = element_size(args.grad.dtype);
  std::shared_ptr<Allocation> shift =
      cuda_device.allocator().allocate(static_cast<uint64_t>(p.rows) * element, stream.shared_from_this());
  p.grad = device_pointer(*args.grad.allocation, args.grad.byte_offset);
  p.log_probs = device_pointer(*args.log_probs.allocation, args.log_probs.byte_offset);
  p.alpha = device_pointer(*args.alpha.allocation, args.alpha.byte_offset);
  p.beta = device_pointer(*args.beta.allocation, args.beta.byte_offset);
  p.labels = static_cast<const int32_t*>(device_pointer(*args.labels.allocation, args.labels.byte_offset));
  p.nll = device_pointer(*args.nll.allocation, args.nll.byte_offset);
  p.input_lengths =
      static_cast<const int32_t*>(device_pointer(*args.input_lengths.allocation, args.input_lengths.byte_offset));
  p.shift = device_pointer(*shift, 0);
  p.zero_infinity = args.zero_infinity;
  cuda_stream.context().check(cudaMemsetAsync(p.grad, 0, static_cast<size_t>(cells) * element, cuda_stream.handle()),
                              "clearing the ctc gradient");
  if (args.grad.dtype == DType::Float64) {
    launch_gradient<double>(cuda_stream, p);
  } else {
    launch_gradient<float>(cuda_stream, p);
  }
  cuda_stream.note_dispatch({args.grad.allocation, args.log_probs.allocation, args.alpha.allocation,
                             args.beta.allocation, args.labels.allocation, args.nll.allocation,
                             args.input_lengths.allocation, shift.get()});
}

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
