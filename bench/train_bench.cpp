// One training step of ember-train's models (tools/ember-train/models.cpp) on a fixed batch of 64 that
// already lives on the device: zero_grad, forward, cross-entropy, backward and the fused Adam step, the
// loop body of ember-train without its loader. Counters: milliseconds per step, the stream's dispatches,
// barriers, submits and host waits per step, and PyTorch's CPU step on the same model in the same run
// (bench/train_torch_reference.py --step-bench, through EMBER_PYTHON, default /usr/bin/python3) as
// `vs_torch`. Steps run ten to a round with one synchronize; host_waits_per_step leaves that synchronize
// out, so a step that never waits on the host shows 0.
#include <benchmark/benchmark.h>

#include <map>
#include <string>

#include "bench/bandwidth.h"
#include "bench/bench_device.h"
#include "bench/torch_reference_lines.h"
#include "optim/optim.h"
#include "tools/ember-train/models.h"

namespace ember_bench {
namespace {

constexpr int64_t kBatch = 64;
constexpr int kStepsPerRound = 10;

// PyTorch's CPU milliseconds per training step, per model. Run once.
const std::map<std::string, double>& torch_step_ms() {
  static const std::map<std::string, double> times = [] {
    std::map<std::string, double> ms;
    for (const auto& words : torch_reference_lines("train_torch_reference.py --step-bench", "step")) {
      if (words.size() == 2) ms[words[0]] = std::stod(words[1]);
    }
    return ms;
  }();
  return times;
}

void BM_TrainStep(benchmark::State& state, const std::string& model_name) {
  namespace F = ember::nn::functional;
  const std::shared_ptr<ember::Device>& device = bench_device();
  ember::manual_seed(0);
  ember::nn::Sequential model = ember::train::make_model(model_name);
  model->to(device);
  ember::optim::Adam optimizer(model->parameters(), ember::optim::AdamOptions(1e-3));
  const ember::TensorOptions options = ember::TensorOptions().device(device);
  const ember::Tensor images = ember::rand({kBatch, 1, 28, 28}, options);
  const ember::Tensor labels = ember::randint(10, {kBatch}, options.dtype(ember::kInt64));
  auto step = [&] {
    optimizer.zero_grad();
    const ember::Tensor loss = F::cross_entropy(model->forward(images), labels);
    loss.backward();
    optimizer.step();
  };
  auto stream = device->default_stream();
  time_synchronized(*stream, 2, step);  // compiles the pipelines and fills the allocator's cache
  const ember::StreamStats before = stream->stats();
  double seconds = 0;
  for (auto _ : state) {
    const double round = time_synchronized(*stream, kStepsPerRound, step);
    state.SetIterationTime(round / kStepsPerRound);
    seconds += round;
  }
  const ember::StreamStats after = stream->stats();
  const auto steps = static_cast<double>(state.iterations() * kStepsPerRound);
  const double ms_per_step = seconds * 1e3 / steps;
  state.counters["ms_per_step"] = ms_per_step;
  state.counters["dispatches_per_step"] = static_cast<double>(after.dispatches - before.dispatches) / steps;
  state.counters["barriers_per_step"] = static_cast<double>(after.barriers - before.barriers) / steps;
  state.counters["submits_per_step"] = static_cast<double>(after.submits - before.submits) / steps;
  // One wait per round belongs to the timing's synchronize, not to the step.
  state.counters["host_waits_per_step"] =
      static_cast<double>(after.host_waits - before.host_waits - state.iterations()) / steps;
  const auto torch = torch_step_ms().find(model_name);
  if (torch != torch_step_ms().end()) {
    state.counters["torch_ms_per_step"] = torch->second;
    state.counters["vs_torch"] = ms_per_step / torch->second;
  }
  state.SetLabel(model_name + ", batch 64, Adam");
}

BENCHMARK_CAPTURE(BM_TrainStep, mlp, std::string("mlp"))->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(BM_TrainStep, cnn, std::string("cnn"))->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace
}  // namespace ember_bench
