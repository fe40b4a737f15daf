#include "bench/reference_shaders.h"

#include <map>
#include <span>
#include <utility>

#include "bench/bandwidth.h"
#include "bench/bench_device.h"
#include "runtime/vulkan/shader_registry.h"
#include "runtime/vulkan/vulkan_device.h"

namespace ember_bench {

namespace {

// Push constants of both shaders: the element count.
const ember::vulkan::KernelAbiRegistration kReferenceAbis{{"reference_add", 3, sizeof(uint32_t)},
                                                          {"reference_copy", 2, sizeof(uint32_t)}};

}  // namespace

ReferenceLaunch::ReferenceLaunch(ember::Device& device, Reference kind, uint64_t bytes)
    : device_(device), kind_(kind), bytes_(bytes), out_(device.allocate(bytes)),
      a_(ones_buffer(device, bytes)), b_(ones_buffer(device, bytes)) {}

void ReferenceLaunch::record(ember::Stream& stream) const {
  auto& device = dynamic_cast<ember::vulkan::VulkanDevice&>(device_);
  auto whole = [&](ember::Allocation& allocation, bool write) {
    return ember::vulkan::Binding{&allocation, allocation.offset(), bytes_, write};
  };
  const ember::vulkan::Binding bindings[3] = {whole(*out_, true), whole(*a_, false), whole(*b_, false)};
  const auto numel = static_cast<uint32_t>(bytes_ / sizeof(float));
  const bool add = kind_ == Reference::Add;
  dynamic_cast<ember::vulkan::VulkanStream&>(stream).dispatch(
      device.pipelines().get(add ? "reference_add" : "reference_copy"), std::span(bindings, add ? 3 : 2),
      &numel, sizeof numel, (numel + 255) / 256);
}

bool has_reference_shaders() {
  return dynamic_cast<ember::vulkan::VulkanDevice*>(bench_device().get()) != nullptr;
}

double reference_bytes_per_second(Reference kind, uint64_t bytes) {
  static std::map<std::pair<Reference, uint64_t>, double> measured;
  if (auto found = measured.find({kind, bytes}); found != measured.end()) return found->second;
  ember::Device& device = *bench_device();
  const ReferenceLaunch launch(device, kind, bytes);
  auto stream = device.default_stream();
  const int ops = ops_per_sync(bytes);
  auto record = [&] { launch.record(*stream); };
  time_synchronized(*stream, ops, record);  // warm: the pipeline and the first touch of out
  double seconds = 0;
  int rounds = 0;
  while (rounds < 3 || seconds < 0.2) {
    seconds += time_synchronized(*stream, ops, record);
    rounds += 1;
  }
  const double rate = static_cast<double>(launch.bytes_per_op()) * ops * rounds / seconds;
  measured.emplace(std::pair{kind, bytes}, rate);
  return rate;
}

}  // namespace ember_bench
