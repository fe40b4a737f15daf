// The ops built on the sort kernel: one sort of a long row, and unique, unique_consecutive, mode, quantile
// and searchsorted composed on it. Milliseconds per op, the dispatches one op records, and PyTorch's CPU
// time for the same op on the same inputs in the same run (bench/torch_reference.py --sorting-cpu,
// through EMBER_PYTHON, default /usr/bin/python3) as `vs_torch`.
#include <benchmark/benchmark.h>

#include <functional>
#include <map>
#include <string>

#include "bench/bench_device.h"
#include "bench/op_beside_torch.h"
#include "ember.h"

namespace ember_bench {
namespace {

using ember::Tensor;

// PyTorch's CPU milliseconds per op, by benchmark name. Run once.
const std::map<std::string, double>& torch_ms() {
  static const std::map<std::string, double> times = torch_ms_by_name("torch_reference.py --sorting-cpu", "sorting");
  return times;
}

void run(benchmark::State& state, const std::string& name, const std::function<void()>& op) {
  run_beside_torch(state, name, torch_ms(), op);
}

// The inputs of torch_reference.py's sorting_cpu(), drawn here on the device.
ember::TensorOptions on_device() { return ember::TensorOptions().device(bench_device()); }
Tensor long_floats() { return ember::rand({1 << 20}, on_device()); }
Tensor long_integers() { return ember::randint(0, 1000, {1 << 20}, on_device()); }

void BM_SortLongRow(benchmark::State& state) {
  const Tensor x = long_floats();
  run(state, "sort_2p20_f32", [&] { benchmark::DoNotOptimize(x.sort()); });
}

void BM_Unique(benchmark::State& state) {
  const Tensor x = long_integers();
  run(state, "unique_2p20_i64", [&] { benchmark::DoNotOptimize(x.unique(true, true, true)); });
}

void BM_UniqueConsecutive(benchmark::State& state) {
  const Tensor x = long_integers();
  run(state, "unique_consecutive_2p20_i64", [&] { benchmark::DoNotOptimize(x.unique_consecutive(true, true)); });
}

void BM_UniqueRows(benchmark::State& state) {
  const Tensor x = ember::randint(0, 2, {4096, 16}, on_device());
  run(state, "unique_rows_4096x16", [&] { benchmark::DoNotOptimize(x.unique(true, true, true, 0)); });
}

void BM_Mode(benchmark::State& state) {
  const Tensor x = ember::randint(0, 8, {256, 64}, on_device()).to(ember::kFloat32);
  run(state, "mode_256x64", [&] { benchmark::DoNotOptimize(x.mode()); });
}

void BM_Quantile(benchmark::State& state) {
  const Tensor x = long_floats();
  run(state, "quantile_2p20_f32", [&] { benchmark::DoNotOptimize(x.quantile(0.3)); });
}

void BM_Searchsorted(benchmark::State& state) {
  const Tensor sequence = std::get<0>(ember::rand({1000}, on_device()).sort());
  const Tensor values = ember::rand({1 << 16}, on_device());
  run(state, "searchsorted_1000_2p16", [&] { benchmark::DoNotOptimize(ember::searchsorted(sequence, values)); });
}

#define EMBER_SORTING_BENCHMARK(function, name) \
  BENCHMARK(function)->Name(name)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(1.0)
EMBER_SORTING_BENCHMARK(BM_SortLongRow, "BM_SortOps/sort_2p20_f32");
EMBER_SORTING_BENCHMARK(BM_Unique, "BM_SortOps/unique_2p20_i64");
EMBER_SORTING_BENCHMARK(BM_UniqueConsecutive, "BM_SortOps/unique_consecutive_2p20_i64");
EMBER_SORTING_BENCHMARK(BM_UniqueRows, "BM_SortOps/unique_rows_4096x16");
EMBER_SORTING_BENCHMARK(BM_Mode, "BM_SortOps/mode_256x64");
EMBER_SORTING_BENCHMARK(BM_Quantile, "BM_SortOps/quantile_2p20_f32");
EMBER_SORTING_BENCHMARK(BM_Searchsorted, "BM_SortOps/searchsorted_1000_2p16");

}  // namespace
}  // namespace ember_bench
