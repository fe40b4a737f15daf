// Normalization, dropout, cross-entropy, CTC and fractional max pooling: forward plus backward through nn::functional
// (autograd included, as a training step runs them), float32, on training shapes. Each reports milliseconds per
// forward+backward, the bytes its kernels must move at least as GB/s and as a fraction of the device copy at the
// input's size (`fraction_of_copy`), and beside it PyTorch's CPU on the same shapes in the same run
// (bench/torch_reference.py --norm-cpu, through EMBER_PYTHON, default /usr/bin/python3) as a ratio of times
// (`vs_torch`; `vs_torch_cpu` the same in process CPU time). `cpu_ms_per_step` is the process's CPU time per step
// (lavapipe's threads included), which a loaded machine does not inflate as it does wall time.
//
// Bytes counted (N: the input's bytes): batch norm 8N (statistics read x; apply reads x, writes y;
// backward sums read x and dy; grad_in reads x, dy, writes dx), layer norm 7N (forward reads x, writes
// y; grad_in reads x, dy, writes dx; weight and bias gradients read x, dy), dropout 5N (read x, write y;
// read dy, write dx; the mask is 1/32 of that), cross-entropy 3N (forward reads the scores; backward
// reads them and writes the gradient), CTC 3N (the log-probabilities read forward and backward, the
// gradient written), fractional max pooling 2N (the input read, its gradient written). `dispatches`
// counts the kernels and copies one step records.
#include <benchmark/benchmark.h>

#include <map>
#include <string>

#include "bench/bandwidth.h"
#include "bench/bench_device.h"
#include "bench/torch_reference_lines.h"
#include "nn/functional/batchnorm.h"
#include "nn/functional/cross_entropy.h"
#include "nn/functional/ctc_loss.h"
#include "nn/functional/dropout.h"
#include "nn/functional/fractional_max_pool.h"
#include "nn/functional/normalization.h"

namespace ember_bench {
namespace {

namespace F = ember::nn::functional;
using ember::Tensor;

// PyTorch's CPU milliseconds per forward+backward, wall and process CPU time, by benchmark name. Run once.
const std::map<std::string, std::pair<double, double>>& torch_ms() {
  static const std::map<std::string, std::pair<double, double>> times = [] {
    std::map<std::string, std::pair<double, double>> ms;
    for (const auto& words : torch_reference_lines("torch_reference.py --norm-cpu", "norm")) {
      if (words.size() == 3) ms[words[0]] = {std::stod(words[1]), std::stod(words[2])};
    }
    return ms;
  }();
  return times;
}

ember::TensorOptions f32() { return ember::TensorOptions(ember::kFloat32).device(bench_device()); }

// Runs `step` (one forward+backward) for the benchmark and reports its counters.
void run(benchmark::State& state, const std::string& name, double bytes, uint64_t input_bytes,
         const std::function<void()>& step) {
  ember::Device& device = *bench_device();
  auto stream = device.default_stream();
  const uint64_t dispatches_before = stream->stats().dispatches;
  step();  // compiles the pipelines outside the timed region
  stream->synchronize();
  state.counters["dispatches"] = static_cast<double>(stream->stats().dispatches - dispatches_before);
  double seconds = 0;
  const double cpu_start = process_cpu_seconds();
  for (auto _ : state) {
    const double round = time_synchronized(*stream, 1, step);
    state.SetIterationTime(round);
    seconds += round;
  }
  const double ms = seconds * 1e3 / static_cast<double>(state.iterations());
  const double rate = bytes / (ms * 1e-3);
  state.counters["ms_per_step"] = ms;
  state.counters["cpu_ms_per_step"] = (process_cpu_seconds() - cpu_start) * 1e3 / static_cast<double>(state.iterations());
  state.counters["GB/s"] = rate * 1e-9;
  state.counters["fraction_of_copy"] = rate / device_copy_bytes_per_second(device, input_bytes);
  if (const auto found = torch_ms().find(name); found != torch_ms().end()) {
    state.counters["torch_ms"] = found->second.first;
    state.counters["vs_torch"] = ms / found->second.first;
    state.counters["torch_cpu_ms"] = found->second.second;
    state.counters["vs_torch_cpu"] = state.counters["cpu_ms_per_step"] / found->second.second;
  }
}

void BM_BatchNorm(benchmark::State& state, int64_t n, int64_t c, int64_t side) {
  Tensor x = ember::randn({n, c, side, side}, f32()).requires_grad_(true);
  Tensor w = ember::ones({c}, f32()).requires_grad_(true), b = ember::zeros({c}, f32()).requires_grad_(true);
  Tensor mean = ember::zeros({c}, f32()), var = ember::ones({c}, f32());
  const Tensor g = ember::randn({n, c, side, side}, f32());
  const double bytes = static_cast<double>(x.nbytes());
  run(state, "batch_norm_" + std::to_string(n) + "x" + std::to_string(c) + "x" + std::to_string(side), 8 * bytes,
      x.nbytes(), [&] {
        const Tensor y = F::batch_norm(x, mean, var, F::BatchNormFuncOptions().weight(w).bias(b).training(true));
        ember::autograd::grad({y}, {x, w, b}, {g});
      });
}

void BM_LayerNorm(benchmark::State& state, int64_t rows, int64_t width) {
  Tensor x = ember::randn({rows, width}, f32()).requires_grad_(true);
  Tensor w = ember::ones({width}, f32()).requires_grad_(true), b = ember::zeros({width}, f32()).requires_grad_(true);
  const Tensor g = ember::randn({rows, width}, f32());
  run(state, "layer_norm_" + std::to_string(rows) + "x" + std::to_string(width), 7.0 * x.nbytes(), x.nbytes(), [&] {
    const Tensor y = F::layer_norm(x, F::LayerNormFuncOptions({width}).weight(w).bias(b));
    ember::autograd::grad({y}, {x, w, b}, {g});
  });
}

void BM_Dropout(benchmark::State& state, int64_t rows, int64_t width) {
  Tensor x = ember::randn({rows, width}, f32()).requires_grad_(true);
  const Tensor g = ember::randn({rows, width}, f32());
  run(state, "dropout_" + std::to_string(rows) + "x" + std::to_string(width), 5.0 * x.nbytes(), x.nbytes(), [&] {
    const Tensor y = F::dropout(x, F::DropoutFuncOptions().p(0.5));
    ember::autograd::grad({y}, {x}, {g});
  });
}

void BM_CrossEntropy(benchmark::State& state, int64_t batch, int64_t classes) {
  Tensor x = ember::randn({batch, classes}, f32()).requires_grad_(true);
  const Tensor t = ember::randint(0, classes, {batch}, ember::TensorOptions(ember::kInt64).device(bench_device()));
  run(state, "cross_entropy_" + std::to_string(batch) + "x" + std::to_string(classes), 3.0 * x.nbytes(), x.nbytes(),
      [&] {
        const Tensor loss = F::cross_entropy(x, t);
        ember::autograd::grad({loss}, {x});
      });
}

// A speech-sized batch: 16 utterances of 50 frames over 20 classes, 10 labels each, through log_softmax.
void BM_CtcLoss(benchmark::State& state, int64_t frames, int64_t batch, int64_t classes, int64_t labels) {
  Tensor x = ember::randn({frames, batch, classes}, f32()).requires_grad_(true);
  const auto int64 = ember::TensorOptions(ember::kInt64).device(bench_device());
  const Tensor targets = ember::randint(1, classes, {batch, labels}, int64);
  const Tensor input_lengths = ember::full({batch}, frames, int64), target_lengths = ember::full({batch}, labels, int64);
  run(state,
      "ctc_loss_" + std::to_string(frames) + "x" + std::to_string(batch) + "x" + std::to_string(classes) + "_" +
          std::to_string(labels),
      3.0 * x.nbytes(), x.nbytes(), [&] {
        const Tensor loss = F::ctc_loss(x.log_softmax(2), targets, input_lengths, target_lengths);
        ember::autograd::grad({loss}, {x});
      });
}

// The CNN's first activations pooled to 20x20 by 2x2 windows, the windows drawn afresh each step.
void BM_FractionalMaxPool(benchmark::State& state, int64_t batch, int64_t channels, int64_t side, int64_t out) {
  Tensor x = ember::randn({batch, channels, side, side}, f32()).requires_grad_(true);
  run(state,
      "fractional_max_pool_" + std::to_string(batch) + "x" + std::to_string(channels) + "x" + std::to_string(side) +
          "_" + std::to_string(out),
      2.0 * x.nbytes(), x.nbytes(), [&] {
        const Tensor y = F::fractional_max_pool2d(x, F::FractionalMaxPool2dFuncOptions(2).output_size(out));
        ember::autograd::grad({y}, {x}, {ember::ones_like(y)});
      });
}

// A 3-d CNN's activations (a batch of 8 clips, 16 channels, 16 frames of 28×28) pooled by 2×2×2 boxes,
// forward and gradient: two passes of the 2-d pool kernels (nn/functional/pooling3d.cpp).
void BM_Pool3d(benchmark::State& state, bool max, int64_t batch, int64_t channels, int64_t frames, int64_t side) {
  Tensor x = ember::randn({batch, channels, frames, side, side}, f32()).requires_grad_(true);
  run(state,
      std::string(max ? "max" : "avg") + "_pool3d_" + std::to_string(batch) + "x" + std::to_string(channels) + "x" +
          std::to_string(frames) + "x" + std::to_string(side),
      2.0 * x.nbytes(), x.nbytes(), [&] {
        const Tensor y =
            max ? F::max_pool3d(x, F::MaxPool3dFuncOptions(2)) : F::avg_pool3d(x, F::AvgPool3dFuncOptions(2));
        ember::autograd::grad({y}, {x}, {ember::ones_like(y)});
      });
}

// The same clips' 2x2x2 max pooling undone, forward and gradient: a scatter into each zero output plane,
// and a gather back (nn/functional/max_unpool.cpp).
void BM_MaxUnpool3d(benchmark::State& state, int64_t batch, int64_t channels, int64_t frames, int64_t side) {
  const Tensor input = ember::randn({batch, channels, frames, side, side}, f32());
  const auto [pooled, indices] = F::max_pool3d_with_indices(input, F::MaxPool3dFuncOptions(2));
  Tensor x = pooled.detach().requires_grad_(true);
  run(state,
      "max_unpool3d_" + std::to_string(batch) + "x" + std::to_string(channels) + "x" + std::to_string(frames) + "x" +
          std::to_string(side),
      2.0 * input.nbytes(), input.nbytes(), [&] {
        const Tensor y = F::max_unpool3d(x, indices, F::MaxUnpool3dFuncOptions(2));
        ember::autograd::grad({y}, {x}, {ember::ones_like(y)});
      });
}

template <class... Args>
void add(const std::string& name, void (*fn)(benchmark::State&, Args...), Args... args) {
  benchmark::RegisterBenchmark(name.c_str(), fn, args...)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
}

[[maybe_unused]] const bool registered = [] {
  // After the Fashion-MNIST CNN's convolutions (batch 64, 32 channels at 28×28 and 64 at 14×14).
  add("BM_BatchNorm/64x32x28x28", BM_BatchNorm, int64_t{64}, int64_t{32}, int64_t{28});
  add("BM_BatchNorm/64x64x14x14", BM_BatchNorm, int64_t{64}, int64_t{64}, int64_t{14});
  // A transformer's activations (batch 32 × 64 tokens of 512) and an MLP's hidden layer.
  add("BM_LayerNorm/2048x512", BM_LayerNorm, int64_t{2048}, int64_t{512});
  add("BM_LayerNorm/64x256", BM_LayerNorm, int64_t{64}, int64_t{256});
  add("BM_Dropout/64x256", BM_Dropout, int64_t{64}, int64_t{256});
  add("BM_Dropout/2048x512", BM_Dropout, int64_t{2048}, int64_t{512});
  add("BM_CrossEntropy/64x10", BM_CrossEntropy, int64_t{64}, int64_t{10});
  add("BM_CrossEntropy/4096x1000", BM_CrossEntropy, int64_t{4096}, int64_t{1000});
  add("BM_CtcLoss/50x16x20_10", BM_CtcLoss, int64_t{50}, int64_t{16}, int64_t{20}, int64_t{10});
  add("BM_FractionalMaxPool/64x32x28_20", BM_FractionalMaxPool, int64_t{64}, int64_t{32}, int64_t{28}, int64_t{20});
  add("BM_MaxPool3d/8x16x16x28", BM_Pool3d, true, int64_t{8}, int64_t{16}, int64_t{16}, int64_t{28});
  add("BM_AvgPool3d/8x16x16x28", BM_Pool3d, false, int64_t{8}, int64_t{16}, int64_t{16}, int64_t{28});
  add("BM_MaxUnpool3d/8x16x16x28", BM_MaxUnpool3d, int64_t{8}, int64_t{16}, int64_t{16}, int64_t{28});
  return true;
}();

}  // namespace
}  // namespace ember_bench
