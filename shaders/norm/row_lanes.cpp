#include "shaders/norm/row_lanes.h"

#include <algorithm>

#include "shaders/reduce/reduce_plan.h"

namespace ember::vulkan {

namespace {
constexpr int64_t kElementsPerInvocation = 8;
constexpr int64_t kCpuInvocations = 1024;
}  // namespace

uint32_t row_lanes_log2(const Context& context, int64_t rows, int64_t length) {
  const uint32_t by_length = std::min<uint32_t>(
      8, ceil_log2(static_cast<uint64_t>(std::max<int64_t>(1, ceil_div(length, kElementsPerInvocation)))));
  if (context.properties.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU) return by_length;
  const int64_t wanted = ceil_div(kCpuInvocations, std::max<int64_t>(rows, 1));
  return std::min(by_length, ceil_log2(static_cast<uint64_t>(wanted)));
}

}  // namespace ember::vulkan
