#include "runtime/vulkan/memory.h"

#include <algorithm>

#include "runtime/error.h"

namespace ember::vulkan {

namespace {

constexpr VkBufferUsageFlags kBufferUsage = kBindingUsage | kGraphicsUsage;

}  // namespace

uint32_t choose_memory_type(const Context& context, uint32_t allowed, MemoryUse use) {
  const auto& memory = context.memory_properties;
  uint64_t largest_local_heap = 0;
  for (uint32_t h = 0; h < memory.memoryHeapCount; ++h) {
    if (memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) {
      largest_local_heap = std::max<uint64_t>(largest_local_heap, memory.memoryHeaps[h].size);
    }
  }
  auto find = [&](VkMemoryPropertyFlags required, auto&& accept) -> int {
    for (uint32_t t = 0; t < memory.memoryTypeCount; ++t) {
      if (!(allowed & (1u << t))) continue;
      if ((memory.memoryTypes[t].propertyFlags & required) != required) continue;
      if (!accept(t)) continue;
      return static_cast<int>(t);
    }
    return -1;
  };
  const auto host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  int type = -1;
  if (use == MemoryUse::Device) {
    // Host-visible device-local memory counts only when it is the main heap (UMA, or resizable BAR),
    // not a small BAR window.
    type = find(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | host, [&](uint32_t t) {
      return memory.memoryHeaps[memory.memoryTypes[t].heapIndex].size >= largest_local_heap;
    });
    if (type < 0) type = find(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, [](uint32_t) { return true; });
  } else {
    type = find(host | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, [](uint32_t) { return true; });
    if (type < 0) type = find(host, [](uint32_t) { return true; });
  }
  if (type < 0) type = find(0, [](uint32_t) { return true; });
  if (type < 0) throw UnsupportedError(context.info.name + " has no memory type for storage buffers");
  return static_cast<uint32_t>(type);
}

BlockSource::BlockSource(std::shared_ptr<Context> context, MemoryUse use)
    : context_(std::move(context)) {
  // Memory type bits for storage buffers do not depend on size, so probe with a small buffer.
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = 4096;
  info.usage = kBufferUsage;
  VkBuffer probe = VK_NULL_HANDLE;
  context_->check(context_->fn.vkCreateBuffer(context_->device, &info, nullptr, &probe),
                  "vkCreateBuffer");
  VkMemoryRequirements requirements;
  context_->fn.vkGetBufferMemoryRequirements(context_->device, probe, &requirements);
  context_->fn.vkDestroyBuffer(context_->device, probe, nullptr);
  memory_type_ = choose_memory_type(*context_, requirements.memoryTypeBits, use);
  const auto& type = context_->memory_properties.memoryTypes[memory_type_];
  heap_ = type.heapIndex;
  host_visible_ = (type.propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) &&
                  (type.propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
}

BlockSource::~BlockSource() = default;

std::optional<MemoryBlock> BlockSource::allocate_block(uint64_t bytes) {
  const EntryPoints& fn = context_->fn;
  context_->throw_if_lost();
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = bytes;
  info.usage = kBufferUsage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkResult result = fn.vkCreateBuffer(context_->device, &info, nullptr, &buffer);
  if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY) {
    return std::nullopt;
  }
  context_->check(result, "vkCreateBuffer");
  VkMemoryRequirements requirements;
  fn.vkGetBufferMemoryRequirements(context_->device, buffer, &requirements);
  VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocate.allocationSize = requirements.size;
  allocate.memoryTypeIndex = memory_type_;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  result = fn.vkAllocateMemory(context_->device, &allocate, nullptr, &memory);
  if (result != VK_SUCCESS) {
    fn.vkDestroyBuffer(context_->device, buffer, nullptr);
    if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY) {
      return std::nullopt;
    }
    context_->check(result, "vkAllocateMemory");
  }
  auto cleanup = [&] {
    fn.vkFreeMemory(context_->device, memory, nullptr);
    fn.vkDestroyBuffer(context_->device, buffer, nullptr);
  };
  result = fn.vkBindBufferMemory(context_->device, buffer, memory, 0);
  if (result != VK_SUCCESS) {
    cleanup();
    context_->check(result, "vkBindBufferMemory");
  }
  MemoryBlock block;
  block.handle = reinterpret_cast<uint64_t>(buffer);
  block.memory = reinterpret_cast<uint64_t>(memory);
  block.size = bytes;
  block.usage = kBufferUsage;
  if (host_visible_) {
    result = fn.vkMapMemory(context_->device, memory, 0, VK_WHOLE_SIZE, 0, &block.mapped);
    if (result != VK_SUCCESS) {
      cleanup();
      context_->check(result, "vkMapMemory");
    }
  }
  return block;
}

void BlockSource::release_block(const MemoryBlock& block) {
  const EntryPoints& fn = context_->fn;
  auto memory = reinterpret_cast<VkDeviceMemory>(block.memory);
  if (block.mapped) fn.vkUnmapMemory(context_->device, memory);
  fn.vkDestroyBuffer(context_->device, reinterpret_cast<VkBuffer>(block.handle), nullptr);
  fn.vkFreeMemory(context_->device, memory, nullptr);
}

uint64_t BlockSource::device_total() const {
  return context_->memory_properties.memoryHeaps[heap_].size;
}

uint64_t BlockSource::device_available(uint64_t reserved_by_us) const {
  if (context_->has_memory_budget) {
    VkPhysicalDeviceMemoryBudgetPropertiesEXT budget{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
    VkPhysicalDeviceMemoryProperties2 memory{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2,
                                             &budget};
    context_->fn.vkGetPhysicalDeviceMemoryProperties2(context_->physical_device, &memory);
    const uint64_t usage = budget.heapUsage[heap_];
    return budget.heapBudget[heap_] > usage ? budget.heapBudget[heap_] - usage : 0;
  }
  const uint64_t total = device_total();
  return total > reserved_by_us ? total - reserved_by_us : 0;
}

uint64_t BlockSource::max_block_size() const { return context_->info.max_allocation_size; }

std::string BlockSource::device_name() const { return context_->info.name; }

}  // namespace ember::vulkan
