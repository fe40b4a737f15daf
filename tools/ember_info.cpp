// ember-info: prints every device ember can use, in the order ember prefers them.
#include <cstdio>
#include <exception>
#include <string>

#include "ember.h"

namespace {

const char* yes_no(bool value) { return value ? "yes" : "no"; }

void print(const ember::DeviceInfo& info) {
  std::printf("%s  %s\n", info.spec().c_str(), info.name.c_str());
  std::printf("  kind               %s\n", info.kind.c_str());
  std::printf("  vendor             %s\n", info.vendor.c_str());
  std::printf("  driver             %s\n", info.driver.c_str());
  std::printf("  API version        %s\n", info.api_version.c_str());
  for (size_t h = 0; h < info.heaps.size(); ++h) {
    const auto& heap = info.heaps[h];
    std::printf("  memory heap %zu      %s%s", h, ember::format_bytes(heap.size).c_str(),
                heap.device_local ? " device-local" : "");
    if (heap.budget) {
      std::printf(", budget %s, in use %s", ember::format_bytes(heap.budget).c_str(),
                  ember::format_bytes(heap.usage).c_str());
    } else {
      std::printf(", budget not reported");
    }
    std::printf("\n");
  }
  std::printf("  subgroup size      %u\n", info.subgroup_size);
  std::printf("  shared memory      %s\n", ember::format_bytes(info.shared_memory_bytes).c_str());
  std::printf("  max workgroup      %u x %u x %u, %u invocations\n", info.max_workgroup_size[0],
              info.max_workgroup_size[1], info.max_workgroup_size[2], info.max_workgroup_invocations);
  std::printf("  storage range      %s per binding\n",
              ember::format_bytes(info.max_storage_buffer_range).c_str());
  std::printf("  max allocation     %s\n", ember::format_bytes(info.max_allocation_size).c_str());
  std::printf("  float16 %s  bfloat16 %s  int8 %s  int64 %s  float64 %s\n", yes_no(info.float16),
              yes_no(info.bfloat16), yes_no(info.int8), yes_no(info.int64), yes_no(info.float64));
  std::printf("  cooperative matrix %s\n", info.cooperative_matrix.c_str());
  if (!info.float_controls.empty()) std::printf("  float controls     %s\n", info.float_controls.c_str());
}

}  // namespace

int main() {
  try {
    const auto devices = ember::list_devices();
    if (devices.empty()) std::printf("no devices found\n");
    for (const auto& info : devices) {
      print(info);
      std::printf("\n");
    }
    const std::string cuda = ember::cuda_unavailable_reason();
    if (!cuda.empty()) std::printf("CUDA: %s\n", cuda.c_str());
    if (!devices.empty()) {
      auto device = ember::default_device();
      std::printf("default device: %s (%s)%s\n", device->spec().c_str(), device->info().name.c_str(),
                  std::getenv("EMBER_DEVICE") ? " from EMBER_DEVICE" : "");
    }
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "ember-info: %s\n", error.what());
    return 1;
  }
}
