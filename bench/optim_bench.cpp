// The fused optimizer step over the Fashion-MNIST MLP's parameters (784x256 + 256 + 256x10 + 10, float32,
// 203,530 elements) with fixed gradients: milliseconds per step, the bytes the step must move at least
// as GB/s (Adam reads parameter, gradient and both moments and writes parameter and moments: 28 bytes
// per element; SGD with momentum 20) and as a fraction of the device copy, and beside it PyTorch's CPU
// step on the same parameters in the same run (bench/torch_reference.py --optim-cpu, through
// EMBER_PYTHON, default /usr/bin/python3): `vs_torch` against its default (single-tensor) step and
// `vs_torch_foreach` against foreach=True. `cpu_ms_per_step` is the process's CPU time per step. Steps run
// back to back, ten per host wait, as a training loop runs them.
#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <tuple>

#include "bench/bandwidth.h"
#include "bench/bench_device.h"
#include "bench/torch_reference_lines.h"
#include "optim/optim.h"

namespace ember_bench {
namespace {

using ember::Tensor;

// PyTorch's CPU milliseconds per step: wall, process CPU time, and wall with foreach=True. Run once.
const std::map<std::string, std::tuple<double, double, double>>& torch_ms() {
  static const std::map<std::string, std::tuple<double, double, double>> times = [] {
    std::map<std::string, std::tuple<double, double, double>> ms;
    for (const auto& words : torch_reference_lines("torch_reference.py --optim-cpu", "optim")) {
      if (words.size() == 4) ms[words[0]] = {std::stod(words[1]), std::stod(words[2]), std::stod(words[3])};
    }
    return ms;
  }();
  return times;
}

constexpr int kStepsPerRound = 10;

std::vector<Tensor> mlp_parameters() {
  const ember::TensorOptions f32 = ember::TensorOptions(ember::kFloat32).device(bench_device());
  std::vector<Tensor> params = {ember::randn({256, 784}, f32), ember::randn({256}, f32), ember::randn({10, 256}, f32),
                                ember::randn({10}, f32)};
  for (Tensor& p : params) {
    p.requires_grad_(true);
    p.mutable_grad() = ember::randn(p.sizes(), f32);
  }
  return params;
}

void run(benchmark::State& state, const std::string& name, ember::optim::Optimizer& optimizer, double bytes_per_element) {
  ember::Device& device = *bench_device();
  auto stream = device.default_stream();
  int64_t elements = 0;
  for (const Tensor& p : optimizer.parameters()) elements += p.numel();
  for (int k = 0; k < 4; ++k) optimizer.step();  // pipelines, and the tables of both step parities
  stream->synchronize();
  const ember::StreamStats before = stream->stats();
  double seconds = 0;
  const double cpu_start = process_cpu_seconds();
  // Steps follow each other with no host wait, as in training; one synchronize per round of them.
  for (auto _ : state) {
    const double round = time_synchronized(*stream, kStepsPerRound, [&] { optimizer.step(); });
    state.SetIterationTime(round / kStepsPerRound);
    seconds += round;
  }
  const double iterations = static_cast<double>(state.iterations() * kStepsPerRound);
  const ember::StreamStats after = stream->stats();
  const double ms = seconds * 1e3 / iterations;
  const double bytes = bytes_per_element * static_cast<double>(elements);
  state.counters["ms_per_step"] = ms;
  state.counters["cpu_ms_per_step"] = (process_cpu_seconds() - cpu_start) * 1e3 / iterations;
  state.counters["dispatches_per_step"] = static_cast<double>(after.dispatches - before.dispatches) / iterations;
  state.counters["GB/s"] = bytes / (ms * 1e-3) * 1e-9;
  state.counters["fraction_of_copy"] = bytes / (ms * 1e-3) / device_copy_bytes_per_second(device, 4 * elements);
  if (const auto found = torch_ms().find(name); found != torch_ms().end()) {
    const auto [wall, cpu, foreach] = found->second;
    state.counters["torch_ms"] = wall;
    state.counters["vs_torch"] = ms / wall;
    state.counters["torch_cpu_ms"] = cpu;
    state.counters["torch_foreach_ms"] = foreach;
    state.counters["vs_torch_foreach"] = ms / foreach;
  }
}

void BM_AdamStep(benchmark::State& state) {
  const std::vector<Tensor> params = mlp_parameters();
  ember::optim::Adam adam(params, ember::optim::AdamOptions(1e-3));
  run(state, "adam_mlp", adam, 28);
}

void BM_SGDMomentumStep(benchmark::State& state) {
  const std::vector<Tensor> params = mlp_parameters();
  ember::optim::SGD sgd(params, ember::optim::SGDOptions(0.1).momentum(0.9));
  run(state, "sgd_momentum_mlp", sgd, 20);
}

BENCHMARK(BM_AdamStep)->Name("BM_AdamStep/mlp")->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_SGDMomentumStep)->Name("BM_SGDMomentumStep/mlp")->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);

}  // namespace
}  // namespace ember_bench
