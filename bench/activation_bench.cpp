// The activations of nn::functional on a 1024 x 1024 float32 tensor (4 MiB): the forward alone, and
// forward plus backward (the output's gradient given), one synchronised round each. The forward of a
// kernel activation moves 8 MiB; a composed one (softsign, tanhshrink, glu) or a backward formula moves
// more, one pass per op it is made of: the gap between rows shows what fusing would save.
#include <benchmark/benchmark.h>

#include <functional>
#include <string>
#include <vector>

#include "bench/bandwidth.h"
#include "bench/bench_device.h"
#include "ember.h"

namespace ember_bench {
namespace {

namespace F = ember::nn::functional;

constexpr int64_t kRows = 1024, kCols = 1024;

struct Activation {
  const char* name;
  std::function<ember::Tensor(const ember::Tensor& x, const ember::Tensor& weight)> apply;
};

const std::vector<Activation>& activations() {
  static const std::vector<Activation> list = {
      {"relu", [](const ember::Tensor& x, const ember::Tensor&) { return F::relu(x); }},
      {"gelu", [](const ember::Tensor& x, const ember::Tensor&) { return F::gelu(x); }},
      {"silu", [](const ember::Tensor& x, const ember::Tensor&) { return F::silu(x); }},
      {"elu", [](const ember::Tensor& x, const ember::Tensor&) { return F::elu(x); }},
      {"selu", [](const ember::Tensor& x, const ember::Tensor&) { return F::selu(x); }},
      {"leaky_relu", [](const ember::Tensor& x, const ember::Tensor&) { return F::leaky_relu(x); }},
      {"hardtanh", [](const ember::Tensor& x, const ember::Tensor&) { return F::hardtanh(x); }},
      {"hardsigmoid", [](const ember::Tensor& x, const ember::Tensor&) { return ember::hardsigmoid(x); }},
      {"hardswish", [](const ember::Tensor& x, const ember::Tensor&) { return ember::hardswish(x); }},
      {"softshrink", [](const ember::Tensor& x, const ember::Tensor&) { return F::softshrink(x); }},
      {"softplus", [](const ember::Tensor& x, const ember::Tensor&) { return F::softplus(x); }},
      {"logsigmoid", [](const ember::Tensor& x, const ember::Tensor&) { return F::logsigmoid(x); }},
      {"mish", [](const ember::Tensor& x, const ember::Tensor&) { return F::mish(x); }},
      {"softsign", [](const ember::Tensor& x, const ember::Tensor&) { return F::softsign(x); }},
      {"tanhshrink", [](const ember::Tensor& x, const ember::Tensor&) { return F::tanhshrink(x); }},
      {"prelu", [](const ember::Tensor& x, const ember::Tensor& w) { return F::prelu(x, w); }},
      {"rrelu train", [](const ember::Tensor& x, const ember::Tensor&) {
         return F::rrelu(x, F::RReLUFuncOptions().training(true));
       }},
      {"glu", [](const ember::Tensor& x, const ember::Tensor&) { return F::glu(x); }},
  };
  return list;
}

void BM_Activation(benchmark::State& state) {
  const Activation& activation = activations()[static_cast<size_t>(state.range(0))];
  const bool backward = state.range(1) != 0;
  const ember::TensorOptions options = ember::TensorOptions().device(bench_device());
  ember::Tensor x = ember::randn({kRows, kCols}, options);
  ember::Tensor weight = ember::full({kCols}, 0.25, options);
  const ember::Tensor grad = ember::ones({kRows, kCols}, options);
  if (backward) {
    x.requires_grad_(true);
    weight.requires_grad_(true);
  }
  auto stream = bench_device()->default_stream();
  const auto step = [&] {
    const ember::Tensor y = activation.apply(x, weight);
    if (backward) {
      y.backward(y.sizes() == grad.sizes() ? grad : ember::ones_like(y));
    } else {
      benchmark::DoNotOptimize(y);
    }
  };
  time_synchronized(*stream, 1, step);  // compiles the pipelines outside the timing
  double seconds = 0;
  for (auto _ : state) {
    const double round = time_synchronized(*stream, 1, step);
    state.SetIterationTime(round);
    seconds += round;
  }
  const uint64_t bytes = 2 * kRows * kCols * sizeof(float);  // one read and one write: the forward's floor
  state.counters["fraction_of_copy"] =
      seconds > 0 ? bytes * static_cast<double>(state.iterations()) / seconds /
                        device_copy_bytes_per_second(*bench_device(), kRows * kCols * sizeof(float))
                  : 0;
  state.SetLabel(std::string(activation.name) + (backward ? ", forward + backward" : ", forward"));
}

void every_activation(benchmark::internal::Benchmark* b) {
  b->ArgNames({"act", "backward"});
  for (int64_t i = 0; i < static_cast<int64_t>(activations().size()); ++i) {
    b->Args({i, 0});
    b->Args({i, 1});
  }
  b->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.2);
}

BENCHMARK(BM_Activation)->Apply(every_activation);

}  // namespace
}  // namespace ember_bench
