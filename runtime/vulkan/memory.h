#pragma once
// Device memory blocks for the caching allocator: one VkDeviceMemory with one VkBuffer spanning it.
#include <memory>
#include <string>

#include "runtime/allocator.h"
#include "runtime/vulkan/context.h"

namespace ember::vulkan {

enum class MemoryUse {
  Device,   // tensors: device-local, and mapped when the device-local heap is host-visible (UMA, lavapipe)
  Staging,  // host transfers: host-visible and coherent
};

// Usage every buffer that ember's kernels and copies bind needs.
constexpr VkBufferUsageFlags kBindingUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
                                             VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT |
                                             VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
// Usage ember's buffers also carry, so that an application can draw from a tensor's buffer as it is.
constexpr VkBufferUsageFlags kGraphicsUsage =
    VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;

// The memory type for `use` among the `allowed` types (VkMemoryRequirements::memoryTypeBits).
uint32_t choose_memory_type(const Context& context, uint32_t allowed, MemoryUse use);

class BlockSource final : public ember::BlockSource {
 public:
  BlockSource(std::shared_ptr<Context> context, MemoryUse use);
  ~BlockSource() override;

  std::optional<MemoryBlock> allocate_block(uint64_t bytes) override;
  void release_block(const MemoryBlock& block) override;
  uint64_t device_total() const override;
  uint64_t device_available(uint64_t reserved_by_us) const override;
  uint64_t max_block_size() const override;
  std::string device_name() const override;

  bool host_visible() const { return host_visible_; }

 private:
  std::shared_ptr<Context> context_;
  uint32_t memory_type_ = 0;
  uint32_t heap_ = 0;
  bool host_visible_ = false;
};

}  // namespace ember::vulkan
