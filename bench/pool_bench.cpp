// Pooling kernels as a fraction of the device's copy bandwidth: 2x2 max pooling (with indices) and 2x2
// average pooling, forward and backward (PoolKernels), float32, on the Fashion-MNIST CNN's shapes (batch
// 64 at 32 channels 28x28 and 64 channels 14x14). Bytes counted are what a kernel must move: the input,
// the output and, for max pooling, the int64 indices (backward: grad_out, indices and grad_in).
// Beside each, PyTorch's CPU on the same case in the same run (bench/pool_torch_reference.py, through
// EMBER_PYTHON, default /usr/bin/python3), as ratios of wall times (`vs_torch`) and of CPU times
// (`vs_torch_cpu`: on a shared machine the CPU time of each side, lavapipe's and PyTorch's worker
// threads included, is the steadier measure of the work).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include "bench/bandwidth.h"
#include "bench/bench_device.h"
#include "runtime/kernels/pool.h"

namespace ember_bench {
namespace {

struct PoolShape {
  const char* name;
  int64_t batch, channels, side;
};

const PoolShape kShapes[] = {{"mnist1", 64, 32, 28}, {"mnist2", 64, 64, 14}};

// PyTorch's CPU milliseconds per op, wall and CPU time, by "shape op direction". Run once, on first use.
const std::map<std::string, std::pair<double, double>>& torch_ms() {
  static const std::map<std::string, std::pair<double, double>> times = [] {
    std::map<std::string, std::pair<double, double>> ms;
    const char* python = std::getenv("EMBER_PYTHON");
    // The script beside this source file; a relative __FILE__ counts from the build dir, two levels above
    // this executable (build/bench/ember-bench).
    std::filesystem::path source = __FILE__;
    if (source.is_relative()) {
      source = std::filesystem::canonical("/proc/self/exe").parent_path().parent_path() / source;
    }
    const std::string script = (source.parent_path() / "pool_torch_reference.py").string();
    const std::string command = std::string(python && *python ? python : "/usr/bin/python3") + " " + script + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) return ms;
    std::string problems;
    char line[512];
    while (fgets(line, sizeof line, pipe)) {
      std::istringstream in(line);
      std::string tag, shape, op, direction;
      double wall = 0, cpu = 0;
      if (in >> tag >> shape >> op >> direction >> wall >> cpu && tag == "pool") {
        ms[shape + " " + op + " " + direction] = {wall, cpu};
      } else if (std::string(line).rfind("threads", 0) == 0) {
        std::fprintf(stderr, "PyTorch CPU reference: %s", line);
      } else {
        problems += line;
      }
    }
    pclose(pipe);
    if (ms.empty()) std::fprintf(stderr, "no PyTorch reference: %s\n", problems.c_str());
    return ms;
  }();
  return times;
}

void BM_Pool(benchmark::State& state, PoolShape shape, ember::PoolOp op, bool backward) {
  ember::Device& device = *bench_device();
  auto stream = device.default_stream();
  const int64_t out_side = shape.side / 2;
  const int64_t in_elements = shape.batch * shape.channels * shape.side * shape.side;
  const int64_t out_elements = shape.batch * shape.channels * out_side * out_side;
  const bool max = op == ember::PoolOp::Max;
  auto input = ones_buffer(device, in_elements * sizeof(float));
  auto output = ones_buffer(device, out_elements * sizeof(float));
  auto indices = device.allocate(out_elements * sizeof(int64_t));
  using ember::TensorRef;
  const TensorRef x = TensorRef::contiguous(*input, ember::DType::Float32, {shape.batch, shape.channels, shape.side, shape.side});
  const TensorRef y = TensorRef::contiguous(*output, ember::DType::Float32, {shape.batch, shape.channels, out_side, out_side});
  const TensorRef i = TensorRef::contiguous(*indices, ember::DType::Int64, {shape.batch, shape.channels, out_side, out_side});
  ember::PoolGeometry g;
  g.op = op;
  g.window = {ember::PoolWindow{2, 2, 0, 1}, ember::PoolWindow{2, 2, 0, 1}};
  ember::PoolKernels& kernels = device.kernels().get<ember::PoolKernels>();
  ember::PoolArgs forward{.geometry = g, .out = y, .in = x};
  if (max) forward.indices = i;
  ember::PoolBackwardArgs backward_args{.geometry = g, .grad_in = x, .grad_out = y};
  if (max) backward_args.indices = i;
  kernels.pool(*stream, forward);  // compiles the pipelines and writes valid indices, outside the timed region
  auto run = [&] {
    if (backward) {
      kernels.pool_backward(*stream, backward_args);
    } else {
      kernels.pool(*stream, forward);
    }
  };
  run();
  stream->synchronize();

  const uint64_t bytes = (in_elements + out_elements) * sizeof(float) + (max ? out_elements * sizeof(int64_t) : 0);
  const int ops = ops_per_sync(bytes);
  double seconds = 0;
  const double cpu_start = process_cpu_seconds();
  for (auto _ : state) {
    const double round = time_synchronized(*stream, ops, run);
    state.SetIterationTime(round);
    seconds += round;
  }
  const double moved = static_cast<double>(bytes) * ops * static_cast<double>(state.iterations());
  const double rate = seconds > 0 ? moved / seconds : 0;
  state.counters["GB/s"] = rate * 1e-9;
  state.counters["of_copy"] = rate / device_copy_bytes_per_second(device, bytes);
  const double ms = seconds * 1e3 / (static_cast<double>(state.iterations()) * ops);
  state.counters["ms_per_op"] = ms;
  const double cpu_ms = (process_cpu_seconds() - cpu_start) * 1e3 / (static_cast<double>(state.iterations()) * ops);
  state.counters["cpu_ms_per_op"] = cpu_ms;
  const std::string key = std::string(shape.name) + " " + (max ? "max" : "avg") + " " + (backward ? "backward" : "forward");
  if (const auto found = torch_ms().find(key); found != torch_ms().end()) {
    state.counters["torch_ms"] = found->second.first;
    state.counters["vs_torch"] = ms / found->second.first;
    state.counters["torch_cpu_ms"] = found->second.second;
    state.counters["vs_torch_cpu"] = cpu_ms / found->second.second;
  }
}

[[maybe_unused]] const bool registered = [] {
  for (const PoolShape& shape : kShapes) {
    for (ember::PoolOp op : {ember::PoolOp::Max, ember::PoolOp::Avg}) {
      for (bool backward : {false, true}) {
        const std::string name = std::string("BM_Pool/") + shape.name + "/" +
                                 (op == ember::PoolOp::Max ? "max2x2" : "avg2x2") + "/" +
                                 (backward ? "backward" : "forward");
        benchmark::RegisterBenchmark(name.c_str(), BM_Pool, shape, op, backward)
            ->UseManualTime()
            ->Unit(benchmark::kMillisecond)
            ->MinTime(0.5);
      }
    }
  }
  return true;
}();

}  // namespace
}  // namespace ember_bench
