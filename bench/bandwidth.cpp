#include "bench/bandwidth.h"

#include <algorithm>
#include <chrono>
#include <map>

namespace ember_bench {

int ops_per_sync(uint64_t bytes) {
  return static_cast<int>(std::clamp<uint64_t>(64 * kMiB / std::max<uint64_t>(bytes, 1), 1, 64));
}

std::shared_ptr<ember::Allocation> ones_buffer(ember::Device& device, uint64_t bytes) {
  auto allocation = device.allocate(bytes);
  auto stream = device.default_stream();
  device.kernels().get<ember::MemoryKernels>().fill(*stream, {float_view(*allocation), 1.0});
  stream->synchronize();
  return allocation;
}

ember::TensorRef float_view(ember::Allocation& allocation) {
  const auto elements = static_cast<int64_t>(allocation.size() / sizeof(float));
  return ember::TensorRef::contiguous(allocation, ember::DType::Float32, {elements});
}

double time_synchronized(ember::Stream& stream, int ops, const std::function<void()>& record) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < ops; ++i) record();
  stream.synchronize();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double device_copy_bytes_per_second(ember::Device& device, uint64_t bytes) {
  static std::map<uint64_t, double> measured;
  if (auto found = measured.find(bytes); found != measured.end()) return found->second;

  auto src = ones_buffer(device, bytes);
  auto dst = device.allocate(bytes);
  auto stream = device.default_stream();
  const int ops = ops_per_sync(bytes);
  auto record = [&] { stream->copy(*dst, 0, *src, 0, bytes); };

  time_synchronized(*stream, ops, record);  // warm: first touch of dst's pages
  // Same recording pattern as BM_DeviceCopy, for long enough that one slow round does not decide it.
  double seconds = 0;
  int rounds = 0;
  while (rounds < 3 || seconds < 0.1) {
    seconds += time_synchronized(*stream, ops, record);
    rounds += 1;
  }
  const double rate = 2.0 * static_cast<double>(bytes) * ops * rounds / seconds;
  measured.emplace(bytes, rate);
  return rate;
}

}  // namespace ember_bench
