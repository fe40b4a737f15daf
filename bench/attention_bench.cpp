// scaled_dot_product_attention, forward and forward plus backward, float32, one batch of 4 heads at
// sequence lengths 512 to 4096 and head dims 64 and 128, causal and not: through the attention kernels
// and through the composed path (softmax(q kᵀ scale) v from matmul and softmax, what the kernels replace;
// up to L = 2048, past which its L × L scores take 256 MiB a head). Counters: GFLOP/s of the model's
// products (4 L S E per head forward, twice that backward; half with causality), and the bytes the
// allocator held at its peak beyond the inputs.
#include <benchmark/benchmark.h>

#include <cmath>
#include <string>

#include "bench/bandwidth.h"
#include "bench/bench_device.h"

namespace ember_bench {
namespace {

namespace F = ember::nn::functional;

constexpr int64_t kHeads = 4;

void BM_Attention(benchmark::State& state, int64_t L, int64_t E, bool causal, bool backward, bool kernels) {
  const std::shared_ptr<ember::Device>& device = bench_device();
  ember::manual_seed(0);
  const ember::TensorOptions options = ember::TensorOptions().device(device);
  const ember::Tensor q = ember::randn({1, kHeads, L, E}, options).requires_grad_(backward);
  const ember::Tensor k = ember::randn({1, kHeads, L, E}, options).requires_grad_(backward);
  const ember::Tensor v = ember::randn({1, kHeads, L, E}, options).requires_grad_(backward);
  const ember::Tensor grad = ember::randn({1, kHeads, L, E}, options);
  auto run = [&] {
    const ember::Tensor out = kernels ? F::scaled_dot_product_attention(q, k, v, {}, 0.0, causal)
                                     : F::detail::composed_attention(q, k, v, {}, 0.0, causal, 1 / std::sqrt(double(E)));
    if (backward) ember::autograd::grad({out}, {q, k, v}, {grad});
  };
  auto stream = device->default_stream();
  time_synchronized(*stream, 1, run);  // compiles the pipelines
  device->allocator().reset_peak();
  const uint64_t held = device->allocator().stats().allocated_bytes;
  double seconds = 0;
  for (auto _ : state) {
    const double once = time_synchronized(*stream, 1, run);
    state.SetIterationTime(once);
    seconds += once;
  }
  const double flop = 4.0 * kHeads * L * L * E * (backward ? 3 : 1) * (causal ? 0.5 : 1);
  state.counters["gflops"] = flop * static_cast<double>(state.iterations()) / seconds / 1e9;
  state.counters["peak_extra_mib"] =
      static_cast<double>(device->allocator().stats().peak_allocated_bytes - held) / (1 << 20);
  state.SetLabel(std::string(kernels ? "kernels" : "composed") + (causal ? ", causal" : "") +
                 (backward ? ", forward and backward" : ", forward"));
}

[[maybe_unused]] const bool registered = [] {
  for (bool kernels : {true, false}) {
    for (bool backward : {false, true}) {
      for (bool causal : {false, true}) {
        for (int64_t E : {64, 128}) {
          for (int64_t L : {512, 1024, 2048, 4096}) {
            if (!kernels && L > 2048) continue;
            const std::string name = std::string("BM_Attention/") + (kernels ? "kernels" : "composed") + "/" +
                                     (backward ? "fwd_bwd" : "fwd") + (causal ? "/causal" : "") + "/E" +
                                     std::to_string(E) + "/L" + std::to_string(L);
            benchmark::RegisterBenchmark(name.c_str(), BM_Attention, L, E, causal, backward, kernels)
                ->UseManualTime()
                ->Unit(benchmark::kMillisecond)
                ->Iterations(1);
          }
        }
      }
    }
  }
  return true;
}();

}  // namespace
}  // namespace ember_bench
