// The fused optimizer step on CUDA (runtime/kernels/optim.h): the mirror of shaders/optim/optim.comp,
// with the same formulas in the same order. Device pointers reach every tensor, so the table of segments
// (parameter, gradient, state and step count of a run of up to 2^22 elements) travels in the kernel's
// parameters, kSegmentsPerLaunch at a time, as PyTorch's multi_tensor_apply does; block b takes kTile
// elements of the last segment whose first block is at or below b.
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels_cuda/common/cuda_family.h"
#include "kernels_cuda/common/device_math.cuh"
#include "kernels_cuda/common/strided_index.cuh"
#include "kernels_cuda/common/typed_operands.cuh"
#include "runtime/allocator.h"
#include "runtime/kernels/optim.h"

namespace ember::cuda {

namespace {

constexpr int kElems = 4;  // per thread
constexpr int64_t kTile = kThreadsPerBlock * kElems;
constexpr int64_t kSegmentElements = int64_t{1} << 22;
constexpr int kSegmentsPerLaunch = 40;  // the parameters stay within CUDA's 4 KiB

struct OptimSegment {
  void* param;
  const void* grad;
  void* state[kMaxOptimStates];
  float* steps;  // the pairs of optim_step_scalars; null for SGD
  int64_t count;
  int32_t first_block;
  int32_t parity;
  int32_t fresh;
};

struct OptimLaunch {
  OptimSegment segments[kSegmentsPerLaunch];
  int segment_count;
  int algorithm;
  int dtype;
  uint32_t flags;
  double h[10];  // as optim.comp's h0 to h9
  const float* skip_if;  // GradScaler's found_inf: nonzero skips the step (see OptimStepArgs::skip_if); or null
};

template <class A>
__global__ void __launch_bounds__(kThreadsPerBlock) optim_kernel(const OptimLaunch p) {
  const int block = blockIdx.x;
  int s = 0;
  while (s + 1 < p.segment_count && p.segments[s + 1].first_block <= block) ++s;
  const OptimSegment& seg = p.segments[s];
  const int64_t start = static_cast<int64_t>(block - seg.first_block) * kTile;
  const bool fresh = seg.fresh != 0;
  const auto alg = static_cast<OptimAlgorithm>(p.algorithm);
  auto h = [&](int i) { return static_cast<A>(p.h[i]); };
  auto flag = [&](uint32_t f) { return (p.flags & f) != 0; };
  const bool skip = p.skip_if != nullptr && *p.skip_if != 0.0f;

  A step_size = A(0), bc2_sqrt = A(1), extra = A(0);  // as optim.comp's
  if (alg != OptimAlgorithm::SGD) {
    const float old_step = fresh ? 0.0f : seg.steps[seg.parity];
    const float t = old_step + (skip ? 0.0f : 1.0f);
    const bool writes_scalars = start == 0 && threadIdx.x == 0;
    if (writes_scalars) seg.steps[seg.parity ^ 1] = t;
    if (alg == OptimAlgorithm::Adam || alg == OptimAlgorithm::Adamax) {
      step_size = h(0) / -expm1(static_cast<A>(t) * h(5));
      if (alg == OptimAlgorithm::Adam) bc2_sqrt = sqrt(-expm1(static_cast<A>(t) * h(6)));
    } else if (alg == OptimAlgorithm::RAdam) {
      step_size = -expm1(static_cast<A>(t) * h(5));
      const A bc2 = -expm1(static_cast<A>(t) * h(6));
      bc2_sqrt = sqrt(bc2);
      const A rho_inf = h(9);
      const A rho_t = rho_inf - A(2) * static_cast<A>(t) * exp(static_cast<A>(t) * h(6)) / bc2;
      if (rho_t > A(5)) {
        extra = sqrt((rho_t - A(4)) * (rho_t - A(2)) * rho_inf / ((rho_inf - A(4)) * (rho_inf - A(2)) * rho_t));
      }
    } else if (alg == OptimAlgorithm::Adagrad) {
      step_size = -(h(0) / (A(1) + (static_cast<A>(t) - A(1)) * h(1)));
    } else if (alg == OptimAlgorithm::NAdam) {
      const A mu = h(1) * (A(1) - A(0.5) * exp(static_cast<A>(t) * h(9)));
      const A mu_next = h(1) * (A(1) - A(0.5) * exp(static_cast<A>(t + 1.0f) * h(9)));
      const float old_product = fresh ? 1.0f : seg.steps[2 + seg.parity];
      const float mu_product = skip ? old_product : old_product * static_cast<float>(mu);
      if (writes_scalars) seg.steps[2 + (seg.parity ^ 1)] = mu_product;
      bc2_sqrt = sqrt(-expm1(static_cast<A>(t) * h(6)));
      step_size = h(0) * (A(1) - mu) / (A(1) - static_cast<A>(mu_product));
      extra = h(0) * mu_next / (A(1) - static_cast<A>(mu_product) * mu_next);
    } else if (alg == OptimAlgorithm::ASGD) {  // the last step's eta and mu; the next ones for the next step
      const float old_eta = fresh ? static_cast<float>(h(0)) : seg.steps[2 + seg.parity];
      const float old_mu = fresh ? 1.0f : seg.steps[4 + seg.parity];
      if (writes_scalars) {
        const A eta = h(0) * exp(-h(2) * log1p(h(5) * static_cast<A>(t)));
        const A mu = A(1) / max(A(1), static_cast<A>(t) - h(3));
        seg.steps[2 + (seg.parity ^ 1)] = skip ? old_eta : static_cast<float>(eta);
        seg.steps[4 + (seg.parity ^ 1)] = skip ? old_mu : static_cast<float>(mu);
      }
      step_size = static_cast<A>(old_eta);
      extra = static_cast<A>(old_mu);
    }
  }

  // A skipped step writes only a fresh parameter's initial state: zeros, and Rprop's step size lr
  // (Adagrad's is made filled).
  if (skip && (!fresh || alg == OptimAlgorithm::Adagrad)) return;
  auto initial_state = [&](int slot) { return alg == OptimAlgorithm::Rprop && slot == 1 ? h(0) : A(0); };
  for (int k = 0; k < kElems; ++k) {
    const int64_t i = start + k * kThreadsPerBlock + threadIdx.x;
    if (i >= seg.count) break;
    if (skip) {
      for (int slot = 0; slot < kMaxOptimStates; ++slot) {
        if (seg.state[slot]) store_as<A>(p.dtype, seg.state[slot], i, initial_state(slot));
      }
      continue;
    }
    A param = load_as<A>(p.dtype, seg.param, i);
    A g = load_as<A>(p.dtype, seg.grad, i);
    if (flag(kOptimMaximize)) g = -g;
    auto load_state = [&](int slot) { return fresh ? initial_state(slot) : load_as<A>(p.dtype, seg.state[slot], i); };
    auto store_state = [&](int slot, A value) { store_as<A>(p.dtype, seg.state[slot], i, value); };
    switch (alg) {
      case OptimAlgorithm::SGD:
        if (flag(kOptimWeightDecay)) g = g + h(3) * param;
        if (flag(kOptimMomentum)) {
          A buf = g;
          if (!fresh) buf = load_state(0) * h(1) + h(2) * g;
          store_state(0, buf);
          g = flag(kOptimNesterov) ? g + h(1) * buf : buf;
        }
        param = param + h(0) * g;
        break;
      case OptimAlgorithm::Adam: {
        if (flag(kOptimDecoupled)) {
          param = param * h(9);
        } else if (flag(kOptimWeightDecay)) {
          g = g + h(4) * param;
        }
        const A m = load_state(0) * h(1) + h(7) * g;
        const A v = load_state(1) * h(2) + h(8) * g * g;
        store_state(0, m);
        store_state(1, v);
        A v_used = v;
        if (flag(kOptimAmsgrad)) {
          v_used = max(load_state(2), v);
          store_state(2, v_used);
        }
        const A denom = sqrt(v_used) / bc2_sqrt + h(3);
        param = param + (-step_size) * m / denom;
        break;
      }
      case OptimAlgorithm::RMSprop: {
        if (flag(kOptimWeightDecay)) g = g + h(4) * param;
        const A sq = load_state(0) * h(1) + h(2) * g * g;
        store_state(0, sq);
        A avg;
        if (flag(kOptimCentered)) {
          const A ga = load_state(2) * h(1) + h(2) * g;
          store_state(2, ga);
          avg = sqrt(sq + A(-1) * ga * ga) + h(3);
        } else {
          avg = sqrt(sq) + h(3);
        }
        if (flag(kOptimMomentum)) {
          const A buf = load_state(1) * h(5) + g / avg;
          store_state(1, buf);
          param = param + h(0) * buf;
        } else {
          param = param + h(0) * g / avg;
        }
        break;
      }
      case OptimAlgorithm::Adamax: {
        if (flag(kOptimWeightDecay)) g = g + h(4) * param;
        const A m = load_state(0) * h(1) + h(7) * g;
        const A u = maximum(load_state(1) * h(2), fabs(g) + h(3));  // torch.amax keeps a NaN
        store_state(0, m);
        store_state(1, u);
        param = param + (-step_size) * m / u;
        break;
      }
      case OptimAlgorithm::Adadelta: {
        if (flag(kOptimWeightDecay)) g = g + h(4) * param;
        const A sq = load_state(0) * h(1) + h(2) * g * g;
        const A acc = load_state(1);
        const A delta = sqrt(acc + h(3)) / sqrt(sq + h(3)) * g;
        store_state(0, sq);
        store_state(1, acc * h(1) + h(2) * delta * delta);
        param = param + h(0) * delta;
        break;
      }
      case OptimAlgorithm::RAdam: {
        if (flag(kOptimWeightDecay)) g = g + h(4) * param;
        const A m = load_state(0) * h(1) + h(7) * g;
        const A v = load_state(1) * h(2) + h(8) * g * g;
        store_state(0, m);
        store_state(1, v);
        const A corrected = m / step_size;
        param = extra > A(0) ? param - corrected * h(0) * (bc2_sqrt / (sqrt(v) + h(3))) * extra
                             : param - corrected * h(0);
        break;
      }
      case OptimAlgorithm::Rprop: {  // as optim.comp's rprop(): Python's rewrites of the sign, whose NaN is 0
        const A product = g * load_state(0);
        A factor = product > A(0) ? h(2) : (product < A(0) ? h(1) : A(0));
        if (factor == A(0)) factor = A(1);
        if (factor == h(1)) g = A(0);
        const A size = as_stored(p.dtype, min(max(load_state(1) * factor, h(3)), h(4)));
        store_state(0, g);
        store_state(1, size);
        param = param - (g > A(0) ? A(1) : (g < A(0) ? A(-1) : A(0))) * size;
        break;
      }
      case OptimAlgorithm::NAdam: {  // step_size and extra: the gradient's and the average's coefficients
        if (flag(kOptimWeightDecay)) g = g + h(4) * param;
        const A m = load_state(0) * h(1) + h(7) * g;
        const A v = load_state(1) * h(2) + h(8) * g * g;
        store_state(0, m);
        store_state(1, v);
        const A denom = sqrt(v) / bc2_sqrt + h(3);
        param = param + (-step_size) * (g / denom);
        param = param + (-extra) * (m / denom);
        break;
      }
      case OptimAlgorithm::ASGD: {  // step_size and extra: the last step's eta and mu
        if (flag(kOptimWeightDecay)) g = g + h(4) * param;
        param = param * (A(1) - h(1) * step_size);
        param = param + (-step_size) * g;
        store_state(0, extra != A(1) ? load_state(0) + (param - load_state(0)) * extra : param);
        break;
      }
      case OptimAlgorithm::Adagrad: {
        if (flag(kOptimWeightDecay)) g = g + h(2) * param;
        const A sum = load_as<A>(p.dtype, seg.state[0], i) + g * g;
        store_state(0, sum);
        param = param + step_size * g / (sqrt(sum) + h(3));
        break;
      }
    }
    store_as<A>(p.dtype, seg.param, i, param);
  }
}

class CudaOptim final : public OptimKernels {
 public:
  explicit CudaOptim(CudaDevice&) {}

  void step(Stream& stream, const OptimStepArgs& args) override {
    args.check();
    if (args.tensors.empty()) return;
    const DType dtype = args.tensors.front().param.dtype;
    CudaStream& cuda_stream = CudaStream::of(stream);
    ScopedDevice device(cuda_stream.context());

    OptimLaunch launch{};
    launch.algorithm = static_cast<int>(args.algorithm);
    launch.dtype = dtype_code(dtype);
    launch.skip_if = nullptr;
    if (args.skip_if) {
      launch.skip_if = static_cast<const float*>(device_pointer(*args.skip_if->allocation, args.skip_if->byte_offset));
    }
    const OptimKernelOptions options = optim_kernel_options(args.algorithm, args.hyper, dtype);
    std::copy(options.h.begin(), options.h.end(), launch.h);
    launch.flags = options.flags;

    const size_t element = element_size(dtype);
    std::vector<Allocation*> touched;
    int blocks = 0;
    auto flush = [&] {
      if (launch.segment_count == 0) return;
      if (dtype == DType::Float64) {
        optim_kernel<double><<<blocks, kThreadsPerBlock, 0, cuda_stream.handle()>>>(launch);
      } else {
        optim_kernel<float><<<blocks, kThreadsPerBlock, 0, cuda_stream.handle()>>>(launch);
      }
      check_launch(cuda_stream, "the optimizer kernel's launch");
      cuda_stream.note_dispatch({});
      const uint64_t value = cuda_stream.pending_value();
      const std::shared_ptr<Stream> self = stream.shared_from_this();
      for (Allocation* allocation : touched) allocation->record_use(self, value);
      if (args.skip_if) args.skip_if->allocation->record_use(self, value);
      touched.clear();
      launch.segment_count = 0;
      blocks = 0;
    };
    for (const OptimTensor& t : args.tensors) {
      const int64_t numel = t.param.numel();
      for (int64_t first = 0; first < numel; first += kSegmentElements) {
        if (launch.segment_count == kSegmentsPerLaunch) flush();
        OptimSegment& seg = launch.segments[launch.segment_count++];
        const uint64_t offset = static_cast<uint64_t>(first) * element;
        seg.param = device_pointer(*t.param.allocation, t.param.byte_offset + offset);
        seg.grad = device_pointer(*t.grad.allocation, t.grad.byte_offset + offset);
        touched.push_back(t.param.allocation);
        touched.push_back(t.grad.allocation);
        for (int s = 0; s < kMaxOptimStates; ++s) {
          seg.state[s] = nullptr;
          if (!t.state[s]) continue;
          seg.state[s] = device_pointer(*t.state[s]->allocation, t.state[s]->byte_offset + offset);
          touched.push_back(t.state[s]->allocation);
        }
        seg.steps = nullptr;
        if (t.steps) {
          seg.steps = static_cast<float*>(device_pointer(*t.steps->allocation, t.steps->byte_offset));
          touched.push_back(t.steps->allocation);
        }
        seg.count = std::min(kSegmentElements, numel - first);
        seg.first_block = blocks;
        seg.parity = t.parity;
        seg.fresh = t.fresh ? 1 : 0;
        blocks += static_cast<int>((seg.count + kTile - 1) / kTile);
      }
    }
    flush();
  }
};

}  // namespace

EMBER_CUDA_KERNELS(OptimKernels, CudaOptim);

}  // namespace ember::cuda
