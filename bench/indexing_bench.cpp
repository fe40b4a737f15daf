// The index kernels (shaders/index/): gather, index_select, scatter and index_add on float32, in the
// shapes of an embedding lookup and its gradient and of a row-wise gather and scatter. Milliseconds per
// op, the dispatches one op records, and PyTorch's CPU time for the same op on the same shapes in the same
// run (bench/torch_reference.py --indexing-cpu, through EMBER_PYTHON, default /usr/bin/python3) as
// `vs_torch`. Each op moves 1 Mi elements, so `ns_per_element` compares the kernels' per-element cost.
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

constexpr int64_t kSide = 1024;            // the row-wise ops: 1024 × 1024
constexpr int64_t kVocabulary = 30000;     // the embedding: 30000 × 128, 8192 lookups
constexpr int64_t kWidth = 128;
constexpr int64_t kLookups = 8192;
constexpr double kElements = 1 << 20;

const std::map<std::string, double>& torch_ms() {
  static const std::map<std::string, double> times = torch_ms_by_name("torch_reference.py --indexing-cpu", "indexing");
  return times;
}

void run(benchmark::State& state, const std::string& name, const std::function<void()>& op) {
  run_beside_torch(state, name, torch_ms(), op);
  state.counters["ns_per_element"] = state.counters["ms"] * 1e6 / kElements;
}

ember::TensorOptions f32() { return ember::TensorOptions(ember::kFloat32).device(bench_device()); }
ember::TensorOptions i64() { return ember::TensorOptions(ember::kInt64).device(bench_device()); }
Tensor square() { return ember::rand({kSide, kSide}, f32()); }
Tensor square_indices() { return ember::randint(0, kSide, {kSide, kSide}, i64()); }
Tensor lookups() { return ember::randint(0, kVocabulary, {kLookups}, i64()); }

void BM_GatherRows(benchmark::State& state) {
  const Tensor x = square(), index = square_indices();
  run(state, "gather_1024x1024_dim1", [&] { benchmark::DoNotOptimize(x.gather(1, index)); });
}

void BM_GatherColumns(benchmark::State& state) {
  const Tensor x = square(), index = square_indices();
  run(state, "gather_1024x1024_dim0", [&] { benchmark::DoNotOptimize(x.gather(0, index)); });
}

void BM_EmbeddingLookup(benchmark::State& state) {
  const Tensor weight = ember::rand({kVocabulary, kWidth}, f32()), ids = lookups();
  run(state, "index_select_30000x128_8192", [&] { benchmark::DoNotOptimize(weight.index_select(0, ids)); });
}

void BM_ScatterRows(benchmark::State& state) {
  const Tensor zeros = ember::zeros({kSide, kSide}, f32()), src = square(), index = square_indices();
  run(state, "scatter_1024x1024_dim1", [&] { benchmark::DoNotOptimize(zeros.scatter(1, index, src)); });
}

void BM_ScatterAddRows(benchmark::State& state) {
  const Tensor zeros = ember::zeros({kSide, kSide}, f32()), src = square(), index = square_indices();
  run(state, "scatter_add_1024x1024_dim1", [&] { benchmark::DoNotOptimize(zeros.scatter_add(1, index, src)); });
}

void BM_EmbeddingGradient(benchmark::State& state) {
  const Tensor zeros = ember::zeros({kVocabulary, kWidth}, f32()), ids = lookups();
  const Tensor gradient = ember::rand({kLookups, kWidth}, f32());
  run(state, "index_add_30000x128_8192", [&] { benchmark::DoNotOptimize(zeros.index_add(0, ids, gradient)); });
}

#define EMBER_INDEXING_BENCHMARK(function, name) \
  BENCHMARK(function)->Name(name)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(1.0)
EMBER_INDEXING_BENCHMARK(BM_GatherRows, "BM_Indexing/gather_1024x1024_dim1");
EMBER_INDEXING_BENCHMARK(BM_GatherColumns, "BM_Indexing/gather_1024x1024_dim0");
EMBER_INDEXING_BENCHMARK(BM_EmbeddingLookup, "BM_Indexing/index_select_30000x128_8192");
EMBER_INDEXING_BENCHMARK(BM_ScatterRows, "BM_Indexing/scatter_1024x1024_dim1");
EMBER_INDEXING_BENCHMARK(BM_ScatterAddRows, "BM_Indexing/scatter_add_1024x1024_dim1");
EMBER_INDEXING_BENCHMARK(BM_EmbeddingGradient, "BM_Indexing/index_add_30000x128_8192");

}  // namespace
}  // namespace ember_bench
