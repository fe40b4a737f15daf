// Per-op overheads on tiny tensors, where the data is negligible: what the host pays to record an op,
// and what one op of a dependent chain costs end to end (the figure fused kernels are meant to cut).
#include <benchmark/benchmark.h>

#include <chrono>

#include "bench/bandwidth.h"
#include "bench/bench_device.h"

namespace ember_bench {
namespace {

constexpr int64_t kTinyElements = 256;
// Under the stream's 256-dispatch batch limit, so that no submit happens inside the timed region.
constexpr int64_t kRecordsPerSync = 128;
constexpr int64_t kChainElements = 4096;
constexpr int kChainLength = 1000;

using Clock = std::chrono::steady_clock;

double nanoseconds(Clock::duration elapsed) {
  return std::chrono::duration<double, std::nano>(elapsed).count();
}

// Records one op per iteration; the GPU work is drained outside the timed region so that the host never
// stalls on the batch limit or on memory the queue still holds.
void record_loop(benchmark::State& state, ember::Stream& stream, const std::function<void()>& record) {
  // The counter is timed here in blocks, not per op, so that reading the clock costs next to nothing;
  // it matches the Time column and is there to give JSON readers a plainly named figure.
  int64_t recorded = 0;
  Clock::duration recording{};
  Clock::time_point block_start = Clock::now();
  for (auto _ : state) {
    record();
    if (++recorded % kRecordsPerSync == 0) {
      recording += Clock::now() - block_start;
      state.PauseTiming();
      stream.synchronize();
      state.ResumeTiming();
      block_start = Clock::now();
    }
  }
  recording += Clock::now() - block_start;
  stream.synchronize();
  state.counters["ns_per_op"] = nanoseconds(recording) / static_cast<double>(recorded);
}

void BM_RecordFill(benchmark::State& state) {
  ember::Device& device = *bench_device();
  auto out = device.allocate(kTinyElements * sizeof(float));
  const ember::TensorRef view = float_view(*out);
  auto stream = device.default_stream();
  record_loop(state, *stream, [&] { device.kernels().get<ember::MemoryKernels>().fill(*stream, {view, 2.0}); });
}

void BM_RecordAdd(benchmark::State& state) {
  ember::Device& device = *bench_device();
  auto a = ones_buffer(device, kTinyElements * sizeof(float));
  auto b = ones_buffer(device, kTinyElements * sizeof(float));
  auto out = device.allocate(kTinyElements * sizeof(float));
  const ember::TensorRef a_view = float_view(*a);
  const ember::TensorRef b_view = float_view(*b);
  const ember::TensorRef out_view = float_view(*out);
  auto stream = device.default_stream();
  record_loop(state, *stream, [&] {
    device.kernels().get<ember::ElementwiseKernels>().binary(*stream, {.op = ember::BinaryOp::Add, .out = out_view, .a = a_view, .b = b_view, .compute = ember::DType::Float32});
  });
}

// x = x + y, kChainLength times: every op depends on the one before, so each needs a barrier and the
// device cannot overlap them. One iteration is one whole chain, synchronize included.
void BM_DependentAddChain(benchmark::State& state) {
  ember::Device& device = *bench_device();
  const uint64_t bytes = kChainElements * sizeof(float);
  auto x = device.allocate(bytes);
  auto y = device.allocate(bytes);
  const ember::TensorRef x_view = float_view(*x);
  const ember::TensorRef y_view = float_view(*y);
  auto stream = device.default_stream();
  ember::MemoryKernels& memory = device.kernels().get<ember::MemoryKernels>();
  ember::ElementwiseKernels& elementwise = device.kernels().get<ember::ElementwiseKernels>();
  // Small values keep x far from overflow however many chains run.
  memory.fill(*stream, {x_view, 0.0});
  memory.fill(*stream, {y_view, 1e-3});
  stream->synchronize();

  const ember::StreamStats before = stream->stats();
  Clock::duration chained{};
  for (auto _ : state) {
    const Clock::time_point start = Clock::now();
    for (int i = 0; i < kChainLength; ++i) {
      elementwise.binary(*stream, {.op = ember::BinaryOp::Add, .out = x_view, .a = x_view, .b = y_view,
                                   .compute = ember::DType::Float32});
    }
    stream->synchronize();
    chained += Clock::now() - start;
  }
  const ember::StreamStats after = stream->stats();

  const auto chains = static_cast<double>(state.iterations());
  state.counters["us_per_op"] = nanoseconds(chained) * 1e-3 / (chains * kChainLength);
  state.counters["submits_per_chain"] = static_cast<double>(after.submits - before.submits) / chains;
  state.counters["barriers_per_chain"] =
      static_cast<double>(after.barriers - before.barriers) / chains;
  state.counters["host_waits_per_chain"] =
      static_cast<double>(after.host_waits - before.host_waits) / chains;
}

BENCHMARK(BM_RecordFill)->UseRealTime()->MinTime(0.2);
BENCHMARK(BM_RecordAdd)->UseRealTime()->MinTime(0.2);
BENCHMARK(BM_DependentAddChain)->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);

}  // namespace
}  // namespace ember_bench
