// The norm kernels on CUDA (runtime/kernels/norm.h), over contiguous [outer, channels, inner] inputs:
//   channel_reduce_kernel  one block per channel: Welford statistics (batch norm, running stats updated
//                          in place), Σdy and Σdy(x - mean) (batch norm backward, the sums kept for the
//                          elementwise pass), or Σdy x̂ and Σdy per channel (group norm's weight and bias)
//   bn_apply_kernel        batch norm's normalise+affine and grad_in, elementwise
//   group_rows_kernel      one block per (sample, group) row: Welford statistics then the normalised
//                          row, or the row's grad_in
//   softmax_rows_kernel    one block per row: its maximum, Σ exp(x - max), then softmax or log-softmax;
//                          backward, Σ dy y (or Σ dy), then the row's grad_in
// Arithmetic is in A: float for float32, float16 and bfloat16 operands, double for float64.
#include <cstdint>
#include <string>

#include "kernels_cuda/common/cuda_family.h"
#include "kernels_cuda/common/device_math.cuh"
#include "kernels_cuda/common/strided_index.cuh"
#include "kernels_cuda/common/typed_operands.cuh"
#include "runtime/kernels/norm.h"

namespace ember::cuda {

namespace {

enum ChannelMode : int { kStats, kBnBackward, kAffineGrad };

// An operand as the kernels take it: its address and dtype code (null where absent).
struct Operand {
  void* data = nullptr;
  int dtype = kF32;
};

Operand operand(const TensorRef& ref) { return {device_pointer(*ref.allocation, ref.byte_offset), dtype_code(ref.dtype)}; }
Operand operand(const std::optional<TensorRef>& ref) { return ref ? operand(*ref) : Operand{}; }

struct ChannelLaunch {
  ChannelMode mode;
  Operand in, dy, stat_a, stat_b, param_a, param_b;
  int64_t outer, channels, inner, groups;
  bool from_var;
  double eps, momentum;
  void* sums;  // kBnBackward: 2 values of A per channel, or null
};

template <class A>
struct State {
  A a, b, count;
};

template <class A>
__device__ State<A> merge(ChannelMode mode, State<A> x, State<A> y) {
  if (mode != kStats) return {x.a + y.a, x.b + y.b, A(0)};
  const A count = x.count + y.count;
  if (count == A(0)) return x;
  const A delta = y.a - x.a;
  const A share = y.count / count;
  return {x.a + delta * share, x.b + y.b + delta * delta * x.count * share, count};
}

// The block's states merged as a tree; thread 0 gets the total.
template <class A>
__device__ State<A> block_merge(ChannelMode mode, State<A> s) {
  __shared__ A shared_a[kThreadsPerBlock], shared_b[kThreadsPerBlock], shared_count[kThreadsPerBlock];
  const int t = threadIdx.x;
  shared_a[t] = s.a;
  shared_b[t] = s.b;
  shared_count[t] = s.count;
  __syncthreads();
  for (int width = kThreadsPerBlock / 2; width > 0; width >>= 1) {
    if (t < width) {
      const State<A> m = merge<A>(mode, {shared_a[t], shared_b[t], shared_count[t]},
                                  {shared_a[t + width], shared_b[t + width], shared_count[t + width]});
      shared_a[t] = m.a;
      shared_b[t] = m.b;
      shared_count[t] = m.count;
    }
    __syncthreads();
  }
  return {shared_a[0], shared_b[0], shared_count[0]};
}

template <class A>
__device__ A invstd_at(const ChannelLaunch& p, int64_t c) {
  const A value = load_as<A>(p.stat_b.dtype, p.stat_b.data, c);
  return p.from_var ? A(1) / sqrt(value + A(p.eps)) : value;
}

template <class A>
__global__ void __launch_bounds__(kThreadsPerBlock) channel_reduce_kernel(const ChannelLaunch p) {
  const int64_t c = blockIdx.x;
  const int64_t positions = p.outer * p.inner;
  const int64_t group_channels = p.channels / p.groups;
  State<A> s{A(0), A(0), A(0)};
  const A mean_c = p.mode == kBnBackward ? load_as<A>(p.stat_a.dtype, p.stat_a.data, c) : A(0);
  for (int64_t t = threadIdx.x; t < positions; t += kThreadsPerBlock) {
    const int64_t n = t / p.inner;
    const int64_t offset = (n * p.channels + c) * p.inner + (t - n * p.inner);
    const A x = load_as<A>(p.in.dtype, p.in.data, offset);
    if (p.mode == kStats) {
      s.count += A(1);
      const A delta = x - s.a;
      s.a += delta / s.count;
      s.b += delta * (x - s.a);
    } else if (p.mode == kBnBackward) {
      const A g = load_as<A>(p.dy.dtype, p.dy.data, offset);
      s.a += g;
      s.b += g * (x - mean_c);
    } else {
      const int64_t row = n * p.groups + c / group_channels;
      const A g = load_as<A>(p.dy.dtype, p.dy.data, offset);
      const A x_hat = (x - load_as<A>(p.stat_a.dtype, p.stat_a.data, row)) * load_as<A>(p.stat_b.dtype, p.stat_b.data, row);
      s.a += g * x_hat;
      s.b += g;
    }
  }
  const State<A> total = block_merge<A>(p.mode, s);
  if (threadIdx.x != 0) return;
  if (p.mode == kStats) {
    store_as<A>(p.stat_a.dtype, p.stat_a.data, c, total.a);
    store_as<A>(p.stat_b.dtype, p.stat_b.data, c, A(1) / sqrt(total.b / total.count + A(p.eps)));
    if (p.param_a.data) {
      const A m = A(p.momentum);
      store_as<A>(p.param_a.dtype, p.param_a.data, c, (A(1) - m) * load_as<A>(p.param_a.dtype, p.param_a.data, c) + m * total.a);
      store_as<A>(p.param_b.dtype, p.param_b.data, c,
                  (A(1) - m) * load_as<A>(p.param_b.dtype, p.param_b.data, c) + m * (total.b / (total.count - A(1))));
    }
  } else if (p.mode == kBnBackward) {
    if (p.param_a.data) store_as<A>(p.param_a.dtype, p.param_a.data, c, total.b * invstd_at<A>(p, c));
    if (p.param_b.data) store_as<A>(p.param_b.dtype, p.param_b.data, c, total.a);
    if (p.sums) {
      static_cast<A*>(p.sums)[2 * c] = total.a;
      static_cast<A*>(p.sums)[2 * c + 1] = total.b;
    }
  } else {
    if (p.param_a.data) store_as<A>(p.param_a.dtype, p.param_a.data, c, total.a);
    if (p.param_b.data) store_as<A>(p.param_b.dtype, p.param_b.data, c, total.b);
  }
}

struct ApplyLaunch {
  bool backward;
  bool training;
  bool from_var;
  Operand out, in, dy, mean, invstd, weight, bias;
  const void* sums;
  int64_t numel, channels, inner;
  double eps, count;
};

template <class A>
__global__ void __launch_bounds__(kThreadsPerBlock) bn_apply_kernel(const ApplyLaunch p) {
  for (int64_t i = first_index(); i < p.numel; i += index_step()) {
    const int64_t c = (i / p.inner) % p.channels;
    const A m = load_as<A>(p.mean.dtype, p.mean.data, c);
    const A v = load_as<A>(p.invstd.dtype, p.invstd.data, c);
    const A istd = p.from_var ? A(1) / sqrt(v + A(p.eps)) : v;
    const A w = p.weight.data ? load_as<A>(p.weight.dtype, p.weight.data, c) : A(1);
    const A x = load_as<A>(p.in.dtype, p.in.data, i);
    if (!p.backward) {
      const A b = p.bias.data ? load_as<A>(p.bias.dtype, p.bias.data, c) : A(0);
      store_as<A>(p.out.dtype, p.out.data, i, (x - m) * (istd * w) + b);
      continue;
    }
    A g = load_as<A>(p.dy.dtype, p.dy.data, i);
    if (p.training) {
      const A* sums = static_cast<const A*>(p.sums);
      g = g - sums[2 * c] / A(p.count) - (x - m) * (istd * istd) * (sums[2 * c + 1] / A(p.count));
    }
    store_as<A>(p.out.dtype, p.out.data, i, g * (istd * w));
  }
}

struct RowLaunch {
  bool backward;
  Operand out, in, dy, mean, rstd, weight, bias;
  int64_t groups, group_channels, inner;
  double eps;
};

template <class A>
__global__ void __launch_bounds__(kThreadsPerBlock) group_rows_kernel(const RowLaunch p) {
  const int64_t row = blockIdx.x;
  const int64_t length = p.group_channels * p.inner;
  const int64_t base = row * length;
  const int64_t first_channel = (row % p.groups) * p.group_channels;
  const ChannelMode mode = p.backward ? kBnBackward : kStats;  // sums backward, Welford forward
  A m = A(0), r = A(0);
  if (p.backward) {
    m = load_as<A>(p.mean.dtype, p.mean.data, row);
    r = load_as<A>(p.rstd.dtype, p.rstd.data, row);
  }
  State<A> s{A(0), A(0), A(0)};
  for (int64_t i = threadIdx.x; i < length; i += kThreadsPerBlock) {
    const A x = load_as<A>(p.in.dtype, p.in.data, base + i);
    if (!p.backward) {
      s.count += A(1);
      const A delta = x - s.a;
      s.a += delta / s.count;
      s.b += delta * (x - s.a);
    } else {
      const A w = p.weight.data ? load_as<A>(p.weight.dtype, p.weight.data, first_channel + i / p.inner) : A(1);
      const A g = load_as<A>(p.dy.dtype, p.dy.data, base + i) * w;
      s.a += g;
      s.b += g * (x - m) * r;
    }
  }
  const State<A> total = block_merge<A>(mode, s);
  const A n = A(length);
  if (!p.backward) {
    m = total.a;
    r = A(1) / sqrt(total.b / n + A(p.eps));
    if (threadIdx.x == 0) {
      store_as<A>(p.mean.dtype, p.mean.data, row, m);
      store_as<A>(p.rstd.dtype, p.rstd.data, row, r);
    }
  }
  for (int64_t i = threadIdx.x; i < length; i += kThreadsPerBlock) {
    const int64_t channel = first_channel + i / p.inner;
    const A x = load_as<A>(p.in.dtype, p.in.data, base + i);
    const A w = p.weight.data ? load_as<A>(p.weight.dtype, p.weight.data, channel) : A(1);
    if (!p.backward) {
      const A b = p.bias.data ? load_as<A>(p.bias.dtype, p.bias.data, channel) : A(0);
      store_as<A>(p.out.dtype, p.out.data, base + i, (x - m) * (r * w) + b);
    } else {
      const A g = load_as<A>(p.dy.dtype, p.dy.data, base + i) * w;
      const A x_hat = (x - m) * r;
      store_as<A>(p.out.dtype, p.out.data, base + i, r * (g - total.a / n - x_hat * (total.b / n)));
    }
  }
}

struct SoftmaxLaunch {
  Operand out, in, dy;  // backward: out grad_in, in the forward's output, dy grad_out
  int64_t length;
  bool log;
  bool backward;
};

// The block's values folded by max (NaN winning, as maximum does) or by sum; every thread gets the total.
template <class A, bool kMax>
__device__ A block_fold(A value) {
  __shared__ A shared[kThreadsPerBlock];
  const int t = threadIdx.x;
  shared[t] = value;
  __syncthreads();
  for (int width = kThreadsPerBlock / 2; width > 0; width >>= 1) {
    if (t < width) shared[t] = kMax ? maximum(shared[t], shared[t + width]) : shared[t] + shared[t + width];
    __syncthreads();
  }
  const A total = shared[0];
  __syncthreads();
  return total;
}

template <class A>
__global__ void __launch_bounds__(kThreadsPerBlock) softmax_rows_kernel(const SoftmaxLaunch p) {
  const int64_t base = static_cast<int64_t>(blockIdx.x) * p.length;
  if (p.backward) {
    A sum = A(0);
    for (int64_t i = threadIdx.x; i < p.length; i += kThreadsPerBlock) {
      const A dy = load_as<A>(p.dy.dtype, p.dy.data, base + i);
      sum += p.log ? dy : dy * load_as<A>(p.in.dtype, p.in.data, base + i);
    }
    sum = block_fold<A, false>(sum);
    for (int64_t i = threadIdx.x; i < p.length; i += kThreadsPerBlock) {
      const A y = load_as<A>(p.in.dtype, p.in.data, base + i), dy = load_as<A>(p.dy.dtype, p.dy.data, base + i);
      store_as<A>(p.out.dtype, p.out.data, base + i, p.log ? dy - m_exp(y) * sum : y * (dy - sum));
    }
    return;
  }
  A m = A(-INFINITY);
  for (int64_t i = threadIdx.x; i < p.length; i += kThreadsPerBlock) {
    m = maximum(m, load_as<A>(p.in.dtype, p.in.data, base + i));
  }
  m = block_fold<A, true>(m);
  A sum = A(0);
  for (int64_t i = threadIdx.x; i < p.length; i += kThreadsPerBlock) {
    sum += m_exp(load_as<A>(p.in.dtype, p.in.data, base + i) - m);
  }
  sum = block_fold<A, false>(sum);
  const A r = p.log ? m_log(sum) : A(1) / sum;
  for (int64_t i = threadIdx.x; i < p.length; i += kThreadsPerBlock) {
    const A x = load_as<A>(p.in.dtype, p.in.data, base + i);
    store_as<A>(p.out.dtype, p.out.data, base + i, p.log ? x - m - r : m_exp(x - m) * r);
  }
}

// Blocks are one per channel or row: a grid's x dimension holds 2^31 - 1 of them.
unsigned int block_count(int64_t blocks) {
  if (blocks > 0x7fffffff) throw UnsupportedError("the cuda norm kernels take at most 2^31 - 1 channels or rows");
  return static_cast<unsigned int>(blocks);
}

class CudaNorm final : public NormKernels {
 public:
  explicit CudaNorm(CudaDevice& device) : device_(device) {}
  void batch_norm_stats(Stream& stream, const BatchNormStatsArgs& args) override;
  void batch_norm_apply(Stream& stream, const BatchNormApplyArgs& args) override;
  void batch_norm_backward(Stream& stream, const BatchNormBackwardArgs& args) override;
  void group_norm(Stream& stream, const GroupNormArgs& args) override;
  void group_norm_backward(Stream& stream, const GroupNormBackwardArgs& args) override;
  void softmax(Stream& stream, const SoftmaxArgs& args) override;
  void softmax_backward(Stream& stream, const SoftmaxBackwardArgs& args) override;

 private:
  void channel_reduce(Stream& stream, const ChannelLaunch& launch, DType in, std::initializer_list<Allocation*> touched);
  void apply(Stream& stream, const ApplyLaunch& launch, DType in, std::initializer_list<Allocation*> touched);
  void rows(Stream& stream, const RowLaunch& launch, int64_t rows, DType in, std::initializer_list<Allocation*> touched);

  CudaDevice& device_;
};

void CudaNorm::channel_reduce(Stream& stream, const ChannelLaunch& launch, DType in,
                              std::initializer_list<Allocation*> touched) {
  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  const unsigned int blocks = block_count(launch.channels);
  if (in == DType::Float64) {
    channel_reduce_kernel<double><<<blocks, kThreadsPerBlock, 0, cuda_stream.handle()>>>(launch);
  } else {
    channel_reduce_kernel<float><<<blocks, kThreadsPerBlock, 0, cuda_stream.handle()>>>(launch);
  }
  check_launch(cuda_stream, "the norm channel kernel's launch");
  cuda_stream.note_dispatch(touched);
}

void CudaNorm::apply(Stream& stream, const ApplyLaunch& launch, DType in, std::initializer_list<Allocation*> touched) {
  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  if (in == DType::Float64) {
    bn_apply_kernel<double><<<grid_size(launch.numel), kThreadsPerBlock, 0, cuda_stream.handle()>>>(launch);
  } else {
    bn_apply_kernel<float><<<grid_size(launch.numel), kThreadsPerBlock, 0, cuda_stream.handle()>>>(launch);
  }
  check_launch(cuda_stream, "the batch norm apply kernel's launch");
  cuda_stream.note_dispatch(touched);
}

// One block per row: `f64` for float64 inputs, `f32` (float arithmetic) for the others.
template <class Launch>
void launch_rows(Stream& stream, void (*f32)(Launch), void (*f64)(Launch), const Launch& launch, int64_t row_count,
                 DType in, const char* what, std::initializer_list<Allocation*> touched) {
  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  (in == DType::Float64 ? f64 : f32)<<<block_count(row_count), kThreadsPerBlock, 0, cuda_stream.handle()>>>(launch);
  check_launch(cuda_stream, what);
  cuda_stream.note_dispatch(touched);
}

void CudaNorm::rows(Stream& stream, const RowLaunch& launch, int64_t row_count, DType in,
                    std::initializer_list<Allocation*> touched) {
  launch_rows<RowLaunch>(stream, group_rows_kernel<float>, group_rows_kernel<double>, launch, row_count, in,
                         "the group norm kernel's launch", touched);
}

Allocation* allocation_of(const std::optional<TensorRef>& ref) { return ref ? ref->allocation : nullptr; }

void CudaNorm::batch_norm_stats(Stream& stream, const BatchNormStatsArgs& args) {
  args.check();
  if (args.shape.channels == 0) return;
  ChannelLaunch launch{};
  launch.mode = kStats;
  launch.in = operand(args.in);
  launch.stat_a = operand(args.mean);
  launch.stat_b = operand(args.invstd);
  launch.param_a = operand(args.running_mean);
  launch.param_b = operand(args.running_var);
  launch.outer = args.shape.outer;
  launch.channels = args.shape.channels;
  launch.inner = args.shape.inner;
  launch.groups = 1;
  launch.eps = args.eps;
  launch.momentum = args.momentum;
  channel_reduce(stream, launch, args.in.dtype,
                 {args.in.allocation, args.mean.allocation, args.invstd.allocation, allocation_of(args.running_mean),
                  allocation_of(args.running_var)});
}

void CudaNorm::batch_norm_apply(Stream& stream, const BatchNormApplyArgs& args) {
  args.check();
  if (args.shape.numel() == 0) return;
  ApplyLaunch launch{};
  launch.from_var = args.invstd_from_var;
  launch.out = operand(args.out);
  launch.in = operand(args.in);
  launch.mean = operand(args.mean);
  launch.invstd = operand(args.invstd);
  launch.weight = operand(args.weight);
  launch.bias = operand(args.bias);
  launch.numel = args.shape.numel();
  launch.channels = args.shape.channels;
  launch.inner = args.shape.inner;
  launch.eps = args.eps;
  apply(stream, launch, args.in.dtype,
        {args.out.allocation, args.in.allocation, args.mean.allocation, args.invstd.allocation,
         allocation_of(args.weight), allocation_of(args.bias)});
}

void CudaNorm::batch_norm_backward(Stream& stream, const BatchNormBackwardArgs& args) {
  args.check();
  if (args.shape.channels == 0) return;
  const bool f64 = args.in.dtype == DType::Float64;
  const bool needs_sums = args.grad_in && args.training;
  std::shared_ptr<Allocation> sums;
  if (needs_sums || args.grad_weight || args.grad_bias) {
    sums = device_.allocator().allocate(static_cast<uint64_t>(2 * args.shape.channels) * (f64 ? 8 : 4),
                                        stream.shared_from_this());
    ChannelLaunch launch{};
    launch.mode = kBnBackward;
    launch.in = operand(args.in);
    launch.dy = operand(args.grad_out);
    launch.stat_a = operand(args.mean);
    launch.stat_b = operand(args.invstd);
    launch.param_a = operand(args.grad_weight);
    launch.param_b = operand(args.grad_bias);
    launch.outer = args.shape.outer;
    launch.channels = args.shape.channels;
    launch.inner = args.shape.inner;
    launch.groups = 1;
    launch.from_var = args.invstd_from_var;
    launch.eps = args.eps;
    launch.sums = device_pointer(*sums, 0);
    channel_reduce(stream, launch, args.in.dtype,
                   {args.in.allocation, args.grad_out.allocation, args.mean.allocation, args.invstd.allocation,
                    allocation_of(args.grad_weight), allocation_of(args.grad_bias), sums.get()});
  }
  if (!args.grad_in || args.shape.numel() == 0) return;
  ApplyLaunch launch{};
  launch.backward = true;
  launch.training = args.training;
  launch.from_var = args.invstd_from_var;
  launch.out = operand(args.grad_in);
  launch.in = operand(args.in);
  launch.dy = operand(args.grad_out);
  launch.mean = operand(args.mean);
  launch.invstd = operand(args.invstd);
  launch.weight = operand(args.weight);
  launch.sums = needs_sums ? device_pointer(*sums, 0) : nullptr;
  launch.numel = args.shape.numel();
  launch.channels = args.shape.channels;
  launch.inner = args.shape.inner;
  launch.eps = args.eps;
  launch.count = static_cast<double>(args.shape.outer * args.shape.inner);
  apply(stream, launch, args.in.dtype,
        {args.grad_in->allocation, args.in.allocation, args.grad_out.allocation, args.mean.allocation,
         args.invstd.allocation, allocation_of(args.weight), sums.get()});
}

void CudaNorm::group_norm(Stream& stream, const GroupNormArgs& args) {
  args.check();
  if (args.shape.outer == 0) return;
  RowLaunch launch{};
  launch.out = operand(args.out);
  launch.in = operand(args.in);
  launch.mean = operand(args.mean);
  launch.rstd = operand(args.rstd);
  launch.weight = operand(args.weight);
  launch.bias = operand(args.bias);
  launch.groups = args.groups;
  launch.group_channels = args.shape.channels / args.groups;
  launch.inner = args.shape.inner;
  launch.eps = args.eps;
  rows(stream, launch, args.shape.outer * args.groups, args.in.dtype,
       {args.out.allocation, args.in.allocation, args.mean.allocation, args.rstd.allocation, allocation_of(args.weight),
        allocation_of(args.bias)});
}

void CudaNorm::group_norm_backward(Stream& stream, const GroupNormBackwardArgs& args) {
  args.check();
  if (args.grad_in && args.shape.numel() > 0) {
    RowLaunch launch{};
    launch.backward = true;
    launch.out = operand(args.grad_in);
    launch.in = operand(args.in);
    launch.dy = operand(args.grad_out);
    launch.mean = operand(args.mean);
    launch.rstd = operand(args.rstd);
    launch.weight = operand(args.weight);
    launch.groups = args.groups;
    launch.group_channels = args.shape.channels / args.groups;
    launch.inner = args.shape.inner;
    rows(stream, launch, args.shape.outer * args.groups, args.in.dtype,
         {args.grad_in->allocation, args.in.allocation, args.grad_out.allocation, args.mean.allocation,
          args.rstd.allocation, allocation_of(args.weight)});
  }
  if ((args.grad_weight || args.grad_bias) && args.shape.channels > 0) {
    ChannelLaunch launch{};
    launch.mode = kAffineGrad;
    launch.in = operand(args.in);
    launch.dy = operand(args.grad_out);
    launch.stat_a = operand(args.mean);
    launch.stat_b = operand(args.rstd);
    launch.param_a = operand(args.grad_weight);
    launch.param_b = operand(args.grad_bias);
    launch.outer = args.shape.outer;
    launch.channels = args.shape.channels;
    launch.inner = args.shape.inner;
    launch.groups = args.groups;
    channel_reduce(stream, launch, args.in.dtype,
                   {args.in.allocation, args.grad_out.allocation, args.mean.allocation, args.rstd.allocation,
                    allocation_of(args.grad_weight), allocation_of(args.grad_bias)});
  }
}

void CudaNorm::softmax(Stream& stream, const SoftmaxArgs& args) {
  args.check();
  if (args.rows == 0 || args.length == 0) return;
  launch_rows<SoftmaxLaunch>(stream, softmax_rows_kernel<float>, softmax_rows_kernel<double>,
                             {operand(args.out), operand(args.in), Operand{}, args.length, args.log, false}, args.rows,
                             args.in.dtype, "the softmax kernel's launch", {args.out.allocation, args.in.allocation});
}

void CudaNorm::softmax_backward(Stream& stream, const SoftmaxBackwardArgs& args) {
  args.check();
  if (args.rows == 0 || args.length == 0) return;
  launch_rows<SoftmaxLaunch>(
      stream, softmax_rows_kernel<float>, softmax_rows_kernel<double>,
      {operand(args.grad_in), operand(args.out), operand(args.grad_out), args.length, args.log, true}, args.rows,
      args.out.dtype, "the softmax kernel's launch", {args.grad_in.allocation, args.out.allocation, args.grad_out.allocation});
}

}  // namespace

EMBER_CUDA_KERNELS(NormKernels, CudaNorm);

}  // namespace ember::cuda
