// Convolution throughput in GFLOP/s (2 · B · Cout · Cin/G · kernel · output positions per op), float32,
// for the forward, input gradient and weight gradient kernels (ConvKernels; the weight gradient alone and
// with the bias gradient), on training shapes: the Fashion-MNIST CNN's two layers (batch 64, 1→32 at
// 28×28 and 32→64 at 14×14, 3×3, padding 1), a ResNet layer (batch 32, 64→64 at 56×56) and a depthwise
// 3×3 (batch 64, 32 channels at 28×28). Beside each, PyTorch's CPU on the same shapes in the same run
// (bench/torch_reference.py --conv-cpu, through EMBER_PYTHON, default /usr/bin/python3), as a ratio of
// times: `vs_torch` against its default kernels, `vs_torch_blas` against its im2col + BLAS path (oneDNN
// off). BM_ConvFashionMnistLayers runs the CNN's six convolutions per op (the weight gradients without
// the bias), the target (at most 3× PyTorch's CPU time on lavapipe).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bandwidth.h"
#include "bench/bench_device.h"
#include "runtime/kernels/conv.h"
#include "shaders/conv/conv_variant.h"

namespace ember_bench {
namespace {

constexpr double kFlopsPerRound = 1e9;
constexpr int kMaxOpsPerRound = 64;

struct ConvShape {
  const char* name;
  int64_t batch, in_channels, out_channels, side, kernel, padding, groups;
};

const ConvShape kShapes[] = {
    {"mnist1", 64, 1, 32, 28, 3, 1, 1},
    {"mnist2", 64, 32, 64, 14, 3, 1, 1},
    {"resnet", 32, 64, 64, 56, 3, 1, 1},
    {"depthwise", 64, 32, 32, 28, 3, 1, 32},
};

// WeightAndBiasGrad: the weight gradient with the bias gradient, as a layer with a bias trains.
enum class Direction { Forward, InputGrad, WeightGrad, WeightAndBiasGrad };
const char* kDirectionNames[] = {"forward", "input_grad", "weight_grad", "weight_bias_grad"};

// PyTorch's CPU milliseconds per op, by "shape direction": default kernels and the BLAS path. Run once.
struct TorchTimes {
  std::map<std::string, std::pair<double, double>> ms;
  std::string problem;
};

const TorchTimes& torch_times() {
  static const TorchTimes times = [] {
    TorchTimes t;
    const char* python = std::getenv("EMBER_PYTHON");
    const std::string command = std::string(python && *python ? python : "/usr/bin/python3") + " " +
                                EMBER_SOURCE_DIR "/bench/torch_reference.py --conv-cpu 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) {
      t.problem = "could not run " + command;
      return t;
    }
    char line[512];
    while (fgets(line, sizeof line, pipe)) {
      std::istringstream in(line);
      std::string tag, shape, direction;
      double default_ms = 0, blas_ms = 0;
      if (in >> tag >> shape >> direction >> default_ms >> blas_ms && tag == "conv") {
        t.ms[shape + " " + direction] = {default_ms, blas_ms};
      } else {
        t.problem += line;
      }
    }
    pclose(pipe);
    if (t.ms.empty()) std::fprintf(stderr, "no PyTorch reference: %s\n", t.problem.c_str());
    return t;
  }();
  return times;
}

// The buffers and arguments of one shape, ones everywhere (no denormals or NaN).
struct ConvBuffers {
  std::shared_ptr<ember::Allocation> input, weight, output, bias;
  ember::ConvForwardArgs forward;
  ember::ConvInputGradArgs input_grad;
  ember::ConvWeightGradArgs weight_grad, weight_and_bias_grad;
  double flops = 0;

  ConvBuffers(ember::Device& device, const ConvShape& s) {
    const int64_t out_side = s.side + 2 * s.padding - s.kernel + 1;
    const int64_t in_elements = s.batch * s.in_channels * s.side * s.side;
    const int64_t weight_elements = s.out_channels * (s.in_channels / s.groups) * s.kernel * s.kernel;
    const int64_t out_elements = s.batch * s.out_channels * out_side * out_side;
    input = ones_buffer(device, in_elements * sizeof(float));
    weight = ones_buffer(device, weight_elements * sizeof(float));
    output = ones_buffer(device, out_elements * sizeof(float));
    bias = ones_buffer(device, s.out_channels * sizeof(float));
    using ember::TensorRef;
    const ember::DType f32 = ember::DType::Float32;
    const TensorRef x = TensorRef::contiguous(*input, f32, {s.batch, s.in_channels, s.side, s.side});
    const TensorRef w = TensorRef::contiguous(*weight, f32, {s.out_channels, s.in_channels / s.groups, s.kernel, s.kernel});
    const TensorRef y = TensorRef::contiguous(*output, f32, {s.batch, s.out_channels, out_side, out_side});
    ember::ConvGeometry g;
    g.spatial = 2;
    g.groups = s.groups;
    g.padding = {s.padding, s.padding, 0};
    forward = {y, x, w, std::nullopt, g};
    input_grad = {x, y, w, std::nullopt, g};
    weight_grad = {w, y, x, g};
    weight_and_bias_grad = {w, y, x, g, TensorRef::contiguous(*bias, f32, {s.out_channels})};
    flops = 2.0 * static_cast<double>(out_elements) * static_cast<double>(s.in_channels / s.groups) *
            static_cast<double>(s.kernel * s.kernel);
  }

  void run(ember::Device& device, ember::Stream& stream, Direction direction) const {
    ember::ConvKernels& conv = device.kernels().get<ember::ConvKernels>();
    switch (direction) {
      case Direction::Forward: conv.forward(stream, forward); break;
      case Direction::InputGrad: conv.input_grad(stream, input_grad); break;
      case Direction::WeightGrad: conv.weight_grad(stream, weight_grad); break;
      case Direction::WeightAndBiasGrad: conv.weight_grad(stream, weight_and_bias_grad); break;
    }
  }
};

void report(benchmark::State& state, double flops, double seconds, double cpu_seconds, int ops,
            double torch_ms, double torch_blas_ms) {
  state.counters["GFLOP/s"] = seconds > 0 ? flops / seconds * 1e-9 : 0;
  state.counters["GFLOP_per_cpu_s"] = cpu_seconds > 0 ? flops / cpu_seconds * 1e-9 : 0;
  state.counters["ops_per_sync"] = ops;
  const double ms = seconds * 1e3 / (static_cast<double>(state.iterations()) * ops);
  state.counters["ms_per_op"] = ms;
  if (torch_ms > 0) {
    state.counters["torch_ms"] = torch_ms;
    state.counters["vs_torch"] = ms / torch_ms;
    state.counters["torch_blas_ms"] = torch_blas_ms;
    state.counters["vs_torch_blas"] = ms / torch_blas_ms;
  }
}

// Sets EMBER_CONV_VARIANT for a benchmark: "auto" leaves the device class's choice.
void set_variant(const char* variant) {
  if (std::string(variant) == "auto") unsetenv("EMBER_CONV_VARIANT");
  else setenv("EMBER_CONV_VARIANT", variant, 1);
}

void BM_Conv(benchmark::State& state, const char* variant, ConvShape shape, Direction direction) {
  set_variant(variant);
  ember::Device& device = *bench_device();
  auto stream = device.default_stream();
  const ConvBuffers buffers(device, shape);
  buffers.run(device, *stream, direction);  // compiles the pipelines outside the timed region
  stream->synchronize();
  const int ops = static_cast<int>(std::clamp(kFlopsPerRound / buffers.flops, 1.0, double{kMaxOpsPerRound}));
  const auto [torch_ms, torch_blas_ms] =
      torch_times().ms.count(std::string(shape.name) + " " + kDirectionNames[static_cast<int>(direction)])
          ? torch_times().ms.at(std::string(shape.name) + " " + kDirectionNames[static_cast<int>(direction)])
          : std::pair<double, double>{0, 0};
  double seconds = 0;
  const double cpu_start = process_cpu_seconds();
  for (auto _ : state) {
    const double round = time_synchronized(*stream, ops, [&] { buffers.run(device, *stream, direction); });
    state.SetIterationTime(round);
    seconds += round;
  }
  report(state, buffers.flops * ops * static_cast<double>(state.iterations()), seconds,
         process_cpu_seconds() - cpu_start, ops, torch_ms, torch_blas_ms);
  unsetenv("EMBER_CONV_VARIANT");
}

// The Fashion-MNIST CNN's two conv layers, forward and both gradients: six kernels per op.
void BM_ConvFashionMnistLayers(benchmark::State& state, const char* variant) {
  set_variant(variant);
  ember::Device& device = *bench_device();
  auto stream = device.default_stream();
  const ConvBuffers layers[] = {{device, kShapes[0]}, {device, kShapes[1]}};
  auto all = [&] {
    for (const ConvBuffers& layer : layers) {
      for (Direction d : {Direction::Forward, Direction::InputGrad, Direction::WeightGrad}) layer.run(device, *stream, d);
    }
  };
  all();
  stream->synchronize();
  double torch_ms = 0, torch_blas_ms = 0;
  for (const char* shape : {"mnist1", "mnist2"}) {
    for (const char* direction : {"forward", "input_grad", "weight_grad"}) {
      const auto found = torch_times().ms.find(std::string(shape) + " " + direction);
      if (found == torch_times().ms.end()) continue;
      torch_ms += found->second.first;
      torch_blas_ms += found->second.second;
    }
  }
  double seconds = 0;
  const double cpu_start = process_cpu_seconds();
  for (auto _ : state) {
    const double round = time_synchronized(*stream, 1, all);
    state.SetIterationTime(round);
    seconds += round;
  }
  const double flops = 3 * (layers[0].flops + layers[1].flops) * static_cast<double>(state.iterations());
  report(state, flops, seconds, process_cpu_seconds() - cpu_start, 1, torch_ms, torch_blas_ms);
  unsetenv("EMBER_CONV_VARIANT");
}

[[maybe_unused]] const bool registered = [] {
  for (const char* variant : {"auto", "register", "uniform", "tiled"}) {
    const std::string cnn = std::string("BM_ConvFashionMnistLayers/") + variant;
    benchmark::RegisterBenchmark(cnn.c_str(), BM_ConvFashionMnistLayers, variant)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->MinTime(1.0);
    for (const ConvShape& shape : kShapes) {
      for (Direction direction :
           {Direction::Forward, Direction::InputGrad, Direction::WeightGrad, Direction::WeightAndBiasGrad}) {
        const std::string name = std::string("BM_Conv/") + variant + "/" + shape.name + "/" +
                                 kDirectionNames[static_cast<int>(direction)];
        benchmark::RegisterBenchmark(name.c_str(), BM_Conv, variant, shape, direction)
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
