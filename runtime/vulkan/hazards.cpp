#include "runtime/vulkan/hazards.h"

namespace ember::vulkan {

bool HazardTracker::conflicts(std::span<const BufferAccess> accesses) const {
  for (const BufferAccess& next : accesses) {
    for (const BufferAccess& earlier : recorded_) {
      if (earlier.buffer != next.buffer || !(earlier.write || next.write)) continue;
      if (earlier.begin < next.end && next.begin < earlier.end) return true;
    }
  }
  return false;
}

void HazardTracker::add(std::span<const BufferAccess> accesses) {
  recorded_.insert(recorded_.end(), accesses.begin(), accesses.end());
}

}  // namespace ember::vulkan
