// The upsample kernels: the CUDA mirror of shaders/upsample/ with the same source rules (PyTorch's CPU
// ones, see runtime/kernels/upsample.h), one thread per output element forward and one per element of
// grad_in backward, which gathers over the outputs that read it. Registers the CUDA upsample family.
#include <cmath>
#include <cstdint>

#include "kernels_cuda/common/cuda_family.h"
#include "kernels_cuda/common/strided_index.cuh"
#include "kernels_cuda/common/typed_operands.cuh"
#include "runtime/kernels/memory.h"
#include "runtime/kernels/upsample.h"

namespace ember::cuda {

namespace {

constexpr int kNearest = static_cast<int>(UpsampleOp::Nearest);
constexpr int kLinear = static_cast<int>(UpsampleOp::Linear);

struct UpsampleShape {
  int op;
  int dtype;
  int64_t in_size[2], out_size[2];
  int64_t in_strides[2], out_strides[2];
  float nearest_scale[2];
  double linear_scale[2];
  bool align_corners;
  bool nearest_shortcuts;
};

// The input position output o reads along dim d (the nearest ops); __fmul_rn keeps the product unfused.
__device__ inline int64_t nearest_source(const UpsampleShape& s, int d, int64_t o) {
  const int64_t in = s.in_size[d], out = s.out_size[d];
  float x;
  if (s.op == kNearest) {
    if (s.nearest_shortcuts && out == in) return o;
    if (s.nearest_shortcuts && out == 2 * in) return o >> 1;
    x = __fmul_rn(static_cast<float>(o), s.nearest_scale[d]);
  } else {
    x = __fmul_rn(__fadd_rn(static_cast<float>(o), 0.5f), s.nearest_scale[d]);
  }
  return min(static_cast<int64_t>(floorf(x)), in - 1);
}

// A product that is never fused into a following add, as the shaders' `precise` products.
__device__ inline float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ inline double mul_rn(double a, double b) { return __dmul_rn(a, b); }

template <class T>
struct Taps {
  int64_t first, second;
  T first_weight, second_weight;
};

template <class T>
__device__ inline Taps<T> linear_taps(const UpsampleShape& s, int d, int64_t o) {
  const int64_t in = s.in_size[d];
  Taps<T> t;
  if (in == s.out_size[d]) {  // PyTorch's shortcut, whatever the scale
    t.first = t.second = o;
    t.first_weight = T(1);
    t.second_weight = T(0);
    return t;
  }
  const T scale = static_cast<T>(s.linear_scale[d]);
  T x;
  if (s.align_corners) {
    x = scale * static_cast<T>(o);
  } else {
    x = mul_rn(scale, static_cast<T>(o) + T(0.5)) - T(0.5);
    if (x < T(0)) x = T(0);
  }
  t.first = min(static_cast<int64_t>(floor(x)), in - 1);
  T lambda = x - static_cast<T>(t.first);
  lambda = lambda < T(0) ? T(0) : (lambda > T(1) ? T(1) : lambda);
  t.second = t.first + (t.first < in - 1 ? 1 : 0);
  t.first_weight = T(1) - lambda;
  t.second_weight = lambda;
  return t;
}

template <class T>
__global__ void __launch_bounds__(kThreadsPerBlock)
    upsample_kernel(const __grid_constant__ StridedOperands<2> planes, const UpsampleShape s) {
  const void* in = planes.data[0];
  void* out = planes.data[1];
  const int64_t count = planes.numel * s.out_size[0] * s.out_size[1];
  for (int64_t i = first_index(); i < count; i += index_step()) {
    const int64_t col = i % s.out_size[1];
    const int64_t row = (i / s.out_size[1]) % s.out_size[0];
    int64_t base[2];
    element_offsets(planes, i / (s.out_size[0] * s.out_size[1]), base);
    const int64_t out_at = base[1] + row * s.out_strides[0] + col * s.out_strides[1];
    if (s.op == kLinear) {
      const Taps<T> h = linear_taps<T>(s, 0, row);
      const Taps<T> w = linear_taps<T>(s, 1, col);
      const int64_t r0 = base[0] + h.first * s.in_strides[0], r1 = base[0] + h.second * s.in_strides[0];
      const int64_t c0 = w.first * s.in_strides[1], c1 = w.second * s.in_strides[1];
      const T top = w.first_weight * load_as<T>(s.dtype, in, r0 + c0) + w.second_weight * load_as<T>(s.dtype, in, r0 + c1);
      const T bottom =
          w.first_weight * load_as<T>(s.dtype, in, r1 + c0) + w.second_weight * load_as<T>(s.dtype, in, r1 + c1);
      store_as<T>(s.dtype, out, out_at, h.first_weight * top + h.second_weight * bottom);
    } else {
      const int64_t source =
          base[0] + nearest_source(s, 0, row) * s.in_strides[0] + nearest_source(s, 1, col) * s.in_strides[1];
      store_as<T>(s.dtype, out, out_at, load_as<T>(s.dtype, in, source));
    }
  }
}

// Outputs along dim d that may read input position x, from the inverted mapping with a margin.
__device__ inline void candidates(const UpsampleShape& s, int d, int64_t x, int64_t& first, int64_t& last) {
  const int64_t in = s.in_size[d], out = s.out_size[d];
  double scale = s.op == kLinear ? s.linear_scale[d] : s.nearest_scale[d];
  if ((s.op == kNearest && s.nearest_shortcuts && (out == in || out == 2 * in)) || (s.op == kLinear && out == in)) {
    scale = static_cast<double>(in) / static_cast<double>(out);
  }
  double low, high;
  if (s.op == kNearest) {
    low = x / scale;
    high = (x + 1) / scale;
  } else if (s.op != kLinear) {
    low = x / scale - 0.5;
    high = (x + 1) / scale - 0.5;
  } else if (s.align_corners) {
    low = (x - 1) / scale;
    high = (x + 1) / scale;
  } else {
    low = (x - 0.5) / scale - 0.5;
    high = (x + 1.5) / scale - 0.5;
  }
  const int64_t reach = s.op == kLinear ? 1 : 0;
  first = (scale <= 0 || x <= reach) ? 0 : static_cast<int64_t>(fmin(fmax(floor(low) - 2, 0.0), static_cast<double>(out)));
  last = (scale <= 0 || x >= in - 1 - reach) ? out - 1
                                             : static_cast<int64_t>(fmin(fmax(ceil(high) + 2, 0.0), static_cast<double>(out - 1)));
}

template <class T>
__device__ inline bool reads(const UpsampleShape& s, int d, int64_t o, int64_t x, T& weight) {
  if (s.op != kLinear) {
    weight = T(1);
    return nearest_source(s, d, o) == x;
  }
  const Taps<T> t = linear_taps<T>(s, d, o);
  weight = (t.first == x ? t.first_weight : T(0)) + (t.second == x ? t.second_weight : T(0));
  return t.first == x || t.second == x;
}

// Operands as forward: 0 grad_in (written), 1 grad_out.
template <class T>
__global__ void __launch_bounds__(kThreadsPerBlock)
    upsample_backward_kernel(const __grid_constant__ StridedOperands<2> planes, const UpsampleShape s) {
  void* grad_in = planes.data[0];
  const void* grad_out = planes.data[1];
  const int64_t count = planes.numel * s.in_size[0] * s.in_size[1];
  for (int64_t i = first_index(); i < count; i += index_step()) {
    const int64_t col = i % s.in_size[1];
    const int64_t row = (i / s.in_size[1]) % s.in_size[0];
    int64_t base[2];
    element_offsets(planes, i / (s.in_size[0] * s.in_size[1]), base);
    int64_t h_first, h_last, w_first, w_last;
    candidates(s, 0, row, h_first, h_last);
    candidates(s, 1, col, w_first, w_last);
    T sum = T(0);
    for (int64_t oh = h_first; oh <= h_last; ++oh) {
      T wh;
      if (!reads<T>(s, 0, oh, row, wh)) continue;
      for (int64_t ow = w_first; ow <= w_last; ++ow) {
        T ww;
        if (!reads<T>(s, 1, ow, col, ww)) continue;
        sum += load_as<T>(s.dtype, grad_out, base[1] + oh * s.out_strides[0] + ow * s.out_strides[1]) * wh * ww;
      }
    }
    store_as<T>(s.dtype, grad_in, base[0] + row * s.in_strides[0] + col * s.in_strides[1], sum);
  }
}

TensorRef planes_of(const TensorRef& ref) {
  TensorRef planes = ref;
  planes.ndim = ref.ndim - 2;
  return planes;
}

class CudaUpsample final : public UpsampleKernels {
 public:
  explicit CudaUpsample(CudaDevice& device) : device_(device) {}
  void upsample(Stream& stream, const UpsampleArgs& args) override;
  void upsample_backward(Stream& stream, const UpsampleBackwardArgs& args) override;

 private:
  void launch(Stream& stream, const UpsampleGeometry& g, const TensorRef& in, const TensorRef& out, bool backward);
  CudaDevice& device_;
};

void CudaUpsample::upsample(Stream& stream, const UpsampleArgs& args) {
  args.check();
  if (args.out.numel() == 0) return;
  launch(stream, args.geometry, args.in, args.out, false);
}

void CudaUpsample::upsample_backward(Stream& stream, const UpsampleBackwardArgs& args) {
  args.check();
  if (args.grad_in.numel() == 0) return;
  if (args.grad_out.numel() == 0) {
    device_.kernels().get<MemoryKernels>().fill(stream, {args.grad_in, 0});
    return;
  }
  launch(stream, args.geometry, args.grad_in, args.grad_out, true);
}

void CudaUpsample::launch(Stream& stream, const UpsampleGeometry& g, const TensorRef& in, const TensorRef& out,
                          bool backward) {
  const int h = in.ndim - 2;
  const bool float64 = in.dtype == DType::Float64;
  UpsampleShape s{};
  s.op = static_cast<int>(g.op);
  s.dtype = dtype_code(in.dtype);
  for (int d = 0; d < 2; ++d) {
    s.in_size[d] = in.sizes[h + d];
    s.out_size[d] = out.sizes[h + d];
    s.in_strides[d] = in.strides[h + d];
    s.out_strides[d] = out.strides[h + d];
    const double scale = upsample_scale(g, d, in.sizes[h + d], out.sizes[h + d], float64);
    s.nearest_scale[d] = static_cast<float>(scale);
    s.linear_scale[d] = scale;
  }
  s.align_corners = g.align_corners;
  s.nearest_shortcuts = g.nearest_shortcuts;
  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  const TensorRef in_planes = planes_of(in);
  const TensorRef out_planes = planes_of(out);
  const auto planes = strided_operands<2>(plan_launch({&in_planes, &out_planes}));
  const int64_t count = planes.numel * (backward ? s.in_size[0] * s.in_size[1] : s.out_size[0] * s.out_size[1]);
  const unsigned int blocks = grid_size(count);
  if (float64) {
    if (backward) {
      upsample_backward_kernel<double><<<blocks, kThreadsPerBlock, 0, cuda_stream.handle()>>>(planes, s);
    } else {
      upsample_kernel<double><<<blocks, kThreadsPerBlock, 0, cuda_stream.handle()>>>(planes, s);
    }
  } else if (backward) {
    upsample_backward_kernel<float><<<blocks, kThreadsPerBlock, 0, cuda_stream.handle()>>>(planes, s);
  } else {
    upsample_kernel<float><<<blocks, kThreadsPerBlock, 0, cuda_stream.handle()>>>(planes, s);
  }
  check_launch(cuda_stream, backward ? "the upsample backward kernel's launch" : "the upsample kernel's launch");
  cuda_stream.note_dispatch({in.allocation, out.allocation});
}

}  // namespace

EMBER_CUDA_KERNELS(UpsampleKernels, CudaUpsample);

}  // namespace ember::cuda
