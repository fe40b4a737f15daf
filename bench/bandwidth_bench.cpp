// Memory bandwidth: the device copy (vkCmdCopyBuffer through Stream::copy) is the roofline; the copy and
// add kernels are reported as a fraction of it, measured at the same size in the same run, and beside the
// plain reference shaders of bench/reference_shaders.h (vs_reference).
#include <benchmark/benchmark.h>

#include "bench/bandwidth.h"
#include "bench/bench_device.h"
#include "bench/reference_shaders.h"

namespace ember_bench {
namespace {

// Times each round of `ops` recorded ops plus a synchronize, and reports bytes moved per second.
// Returns the same rate so that callers can relate it to the copy roofline.
double run_rounds(benchmark::State& state, ember::Stream& stream, int ops, uint64_t bytes_per_op,
                  const std::function<void()>& record) {
  double seconds = 0;
  for (auto _ : state) {
    const double round = time_synchronized(stream, ops, record);
    state.SetIterationTime(round);
    seconds += round;
  }
  const auto bytes_per_round = static_cast<int64_t>(bytes_per_op) * ops;
  state.SetBytesProcessed(bytes_per_round * static_cast<int64_t>(state.iterations()));
  state.counters["ops_per_sync"] = ops;
  return seconds > 0 ? static_cast<double>(bytes_per_round) * state.iterations() / seconds : 0;
}

void BM_DeviceCopy(benchmark::State& state) {
  ember::Device& device = *bench_device();
  const auto bytes = static_cast<uint64_t>(state.range(0));
  auto src = ones_buffer(device, bytes);
  auto dst = device.allocate(bytes);
  auto stream = device.default_stream();
  run_rounds(state, *stream, ops_per_sync(bytes), 2 * bytes,
             [&] { stream->copy(*dst, 0, *src, 0, bytes); });
}

void BM_CopyKernel(benchmark::State& state) {
  ember::Device& device = *bench_device();
  const auto bytes = static_cast<uint64_t>(state.range(0));
  auto in = ones_buffer(device, bytes);
  auto out = device.allocate(bytes);
  const ember::TensorRef in_view = float_view(*in);
  const ember::TensorRef out_view = float_view(*out);
  auto stream = device.default_stream();
  const double rate = run_rounds(state, *stream, ops_per_sync(bytes), 2 * bytes, [&] {
    device.kernels().get<ember::MemoryKernels>().copy(*stream, {out_view, in_view});
  });
  state.counters["fraction_of_copy"] = rate / device_copy_bytes_per_second(device, bytes);
  if (has_reference_shaders()) state.counters["vs_reference"] = rate / reference_bytes_per_second(Reference::Copy, bytes);
}

void BM_AddKernel(benchmark::State& state) {
  ember::Device& device = *bench_device();
  const auto bytes = static_cast<uint64_t>(state.range(0));  // per array
  auto a = ones_buffer(device, bytes);
  auto b = ones_buffer(device, bytes);
  auto out = device.allocate(bytes);
  const ember::TensorRef a_view = float_view(*a);
  const ember::TensorRef b_view = float_view(*b);
  const ember::TensorRef out_view = float_view(*out);
  auto stream = device.default_stream();
  // Two arrays read and one written; the add moves 1.5 times the bytes of a copy of the same size.
  const double rate = run_rounds(state, *stream, ops_per_sync(bytes), 3 * bytes, [&] {
    device.kernels().get<ember::ElementwiseKernels>().binary(*stream, {.op = ember::BinaryOp::Add, .out = out_view, .a = a_view, .b = b_view, .compute = ember::DType::Float32});
  });
  state.counters["fraction_of_copy"] = rate / device_copy_bytes_per_second(device, bytes);
  if (has_reference_shaders()) state.counters["vs_reference"] = rate / reference_bytes_per_second(Reference::Add, bytes);
}

void bandwidth_sizes(benchmark::internal::Benchmark* b) {
  b->ArgName("bytes")->Arg(1 * kMiB)->Arg(16 * kMiB)->Arg(64 * kMiB);
  // Long enough for a few rounds of the slow kernels on lavapipe, short enough for a two-minute run.
  b->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
}

BENCHMARK(BM_DeviceCopy)->Apply(bandwidth_sizes);
BENCHMARK(BM_CopyKernel)->Apply(bandwidth_sizes);
BENCHMARK(BM_AddKernel)->Apply(bandwidth_sizes);

}  // namespace
}  // namespace ember_bench
