#pragma once
// Decides where a batch needs a barrier: only where recorded work touches a buffer range that work since
// the last barrier wrote, or writes a range that such work read.
#include <span>
#include <vector>

#include <vulkan/vulkan.h>

namespace ember::vulkan {

struct BufferAccess {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize begin = 0;
  VkDeviceSize end = 0;
  bool write = false;
};

class HazardTracker {
 public:
  // True when `accesses` conflict (read after write, write after read, write after write) with an
  // access recorded since the last clear().
  bool conflicts(std::span<const BufferAccess> accesses) const;
  void add(std::span<const BufferAccess> accesses);
  void clear() { recorded_.clear(); }

 private:
  std::vector<BufferAccess> recorded_;
};

}  // namespace ember::vulkan
