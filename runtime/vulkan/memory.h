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
