// The loss kernels on CUDA (runtime/kernels/loss.h): one block of 256 threads per row of classes
// (`inner` apart in the scores), the row's logsumexp in two passes (its maximum, then Σ exp(x - max)),
// each merged across the block, which gives a row with +inf, or of -inf only, PyTorch's NaN; the forward
// stores each row's loss (reduction None) or atomically adds (loss, weight) into a two-value
// accumulator that a one-thread kernel turns into the result; the backward writes each row's gradient.
// The CTC kernels are in ctc_recursion.cu.
#include <cmath>
#include <cstdint>

#include "kernels_cuda/common/cuda_family.h"
#include "kernels_cuda/common/device_math.cuh"
#include "kernels_cuda/common/strided_index.cuh"
#include "kernels_cuda/common/typed_operands.cuh"
#include "kernels_cuda/loss/ctc_recursion.h"
#include "runtime/kernels/loss.h"

namespace ember::cuda {

namespace {

struct LossLaunch {
  void* dst;  // out or grad_in
  const void* in;
  const int64_t* target;
  const void* weight;  // null without
  void* lse;           // A per row, or null
  void* total;         // one A
  const void* grad_out;
  uint32_t* status;
  void* accumulator;   // two A: Σ loss, Σ weight
  int dtype;
  int weight_dtype;
  int64_t rows, classes, inner;
  int64_t ignore_index;
  double smoothing;
  bool log_softmax;
  ReductionKind reduction;
};

template <class A>
__device__ A class_weight(const LossLaunch& p, int64_t c) {
  return p.weight ? load_as<A>(p.weight_dtype, p.weight, c) : A(1);
}

// The block's (a, b) merged: sums, or with `maximum` a's largest.
template <class A>
__device__ void block_merge(A& a, A& b, bool maximum) {
  __shared__ A shared_a[kThreadsPerBlock], shared_b[kThreadsPerBlock];
  const int t = threadIdx.x;
  shared_a[t] = a;
  shared_b[t] = b;
  __syncthreads();
  for (int width = kThreadsPerBlock / 2; width > 0; width >>= 1) {
    if (t < width) {
      A a1 = shared_a[t], b1 = shared_b[t];
      const A a2 = shared_a[t + width], b2 = shared_b[t + width];
      if (!maximum) {
        a1 += a2;
        b1 += b2;
      } else {
        a1 = a1 > a2 ? a1 : a2;
      }
      shared_a[t] = a1;
      shared_b[t] = b1;
    }
    __syncthreads();
  }
  a = shared_a[0];
  b = shared_b[0];
  __syncthreads();
}

template <class A>
__global__ void __launch_bounds__(kThreadsPerBlock) cross_entropy_kernel(const LossLaunch p, const bool backward) {
  const int64_t row = blockIdx.x;
  const int64_t sample = row / p.inner;
  const int64_t base = sample * p.classes * p.inner + (row - sample * p.inner);
  const int64_t t = p.target[row];
  const bool counted = t != p.ignore_index && t >= 0 && t < p.classes;
  const A smoothing = static_cast<A>(p.smoothing);
  const A classes = static_cast<A>(p.classes);
  if (!backward && threadIdx.x == 0 && t != p.ignore_index && !counted) {
    if (atomicCAS(&p.status[0], 0u, 1u) == 0u) {
      p.status[1] = static_cast<uint32_t>(static_cast<uint64_t>(t));
      p.status[2] = static_cast<uint32_t>(static_cast<uint64_t>(t) >> 32);
    }
  }
  A lse = A(0);
  if (p.log_softmax) {
    if (backward) {
      lse = static_cast<const A*>(p.lse)[row];
    } else {
      // A NaN the maximum drops still makes the sum NaN.
      A m = -INFINITY, s = A(0), unused = A(0);
      for (int64_t c = threadIdx.x; c < p.classes; c += kThreadsPerBlock) {
        const A x = load_as<A>(p.dtype, p.in, base + c * p.inner);
        m = x > m ? x : m;
      }
      block_merge<A>(m, unused, true);
      for (int64_t c = threadIdx.x; c < p.classes; c += kThreadsPerBlock) {
        s += m_exp(load_as<A>(p.dtype, p.in, base + c * p.inner) - m);
      }
      block_merge<A>(s, unused, false);
      lse = m + m_log(s);
    }
  }
  A smooth_sum = backward ? classes : A(0);
  if (smoothing > A(0) && (!backward || p.weight)) {
    A part = A(0), unused = A(0);
    if (counted) {
      for (int64_t c = threadIdx.x; c < p.classes; c += kThreadsPerBlock) {
        const A w = class_weight<A>(p, c);
        part += backward ? w : w * (load_as<A>(p.dtype, p.in, base + c * p.inner) - lse);
      }
    }
    block_merge<A>(part, unused, false);
    smooth_sum = part;
  }
  const A wt = counted ? class_weight<A>(p, t) : A(0);
  if (!backward) {
    if (threadIdx.x != 0) return;
    if (p.lse) static_cast<A*>(p.lse)[row] = lse;
    A loss = A(0);
    if (counted) {
      loss = (A(1) - smoothing) * (-wt * (load_as<A>(p.dtype, p.in, base + t * p.inner) - lse));
      if (smoothing > A(0)) loss += smoothing / classes * (-smooth_sum);
    }
    if (p.reduction == ReductionKind::None) {
      store_as<A>(p.dtype, p.dst, row, loss);
    } else {
      atomicAdd(&static_cast<A*>(p.accumulator)[0], loss);
      atomicAdd(&static_cast<A*>(p.accumulator)[1], wt);
    }
    return;
  }
  A g;
  if (p.reduction == ReductionKind::None) {
    g = load_as<A>(p.dtype, p.grad_out, row);
  } else {
    g = load_as<A>(p.dtype, p.grad_out, 0);
    if (p.reduction == ReductionKind::Mean) g /= static_cast<const A*>(p.total)[0];
  }
  for (int64_t c = threadIdx.x; c < p.classes; c += kThreadsPerBlock) {
    A d = A(0);
    if (counted) {
      const A hit = c == t ? A(1) : A(0);
      if (p.log_softmax) {
        const A prob = m_exp(load_as<A>(p.dtype, p.in, base + c * p.inner) - lse);
        d = (A(1) - smoothing) * wt * (prob - hit);
        if (smoothing > A(0)) d += smoothing / classes * (prob * smooth_sum - class_weight<A>(p, c));
      } else {
        d = -wt * hit;
      }
      d *= g;
    }
    store_as<A>(p.dtype, p.dst, base + c * p.inner, d);
  }
}

template <class A>
__global__ void finish_kernel(const LossLaunch p) {
  const A* sums = static_cast<const A*>(p.accumulator);
  store_as<A>(p.dtype, p.dst, 0, p.reduction == ReductionKind::Mean ? sums[0] / sums[1] : sums[0]);
  static_cast<A*>(p.total)[0] = sums[1];
}

class CudaLoss final : public LossKernels {
 public:
  explicit CudaLoss(CudaDevice& device) : device_(device) {}
  void cross_entropy(Stream& stream, const CrossEntropyArgs& args) override;
  void cross_entropy_backward(Stream& stream, const CrossEntropyBackwardArgs& args) override;
  void ctc_recursion(Stream& stream, const CtcRecursionArgs& args) override { launch_ctc_recursion(stream, args); }
  void ctc_gradient(Stream& stream, const CtcGradientArgs& args) override {
    launch_ctc_gradient(device_, stream, args);
  }

 private:
  void launch(Stream& stream, const LossLaunch& p, bool backward, std::initializer_list<Allocation*> touched);

  CudaDevice& device_;
};

LossLaunch common(const TensorRef& in, const TensorRef& target, const std::optional<TensorRef>& weight,
                  const std::optional<TensorRef>& lse, const TensorRef& total, const ClassShape& shape,
                  int64_t ignore_index, double smoothing, bool log_softmax, ReductionKind reduction) {
  LossLaunch p{};
  p.in = device_pointer(*in.allocation, in.byte_offset);
  p.target = static_cast<const int64_t*>(device_pointer(*target.allocation, target.byte_offset));
  p.weight = weight ? device_pointer(*weight->allocation, weight->byte_offset) : nullptr;
  p.weight_dtype = weight ? dtype_code(weight->dtype) : kF32;
  p.lse = lse ? device_pointer(*lse->allocation, lse->byte_offset) : nullptr;
  p.total = device_pointer(*total.allocation, total.byte_offset);
  p.dtype = dtype_code(in.dtype);
  p.rows = shape.rows();
  p.classes = shape.classes;
  p.inner = shape.inner;
  p.ignore_index = ignore_index;
  p.smoothing = smoothing;
  p.log_softmax = log_softmax;
  p.reduction = reduction;
  return p;
}

void CudaLoss::launch(Stream& stream, const LossLaunch& p, bool backward, std::initializer_list<Allocation*> touched) {
  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  if (p.rows > 0x7fffffff) throw UnsupportedError("the cuda loss kernels take at most 2^31 - 1 rows");
  const unsigned int blocks = static_cast<unsigned int>(p.rows);
  const bool f64 = p.dtype == kF64;
  if (f64) {
    cross_entropy_kernel<double><<<blocks, kThreadsPerBlock, 0, cuda_stream.handle()>>>(p, backward);
  } else {
    cross_entropy_kernel<float><<<blocks, kThreadsPerBlock, 0, cuda_stream.handle()>>>(p, backward);
  }
  check_launch(cuda_stream, "the cross-entropy kernel's launch");
  if (!backward && p.reduction != ReductionKind::None) {
    if (f64) {
      finish_kernel<double><<<1, 1, 0, cuda_stream.handle()>>>(p);
    } else {
      finish_kernel<float><<<1, 1, 0, cuda_stream.handle()>>>(p);
    }
    check_launch(cuda_stream, "the cross-entropy reduction's launch");
  }
  cuda_stream.note_dispatch(touched);
}

void CudaLoss::cross_entropy(Stream& stream, const CrossEntropyArgs& args) {
  args.check();
  if (args.shape.rows() == 0) throw Error("cross_entropy: no rows (the caller gives an empty batch its result)");
  LossLaunch p = common(args.in, args.target, args.weight, args.logsumexp, args.total_weight, args.shape,
                        args.ignore_index, args.label_smoothing, args.log_softmax, args.reduction);
  p.dst = device_pointer(*args.out.allocation, args.out.byte_offset);
  p.status = static_cast<uint32_t*>(device_pointer(*args.status.allocation, args.status.byte_offset));
  std::shared_ptr<Allocation> accumulator;
  if (args.reduction != ReductionKind::None) {
    const uint64_t bytes = args.in.dtype == DType::Float64 ? 16 : 8;
    accumulator = device_.allocator().allocate(bytes, stream.shared_from_this());
    p.accumulator = device_pointer(*accumulator, 0);
    CudaStream& cuda_stream = CudaStream::of(stream);
    ScopedDevice device(cuda_stream.context());
    cuda_stream.context().check(cudaMemsetAsync(p.accumulator, 0, bytes, cuda_stream.handle()),
                                "clearing the cross-entropy accumulator");
  }
  launch(stream, p, false,
         {args.out.allocation, args.in.allocation, args.target.allocation,
          args.weight ? args.weight->allocation : nullptr, args.logsumexp ? args.logsumexp->allocation : nullptr,
          args.total_weight.allocation, args.status.allocation, accumulator.get()});
}

void CudaLoss::cross_entropy_backward(Stream& stream, const CrossEntropyBackwardArgs& args) {
  args.check();
  if (args.shape.rows() == 0) return;
  LossLaunch p = common(args.in, args.target, args.weight, args.logsumexp, args.total_weight, args.shape,
                        args.ignore_index, args.label_smoothing, args.log_softmax, args.reduction);
  p.dst = device_pointer(*args.grad_in.allocation, args.grad_in.byte_offset);
  p.grad_out = device_pointer(*args.grad_out.allocation, args.grad_out.byte_offset);
  launch(stream, p, true,
         {args.grad_in.allocation, args.grad_out.allocation, args.in.allocation, args.target.allocation,
          args.weight ? args.weight->allocation : nullptr, args.logsumexp ? args.logsumexp->allocation : nullptr,
          args.total_weight.allocation});
}

}  // namespace

EMBER_CUDA_KERNELS(LossKernels, CudaLoss);

}  // namespace ember::cuda
