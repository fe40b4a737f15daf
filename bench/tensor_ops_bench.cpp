// Tensor ops as a fraction of the device copy roofline: elementwise ops on contiguous and strided
// (transposed) inputs and with a broadcast operand, softmax over rows, and reductions over all dims and
// over the inner or outer dim. Each op's bytes are
// what it must move at least: every input read once and the output written once.
#include <benchmark/benchmark.h>

#include "bench/bandwidth.h"
#include "bench/bench_device.h"
#include "ember.h"

namespace ember_bench {
namespace {

constexpr int64_t kSide = 2048;  // 2048 x 2048 float32: 16 MiB per tensor

void report(benchmark::State& state, uint64_t bytes_per_op, double seconds, uint64_t copy_size) {
  const double rate = seconds > 0 ? static_cast<double>(bytes_per_op) * state.iterations() / seconds : 0;
  state.SetBytesProcessed(static_cast<int64_t>(bytes_per_op) * static_cast<int64_t>(state.iterations()));
  state.counters["fraction_of_copy"] = rate / device_copy_bytes_per_second(*bench_device(), copy_size);
}

// Times `op` once per iteration, synchronised, and reports bandwidth against a copy of `copy_size`.
void run(benchmark::State& state, uint64_t bytes_per_op, const std::function<void()>& op) {
  auto stream = bench_device()->default_stream();
  // Compiles the op's pipelines outside the timing: BM_TensorSumAll's first call, over a contiguous
  // input, took 510 ms on lavapipe, its only iteration.
  time_synchronized(*stream, 1, op);
  double seconds = 0;
  for (auto _ : state) {
    const double round = time_synchronized(*stream, 1, op);
    state.SetIterationTime(round);
    seconds += round;
  }
  report(state, bytes_per_op, seconds, kSide * kSide * sizeof(float));
}

ember::Tensor square(bool transposed) {
  ember::Tensor t = ember::rand({kSide, kSide}, ember::TensorOptions().device(bench_device()));
  return transposed ? t.t() : t;
}

void BM_TensorAdd(benchmark::State& state) {
  const bool strided = state.range(0) != 0;
  const ember::Tensor a = square(strided), b = square(false);
  run(state, 3 * a.nbytes(), [&] { benchmark::DoNotOptimize(a + b); });
  state.SetLabel(strided ? "a transposed" : "contiguous");
}

void BM_TensorExp(benchmark::State& state) {
  const bool strided = state.range(0) != 0;
  const ember::Tensor a = square(strided);
  run(state, 2 * a.nbytes(), [&] { benchmark::DoNotOptimize(a.exp()); });
  state.SetLabel(strided ? "transposed" : "contiguous");
}

void BM_TensorSumAll(benchmark::State& state) {
  const ember::Tensor a = square(state.range(0) != 0);
  run(state, a.nbytes(), [&] { benchmark::DoNotOptimize(a.sum()); });
  state.SetLabel(state.range(0) ? "transposed" : "contiguous");
}

// A 2048 x 2048 operand and a broadcast one: a value per row ([2048, 1], as x - x.amax(1, true)), per
// column ([2048], a bias), or per channel of [32, 64, 32, 64] images ([1, 64, 1, 1]).
void BM_TensorBroadcast(benchmark::State& state) {
  const auto options = ember::TensorOptions().device(bench_device());
  const int64_t kind = state.range(0);
  const ember::Tensor a = kind == 2 ? ember::rand({32, 64, 32, 64}, options) : square(false);
  const ember::Tensor b = kind == 0   ? ember::rand({kSide, 1}, options)
                          : kind == 1 ? ember::rand({kSide}, options)
                                      : ember::rand({1, 64, 1, 1}, options);
  run(state, 2 * a.nbytes() + b.nbytes(), [&] { benchmark::DoNotOptimize(a - b); });
  state.SetLabel(kind == 0 ? "per row" : kind == 1 ? "per column" : "per channel");
}

void BM_TensorLogSoftmax(benchmark::State& state) {
  const ember::Tensor a = square(false);
  run(state, 2 * a.nbytes(), [&] { benchmark::DoNotOptimize(a.log_softmax(1)); });
}

void BM_TensorSumDim(benchmark::State& state) {
  const ember::Tensor a = square(false);
  const int64_t dim = state.range(0);
  run(state, a.nbytes(), [&] { benchmark::DoNotOptimize(a.sum({dim})); });
  state.SetLabel(dim == 1 ? "inner dim" : "outer dim");
}

void layouts(benchmark::internal::Benchmark* b) {
  b->ArgName("strided")->Arg(0)->Arg(1)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
}

BENCHMARK(BM_TensorAdd)->Apply(layouts);
BENCHMARK(BM_TensorExp)->Apply(layouts);
BENCHMARK(BM_TensorBroadcast)
    ->ArgName("kind")
    ->DenseRange(0, 2)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.5);
BENCHMARK(BM_TensorLogSoftmax)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_TensorSumAll)->Apply(layouts);
BENCHMARK(BM_TensorSumDim)->ArgName("dim")->Arg(0)->Arg(1)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);

}  // namespace
}  // namespace ember_bench
