// Allocation throughput: ember's caching allocator (a cache hit after the first round) against the
// driver's vkAllocateMemory + vkFreeMemory of the same size, which is what the cache saves.
#include <benchmark/benchmark.h>

#include <optional>

#include "bench/bandwidth.h"
#include "bench/bench_device.h"
#include "runtime/vulkan/vulkan_device.h"

namespace ember_bench {
namespace {

constexpr uint64_t kAllocationBytes = 1 * kMiB;

benchmark::Counter per_second(double count) {
  return benchmark::Counter(count, benchmark::Counter::kIsRate);
}

void BM_CachingAllocate(benchmark::State& state) {
  ember::Device& device = *bench_device();
  device.allocate(kAllocationBytes);  // primes the cache, so the loop measures the hit path
  const ember::AllocatorStats before = device.allocator().stats();
  for (auto _ : state) {
    auto allocation = device.allocate(kAllocationBytes);
    benchmark::DoNotOptimize(allocation.get());
  }
  const ember::AllocatorStats after = device.allocator().stats();
  const auto iterations = static_cast<double>(state.iterations());
  state.counters["allocs_per_s"] = per_second(iterations);
  state.counters["cache_hit_fraction"] =
      static_cast<double>(after.cache_hits - before.cache_hits) / iterations;
}

std::optional<uint32_t> first_device_local_type(const VkPhysicalDeviceMemoryProperties& memory) {
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
    if (memory.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) return i;
  }
  return std::nullopt;
}

void BM_VkAllocateMemory(benchmark::State& state) {
  auto* vulkan = dynamic_cast<ember::vulkan::VulkanDevice*>(bench_device().get());
  if (vulkan == nullptr) {
    state.SkipWithError("needs a Vulkan device");
    return;
  }
  ember::vulkan::Context& context = vulkan->context();
  const std::optional<uint32_t> type = first_device_local_type(context.memory_properties);
  if (!type) {
    state.SkipWithError("no DEVICE_LOCAL memory type");
    return;
  }
  VkMemoryAllocateInfo info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  info.allocationSize = kAllocationBytes;
  info.memoryTypeIndex = *type;
  for (auto _ : state) {
    VkDeviceMemory memory = VK_NULL_HANDLE;
    if (context.fn.vkAllocateMemory(context.device, &info, nullptr, &memory) != VK_SUCCESS) {
      state.SkipWithError("vkAllocateMemory failed");
      break;
    }
    context.fn.vkFreeMemory(context.device, memory, nullptr);
  }
  state.counters["allocs_per_s"] = per_second(static_cast<double>(state.iterations()));
}

BENCHMARK(BM_CachingAllocate)->UseRealTime()->MinTime(0.2);
BENCHMARK(BM_VkAllocateMemory)->UseRealTime()->MinTime(0.2);

}  // namespace
}  // namespace ember_bench
