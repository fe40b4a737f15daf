// Matmul throughput in GFLOP/s (2·M·N·K per op), float32, for each Vulkan kernel forced through
// EMBER_MATMUL_VARIANT: square sizes, and the Linear layers of the reference training task
// (x @ W^T + b with W stored out × in, so B arrives transposed and the bias broadcast along rows).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>

#include "bench/bandwidth.h"
#include "bench/bench_device.h"
#include "shaders/matmul/matmul_variant.h"

namespace ember_bench {
namespace {

// Work recorded per host wait: about a GFLOP, so that the ~70 µs dispatch and the submit-and-wait
// latency do not hide the kernel at small sizes, and at most one op where a single op is larger.
constexpr double kFlopsPerRound = 1e9;
constexpr int kMaxOpsPerRound = 64;

// How a shape's operands lie: a plain row-major product; a Linear layer's forward (B is W^T, strides 1
// and K, and a bias row is added); a Linear layer's weight gradient, grad_out^T @ x (A is the transpose
// of a row-major batch × M grad_out, so its elements are adjacent along M, not K).
enum class Layout { Plain, Linear, WeightGrad };

struct Shape {
  int64_t M, K, N;
  Layout layout;
};

ember::TensorRef matrix(ember::Allocation& allocation, int64_t rows, int64_t cols, int64_t row_stride,
                        int64_t col_stride) {
  ember::TensorRef ref = ember::TensorRef::contiguous(allocation, ember::DType::Float32, {1, rows, cols});
  ref.strides = {rows * cols, row_stride, col_stride};
  return ref;
}

void BM_Matmul(benchmark::State& state, const char* variant, Shape shape) {
  ember::vulkan::ScopedMatmulVariant scoped(variant);
  ember::Device& device = *bench_device();
  auto stream = device.default_stream();
  const auto [M, K, N, layout] = shape;
  const bool linear = layout == Layout::Linear;
  // Ones: no denormals or NaN, and every result is exactly K.
  auto a = ones_buffer(device, M * K * sizeof(float));
  auto b = ones_buffer(device, K * N * sizeof(float));
  auto bias = ones_buffer(device, N * sizeof(float));
  auto out = device.allocate(M * N * sizeof(float));

  ember::MatmulArgs args;
  args.out = matrix(*out, M, N, N, 1);
  args.a = layout == Layout::WeightGrad ? matrix(*a, M, K, 1, M) : matrix(*a, M, K, K, 1);
  args.b = linear ? matrix(*b, K, N, 1, K) : matrix(*b, K, N, N, 1);
  if (linear) {
    args.bias = matrix(*bias, M, N, 0, 1);
    args.beta = 1.0;
  }
  // Pipelines are created (and on lavapipe compiled) on first use: one untimed op first. (A warm-up with
  // K cut to 1 or 2 picked other register blocks than the real K on the CNN's GEMM shapes, so the timed
  // round compiled its pipeline: 12544x64x288 read 0.67 GFLOP/s.)
  device.kernels().get<ember::MatmulKernels>().matmul(*stream, args);
  stream->synchronize();

  const double flops_per_op = 2.0 * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  const int ops = static_cast<int>(std::clamp(kFlopsPerRound / flops_per_op, 1.0, double{kMaxOpsPerRound}));
  double seconds = 0;
  const double cpu_start = process_cpu_seconds();
  for (auto _ : state) {
    const double round = time_synchronized(*stream, ops, [&] { device.kernels().get<ember::MatmulKernels>().matmul(*stream, args); });
    state.SetIterationTime(round);
    seconds += round;
  }
  const double flops = flops_per_op * ops * static_cast<double>(state.iterations());
  state.counters["GFLOP/s"] = seconds > 0 ? flops / seconds * 1e-9 : 0;
  state.counters["GFLOP_per_cpu_s"] = flops / (process_cpu_seconds() - cpu_start) * 1e-9;
  state.counters["ops_per_sync"] = ops;
}

const Shape kShapes[] = {
    {256, 256, 256, Layout::Plain},
    {512, 512, 512, Layout::Plain},
    {1024, 1024, 1024, Layout::Plain},
    {2048, 2048, 2048, Layout::Plain},
    // Fashion-MNIST MLP, batch 64 and 256: 784 → 256 → 10, and 784 → 128; the first layer's weight
    // gradient at batch 64.
    {64, 784, 256, Layout::Linear},
    {64, 256, 10, Layout::Linear},
    {256, 784, 128, Layout::Linear},
    {256, 64, 784, Layout::WeightGrad},
    // The Fashion-MNIST CNN's first Linear (3136 -> 128, batch 64): forward, weight gradient, input gradient.
    {64, 3136, 128, Layout::Linear},
    {128, 64, 3136, Layout::WeightGrad},
    {64, 128, 3136, Layout::Plain},
    // The Fashion-MNIST CNN's second convolution (batch 64, 32 -> 64 channels at 14x14, 3x3) lowered to
    // GEMMs over its 12,544 output positions: forward (positions x 288 taps) @ (288 x 64 channels), input
    // gradient (positions x 64) @ (64 x 288), weight gradient (64 x positions) @ (positions x 288). What a
    // GEMM path would spend beside BM_Conv's implicit kernels on the same layer (PERFORMANCE.md).
    {12544, 288, 64, Layout::Plain},
    {12544, 64, 288, Layout::Plain},
    {64, 12544, 288, Layout::Plain},
};

[[maybe_unused]] const bool registered = [] {
  for (const char* variant : {"register", "register-private", "tiled"}) {
    for (const Shape& shape : kShapes) {
      const char* family = shape.layout == Layout::Linear       ? "BM_MatmulLinear/"
                           : shape.layout == Layout::WeightGrad ? "BM_MatmulWeightGrad/"
                                                                : "BM_Matmul/";
      const std::string name = std::string(family) + variant +
                               "/" + std::to_string(shape.M) + "x" + std::to_string(shape.K) + "x" +
                               std::to_string(shape.N);
      benchmark::RegisterBenchmark(name.c_str(), BM_Matmul, variant, shape)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond)
          ->MinTime(0.5);
    }
  }
  return true;
}();

}  // namespace
}  // namespace ember_bench
