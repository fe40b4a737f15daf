// Autograd overhead and a training step. The chain is 100 small ops (mul by a constant, then tanh,
// alternating) on a 256-element tensor, where launch and bookkeeping costs dominate: run with no
// input requiring grad (forward alone), with the graph recorded, and recorded plus backward. The MLP
// step is a 784-128-10 network on a batch of 64: forward, loss and backward.
#include <benchmark/benchmark.h>

#include "bench/bandwidth.h"
#include "bench/bench_device.h"
#include "ember.h"

namespace ember_bench {
namespace {

constexpr int kChainOps = 100;

enum class ChainMode { ForwardOnly = 0, Recorded = 1, ForwardBackward = 2 };

void BM_AutogradChain(benchmark::State& state) {
  const auto mode = static_cast<ChainMode>(state.range(0));
  const ember::TensorOptions options = ember::TensorOptions().device(bench_device());
  ember::Tensor x = ember::rand({256}, options);
  if (mode != ChainMode::ForwardOnly) x.requires_grad_(true);
  const ember::Tensor scale = ember::full({256}, 0.99, options);
  auto stream = bench_device()->default_stream();
  auto step = [&] {
    ember::Tensor y = x;
    for (int i = 0; i < kChainOps / 2; ++i) y = (y * scale).tanh();
    if (mode == ChainMode::ForwardBackward) {
      y.sum().backward();
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
  static const char* labels[] = {"forward only", "forward, graph recorded", "forward + backward"};
  state.SetLabel(labels[state.range(0)]);
  state.counters["us_per_forward_op"] = seconds * 1e6 / static_cast<double>(state.iterations() * kChainOps);
}

void BM_TinyMlpStep(benchmark::State& state) {
  const ember::TensorOptions options = ember::TensorOptions().device(bench_device());
  const ember::Tensor x = ember::rand({64, 784}, options);
  const ember::Tensor target = ember::one_hot(ember::randint(10, {64}, options.dtype(ember::kInt64)), 10).to(ember::kFloat32);
  ember::Tensor w1 = (ember::randn({784, 128}, options) * 0.05).requires_grad_(true);
  ember::Tensor b1 = ember::zeros({128}, options.requires_grad(true));
  ember::Tensor w2 = (ember::randn({128, 10}, options) * 0.05).requires_grad_(true);
  ember::Tensor b2 = ember::zeros({10}, options.requires_grad(true));
  auto stream = bench_device()->default_stream();
  auto step = [&] {
    const ember::Tensor hidden = ember::addmm(b1, x, w1).relu();
    const ember::Tensor logp = ember::addmm(b2, hidden, w2).log_softmax(1);
    const ember::Tensor loss = -(logp * target).sum() / 64;
    loss.backward();
  };
  time_synchronized(*stream, 1, step);  // compiles the pipelines outside the timing
  for (auto _ : state) state.SetIterationTime(time_synchronized(*stream, 1, step));
  state.SetLabel("784-128-10, batch 64");
}

BENCHMARK(BM_AutogradChain)->ArgName("mode")->Arg(0)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_TinyMlpStep)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);

}  // namespace
}  // namespace ember_bench
