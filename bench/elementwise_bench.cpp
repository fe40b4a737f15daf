// Contiguous elementwise kernels beside the plainest shaders that do the same work (bench/shaders/, one
// element per invocation through storage-buffer descriptors), in the same run: the reference add is the
// 4.8 GB/s of DESIGN.md ("Memory"). vs_reference is a kernel's rate over its reference's at the same size,
// so that it holds on a shared machine where both move together.
#include <benchmark/benchmark.h>

#include <functional>

#include "bench/bandwidth.h"
#include "bench/bench_device.h"
#include "bench/reference_shaders.h"

namespace ember_bench {
namespace {

double rate_of(benchmark::State& state, double seconds, int ops, uint64_t bytes_per_op) {
  const auto bytes_per_round = static_cast<int64_t>(bytes_per_op) * ops;
  state.SetBytesProcessed(bytes_per_round * static_cast<int64_t>(state.iterations()));
  state.counters["ops_per_sync"] = ops;
  return seconds > 0 ? static_cast<double>(bytes_per_round) * state.iterations() / seconds : 0;
}

void BM_ReferenceShader(benchmark::State& state, Reference kind) {
  if (!has_reference_shaders()) {
    state.SkipWithError("the reference shaders run on Vulkan devices only");
    return;
  }
  ember::Device& device = *bench_device();
  const auto bytes = static_cast<uint64_t>(state.range(0));
  const ReferenceLaunch launch(device, kind, bytes);
  auto stream = device.default_stream();
  const int ops = ops_per_sync(bytes);
  double seconds = 0;
  for (auto _ : state) {
    const double round = time_synchronized(*stream, ops, [&] { launch.record(*stream); });
    state.SetIterationTime(round);
    seconds += round;
  }
  rate_of(state, seconds, ops, launch.bytes_per_op());
}

// Times `record` (one kernel over arrays of `bytes`) and adds vs_reference.
void run_kernel(benchmark::State& state, Reference kind, uint64_t bytes, uint64_t bytes_per_op,
                const std::function<void()>& record) {
  ember::Device& device = *bench_device();
  auto stream = device.default_stream();
  const int ops = ops_per_sync(bytes);
  double seconds = 0;
  for (auto _ : state) {
    const double round = time_synchronized(*stream, ops, record);
    state.SetIterationTime(round);
    seconds += round;
  }
  const double rate = rate_of(state, seconds, ops, bytes_per_op);
  if (has_reference_shaders()) state.counters["vs_reference"] = rate / reference_bytes_per_second(kind, bytes);
}

using ember::DType;
using ember::TensorRef;

// A float32 view of `numel` elements starting `offset` elements into `allocation`.
TensorRef float_elements(ember::Allocation& allocation, int64_t numel, int64_t offset = 0) {
  return TensorRef::contiguous(allocation, DType::Float32, {numel}, static_cast<uint64_t>(offset) * 4);
}

void BM_ReluKernel(benchmark::State& state) {
  ember::Device& device = *bench_device();
  const auto bytes = static_cast<uint64_t>(state.range(0));
  auto in = ones_buffer(device, bytes);
  auto out = device.allocate(bytes);
  auto stream = device.default_stream();
  const ember::UnaryArgs args{.op = ember::UnaryOp::Relu, .out = float_view(*out), .in = float_view(*in),
                              .compute = DType::Float32};
  run_kernel(state, Reference::Copy, bytes, 2 * bytes,
             [&] { device.kernels().get<ember::ElementwiseKernels>().unary(*stream, args); });
}

void BM_MulScalarKernel(benchmark::State& state) {
  ember::Device& device = *bench_device();
  const auto bytes = static_cast<uint64_t>(state.range(0));
  auto in = ones_buffer(device, bytes);
  auto out = device.allocate(bytes);
  auto stream = device.default_stream();
  const ember::BinaryArgs args{.op = ember::BinaryOp::Mul, .out = float_view(*out), .a = float_view(*in),
                               .b = ember::Scalar(0.5), .compute = DType::Float32};
  run_kernel(state, Reference::Copy, bytes, 2 * bytes,
             [&] { device.kernels().get<ember::ElementwiseKernels>().binary(*stream, args); });
}

// float32 to float16: reads `bytes`, writes half of it.
void BM_CastKernel(benchmark::State& state) {
  ember::Device& device = *bench_device();
  const auto bytes = static_cast<uint64_t>(state.range(0));
  const auto numel = static_cast<int64_t>(bytes / sizeof(float));
  auto in = ones_buffer(device, bytes);
  auto out = device.allocate(bytes / 2);
  auto stream = device.default_stream();
  const ember::UnaryArgs args{.op = ember::UnaryOp::Cast,
                              .out = TensorRef::contiguous(*out, DType::Float16, {numel}),
                              .in = float_view(*in), .compute = DType::Float32};
  run_kernel(state, Reference::Copy, bytes, bytes + bytes / 2,
             [&] { device.kernels().get<ember::ElementwiseKernels>().unary(*stream, args); });
}

// The add with `a` one element into its buffer: contiguous, but not aligned to the others, so it takes
// the fast path's element-by-element loads.
void BM_AddKernelMisaligned(benchmark::State& state) {
  ember::Device& device = *bench_device();
  const auto bytes = static_cast<uint64_t>(state.range(0));
  const auto numel = static_cast<int64_t>(bytes / sizeof(float));
  auto a = ones_buffer(device, bytes + 16);
  auto b = ones_buffer(device, bytes);
  auto out = device.allocate(bytes);
  auto stream = device.default_stream();
  const ember::BinaryArgs args{.op = ember::BinaryOp::Add, .out = float_view(*out),
                               .a = float_elements(*a, numel, 1), .b = float_view(*b),
                               .compute = DType::Float32};
  run_kernel(state, Reference::Add, bytes, 3 * bytes,
             [&] { device.kernels().get<ember::ElementwiseKernels>().binary(*stream, args); });
}

void reference_sizes(benchmark::internal::Benchmark* b) {
  b->ArgName("bytes")->Arg(1 * kMiB)->Arg(16 * kMiB)->Arg(64 * kMiB);
  b->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
}
void kernel_sizes(benchmark::internal::Benchmark* b) {
  b->ArgName("bytes")->Arg(16 * kMiB);
  b->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
}

BENCHMARK_CAPTURE(BM_ReferenceShader, add, Reference::Add)->Apply(reference_sizes);
BENCHMARK_CAPTURE(BM_ReferenceShader, copy, Reference::Copy)->Apply(reference_sizes);
BENCHMARK(BM_ReluKernel)->Apply(kernel_sizes);
BENCHMARK(BM_MulScalarKernel)->Apply(kernel_sizes);
BENCHMARK(BM_CastKernel)->Apply(kernel_sizes);
BENCHMARK(BM_AddKernelMisaligned)->Apply(kernel_sizes);

}  // namespace
}  // namespace ember_bench
