#include "bench/op_beside_torch.h"

#include "bench/bandwidth.h"
#include "bench/bench_device.h"
#include "bench/torch_reference_lines.h"

namespace ember_bench {

std::map<std::string, double> torch_ms_by_name(const std::string& script_and_args, const std::string& tag) {
  std::map<std::string, double> ms;
  for (const auto& words : torch_reference_lines(script_and_args, tag)) {
    if (words.size() == 2) ms[words[0]] = std::stod(words[1]);
  }
  return ms;
}

void run_beside_torch(benchmark::State& state, const std::string& name, const std::map<std::string, double>& torch_ms,
                      const std::function<void()>& op) {
  auto stream = bench_device()->default_stream();
  time_synchronized(*stream, 1, op);  // compiles the pipelines
  const ember::StreamStats before = stream->stats();
  double seconds = 0;
  for (auto _ : state) {
    const double round = time_synchronized(*stream, 1, op);
    state.SetIterationTime(round);
    seconds += round;
  }
  const ember::StreamStats after = stream->stats();
  const double iterations = static_cast<double>(state.iterations());
  const double ms = seconds * 1e3 / iterations;
  state.counters["ms"] = ms;
  state.counters["dispatches"] = static_cast<double>(after.dispatches - before.dispatches) / iterations;
  if (const auto found = torch_ms.find(name); found != torch_ms.end()) {
    state.counters["torch_ms"] = found->second;
    state.counters["vs_torch"] = ms / found->second;
  }
}

}  // namespace ember_bench
