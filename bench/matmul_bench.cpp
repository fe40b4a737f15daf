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

struct Shape {
  int64_t M, K, N;
  bool linear;  // B is W^T (strides 1, K) and a bias row is added
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
  const auto [M, K, N, linear] = shape;
  // Ones: no denormals or NaN, and every result is exactly K.
  auto a = ones_buffer(device, M * K * sizeof(float));
  auto b = ones_buffer(device, K * N * sizeof(float));
  auto bias = ones_buffer(device, N * sizeof(float));
  auto out = device.allocate(M * N * sizeof(float));

  ember::MatmulArgs args;
  args.out = matrix(*out, M, N, N, 1);
  args.a = matrix(*a, M, K, K, 1);
  args.b = linear ? matrix(*b, K, N, 1, K) : matrix(*b, K, N, N, 1);
  if (linear) {
    args.bias = matrix(*bias, M, N, 0, 1);
    args.beta = 1.0;
  }
  // Pipelines are created (and on lavapipe compiled) on first use, outside the timed region: the same
  // product with K cut to 1 or 2 (same parity, so the same paired loads) picks the same pipeline.
  ember::MatmulArgs warm = args;
  warm.a.sizes[2] = warm.b.sizes[1] = K % 2 == 0 ? 2 : 1;
  device.kernels().get<ember::MatmulKernels>().matmul(*stream, warm);
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
    {256, 256, 256, false},   {512, 512, 512, false}, {1024, 1024, 1024, false},
    {2048, 2048, 2048, false},
    // Fashion-MNIST MLP, batch 64 and 256: 784 → 256 → 10, and 784 → 128.
    {64, 784, 256, true},     {64, 256, 10, true},    {256, 784, 128, true},
};

[[maybe_unused]] const bool registered = [] {
  for (const char* variant : {"register", "tiled"}) {
    for (const Shape& shape : kShapes) {
      const std::string name = std::string(shape.linear ? "BM_MatmulLinear/" : "BM_Matmul/") + variant +
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
