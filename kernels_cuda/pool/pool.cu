// The pool kernels: the CUDA mirror of shaders/pool/ (pool.comp forward, pool_backward.comp backward),
// with the same windows, the same NaN and tie rules and the same summation order, so both backends give
// the same results. One thread per output element forward; backward gathers, one thread per element of
// grad_in summing grad_out over the windows that hold it, so it needs no atomics. Registers the CUDA pool
// family.
#include <cstdint>

#include "kernels_cuda/common/cuda_family.h"
#include "kernels_cuda/common/device_math.cuh"
#include "kernels_cuda/common/strided_index.cuh"
#include "kernels_cuda/common/typed_operands.cuh"
#include "runtime/kernels/memory.h"
#include "runtime/kernels/pool.h"

namespace ember::cuda {

namespace {

// The spatial part of a launch; the planes travel as StridedOperands over operands in, out, indices.
struct PoolShape {
  int op;  // PoolOp
  int dtype;
  int64_t in_h, in_w, out_h, out_w;
  int64_t in_strides[2], out_strides[2], indices_strides[2];
  int64_t kernel[2], stride[2], padding[2], dilation[2];
  bool count_include_pad;
  int64_t divisor_override;
  bool has_indices;
};

constexpr int kMax = static_cast<int>(PoolOp::Max);
constexpr int kAvg = static_cast<int>(PoolOp::Avg);
constexpr int kAdaptiveMax = static_cast<int>(PoolOp::AdaptiveMax);

__device__ inline bool is_max(int op) { return op == kMax || op == kAdaptiveMax; }
__device__ inline bool is_adaptive(int op) { return op != kMax && op != kAvg; }

__device__ inline int64_t adaptive_start(int64_t o, int64_t in, int64_t out) { return (o * in) / out; }
__device__ inline int64_t adaptive_end(int64_t o, int64_t in, int64_t out) { return ((o + 1) * in + out - 1) / out; }

// Avg's window along dim d of output o: [first, last) within the input, and its size within the input
// and its padding.
struct AvgSpan {
  int64_t first, last, padded;
};

__device__ inline AvgSpan avg_span(const PoolShape& s, int d, int64_t o, int64_t in) {
  AvgSpan span;
  span.first = o * s.stride[d] - s.padding[d];
  span.last = min(span.first + s.kernel[d], in + s.padding[d]);
  span.padded = span.last - span.first;
  span.first = max(span.first, int64_t{0});
  span.last = min(span.last, in);
  return span;
}

template <class T>
__device__ inline T avg_divisor(const PoolShape& s, const AvgSpan& h, const AvgSpan& w) {
  if (s.divisor_override != 0) return static_cast<T>(s.divisor_override);
  if (s.count_include_pad) return static_cast<T>(h.padded * w.padded);
  return static_cast<T>((h.last - h.first) * (w.last - w.first));
}

template <class T>
__device__ inline bool is_nan(T value) {
  return value != value;
}

// Max over positions first + k * step (k < count) of each dim, those inside the input: the first
// largest, a NaN over any number and a later NaN over an earlier one, from -inf at the first position.
template <class T>
__device__ inline void max_window(const PoolShape& s, const void* in, int64_t in_base, int64_t h_first,
                                  int64_t h_step, int64_t h_count, int64_t w_first, int64_t w_step, int64_t w_count,
                                  T& best, int64_t& best_index) {
  while (h_count > 0 && h_first < 0) { h_first += h_step; --h_count; }
  while (w_count > 0 && w_first < 0) { w_first += w_step; --w_count; }
  while (h_count > 0 && h_first + (h_count - 1) * h_step >= s.in_h) --h_count;
  while (w_count > 0 && w_first + (w_count - 1) * w_step >= s.in_w) --w_count;
  best = -infinity<T>();
  best_index = h_first * s.in_w + w_first;
  for (int64_t kh = 0; kh < h_count; ++kh) {
    const int64_t h = h_first + kh * h_step;
    for (int64_t kw = 0; kw < w_count; ++kw) {
      const int64_t w = w_first + kw * w_step;
      const T value = load_as<T>(s.dtype, in, in_base + h * s.in_strides[0] + w * s.in_strides[1]);
      if (value > best || is_nan(value)) {
        best = value;
        best_index = h * s.in_w + w;
      }
    }
  }
}

template <class T>
__global__ void __launch_bounds__(kThreadsPerBlock)
    pool_kernel(const __grid_constant__ StridedOperands<3> planes, const PoolShape s) {
  const void* in = planes.data[0];
  void* out = planes.data[1];
  int64_t* indices = static_cast<int64_t*>(planes.data[2]);
  const int64_t count = planes.numel * s.out_h * s.out_w;
  for (int64_t i = first_index(); i < count; i += index_step()) {
    const int64_t col = i % s.out_w;
    const int64_t row = (i / s.out_w) % s.out_h;
    int64_t base[3];
    element_offsets(planes, i / (s.out_w * s.out_h), base);
    const int64_t out_at = base[1] + row * s.out_strides[0] + col * s.out_strides[1];
    if (is_max(s.op)) {
      T best;
      int64_t best_index;
      if (s.op == kMax) {
        max_window<T>(s, in, base[0], row * s.stride[0] - s.padding[0], s.dilation[0], s.kernel[0],
                      col * s.stride[1] - s.padding[1], s.dilation[1], s.kernel[1], best, best_index);
      } else {
        const int64_t h0 = adaptive_start(row, s.in_h, s.out_h);
        const int64_t w0 = adaptive_start(col, s.in_w, s.out_w);
        max_window<T>(s, in, base[0], h0, 1, adaptive_end(row, s.in_h, s.out_h) - h0, w0, 1,
                      adaptive_end(col, s.in_w, s.out_w) - w0, best, best_index);
      }
      store_as<T>(s.dtype, out, out_at, best);
      indices[base[2] + row * s.indices_strides[0] + col * s.indices_strides[1]] = best_index;
    } else {
      int64_t h0, h1, w0, w1;
      AvgSpan span_h{}, span_w{};
      if (s.op == kAvg) {
        span_h = avg_span(s, 0, row, s.in_h);
        span_w = avg_span(s, 1, col, s.in_w);
        h0 = span_h.first; h1 = span_h.last;
        w0 = span_w.first; w1 = span_w.last;
      } else {
        h0 = adaptive_start(row, s.in_h, s.out_h); h1 = adaptive_end(row, s.in_h, s.out_h);
        w0 = adaptive_start(col, s.in_w, s.out_w); w1 = adaptive_end(col, s.in_w, s.out_w);
      }
      T sum = T(0);
      for (int64_t h = h0; h < h1; ++h) {
        for (int64_t w = w0; w < w1; ++w) sum += load_as<T>(s.dtype, in, base[0] + h * s.in_strides[0] + w * s.in_strides[1]);
      }
      // PyTorch divides an adaptive window's sum by its height, then by its width.
      store_as<T>(s.dtype, out, out_at,
                  s.op == kAvg ? sum / avg_divisor<T>(s, span_h, span_w) : sum / T(h1 - h0) / T(w1 - w0));
    }
  }
}

// The outputs along dim d whose windows can hold input position x: [first, last].
__device__ inline void outputs_holding(const PoolShape& s, int d, int64_t x, int64_t in, int64_t out,
                                       int64_t& first, int64_t& last) {
  if (is_adaptive(s.op)) {
    first = (x * out) / in;
    last = ((x + 1) * out + in - 1) / in - 1;
  } else {
    const int64_t reach = x + s.padding[d] - (s.kernel[d] - 1) * s.dilation[d];
    first = reach <= 0 ? 0 : (reach + s.stride[d] - 1) / s.stride[d];
    last = (x + s.padding[d]) / s.stride[d];
  }
  first = max(first, int64_t{0});
  last = min(last, out - 1);
}

// Operands as forward: 0 grad_in (written), 1 grad_out, 2 indices.
template <class T>
__global__ void __launch_bounds__(kThreadsPerBlock)
    pool_backward_kernel(const __grid_constant__ StridedOperands<3> planes, const PoolShape s) {
  void* grad_in = planes.data[0];
  const void* grad_out = planes.data[1];
  const int64_t* indices = static_cast<const int64_t*>(planes.data[2]);
  const int64_t count = planes.numel * s.in_h * s.in_w;
  for (int64_t i = first_index(); i < count; i += index_step()) {
    const int64_t col = i % s.in_w;
    const int64_t row = (i / s.in_w) % s.in_h;
    int64_t base[3];
    element_offsets(planes, i / (s.in_w * s.in_h), base);
    int64_t h_first, h_last, w_first, w_last;
    outputs_holding(s, 0, row, s.in_h, s.out_h, h_first, h_last);
    outputs_holding(s, 1, col, s.in_w, s.out_w, w_first, w_last);
    const int64_t self_index = row * s.in_w + col;
    T sum = T(0);
    for (int64_t oh = h_first; oh <= h_last; ++oh) {
      for (int64_t ow = w_first; ow <= w_last; ++ow) {
        const int64_t g = base[1] + oh * s.out_strides[0] + ow * s.out_strides[1];
        if (is_max(s.op)) {
          if (indices[base[2] + oh * s.indices_strides[0] + ow * s.indices_strides[1]] == self_index) {
            sum += load_as<T>(s.dtype, grad_out, g);
          }
        } else if (s.op == kAvg) {
          sum += load_as<T>(s.dtype, grad_out, g) /
                 avg_divisor<T>(s, avg_span(s, 0, oh, s.in_h), avg_span(s, 1, ow, s.in_w));
        } else {
          const int64_t kh = adaptive_end(oh, s.in_h, s.out_h) - adaptive_start(oh, s.in_h, s.out_h);
          const int64_t kw = adaptive_end(ow, s.in_w, s.out_w) - adaptive_start(ow, s.in_w, s.out_w);
          sum += load_as<T>(s.dtype, grad_out, g) / T(kh) / T(kw);
        }
      }
    }
    store_as<T>(s.dtype, grad_in, base[0] + row * s.in_strides[0] + col * s.in_strides[1], sum);
  }
}

// `ref` without its last two dims: the planes.
TensorRef planes_of(const TensorRef& ref) {
  TensorRef planes = ref;
  planes.ndim = ref.ndim - 2;
  return planes;
}

class CudaPool final : public PoolKernels {
 public:
  explicit CudaPool(CudaDevice& device) : device_(device) {}
  void pool(Stream& stream, const PoolArgs& args) override;
  void pool_backward(Stream& stream, const PoolBackwardArgs& args) override;

 private:
  void launch(Stream& stream, const PoolGeometry& g, const TensorRef& in, const TensorRef& out,
              const TensorRef* indices, bool backward);
  CudaDevice& device_;
};

void CudaPool::pool(Stream& stream, const PoolArgs& args) {
  args.check();
  if (args.out.numel() == 0) return;
  launch(stream, args.geometry, args.in, args.out, args.indices ? &*args.indices : nullptr, false);
}

void CudaPool::pool_backward(Stream& stream, const PoolBackwardArgs& args) {
  args.check();
  if (args.grad_in.numel() == 0) return;
  if (args.grad_out.numel() == 0) {  // no window holds anything: grad_in is zero
    device_.kernels().get<MemoryKernels>().fill(stream, {args.grad_in, 0});
    return;
  }
  launch(stream, args.geometry, args.grad_in, args.grad_out, args.indices ? &*args.indices : nullptr, true);
}

void CudaPool::launch(Stream& stream, const PoolGeometry& g, const TensorRef& in, const TensorRef& out,
                      const TensorRef* indices, bool backward) {
  const int h = in.ndim - 2, w = in.ndim - 1;
  PoolShape s{};
  s.op = static_cast<int>(g.op);
  s.dtype = dtype_code(in.dtype);
  s.in_h = in.sizes[h];
  s.in_w = in.sizes[w];
  s.out_h = out.sizes[h];
  s.out_w = out.sizes[w];
  s.in_strides[0] = in.strides[h];
  s.in_strides[1] = in.strides[w];
  s.out_strides[0] = out.strides[h];
  s.out_strides[1] = out.strides[w];
  if (indices) {
    s.indices_strides[0] = indices->strides[h];
    s.indices_strides[1] = indices->strides[w];
  }
  for (int d = 0; d < 2; ++d) {
    s.kernel[d] = g.window[d].kernel;
    s.stride[d] = g.window[d].stride;
    s.padding[d] = g.window[d].padding;
    s.dilation[d] = g.window[d].dilation;
  }
  s.count_include_pad = g.count_include_pad;
  s.divisor_override = g.divisor_override;
  s.has_indices = indices != nullptr;

  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  const TensorRef in_planes = planes_of(in);
  const TensorRef out_planes = planes_of(out);
  // Without indices, the input's planes stand in for them (never read or written as indices).
  const TensorRef indices_planes = indices ? planes_of(*indices) : in_planes;
  const auto planes = strided_operands<3>(plan_launch({&in_planes, &out_planes, &indices_planes}));
  const int64_t count = planes.numel * (backward ? s.in_h * s.in_w : s.out_h * s.out_w);
  with_compute_type(in.dtype, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<T>) {
      if (backward) {
        pool_backward_kernel<T><<<grid_size(count), kThreadsPerBlock, 0, cuda_stream.handle()>>>(planes, s);
      } else {
        pool_kernel<T><<<grid_size(count), kThreadsPerBlock, 0, cuda_stream.handle()>>>(planes, s);
      }
    } else {
      throw_no_kernel("pool", pool_op_name(g.op), in.dtype);
    }
  });
  check_launch(cuda_stream, backward ? "the pool backward kernel's launch" : "the pool kernel's launch");
  cuda_stream.note_dispatch({in.allocation, out.allocation, indices ? indices->allocation : nullptr});
}

}  // namespace

EMBER_CUDA_KERNELS(PoolKernels, CudaPool);

}  // namespace ember::cuda
