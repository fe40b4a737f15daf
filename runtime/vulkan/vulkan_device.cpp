#include "runtime/vulkan/vulkan_device.h"

#include "runtime/error.h"
#include "runtime/vulkan/memory.h"

namespace ember::vulkan {

VulkanDevice::VulkanDevice(std::shared_ptr<Context> context) : context_(std::move(context)) {
  info_ = context_->info;
  allocator_ = std::make_shared<CachingAllocator>(
      std::make_unique<BlockSource>(context_, MemoryUse::Device));
  staging_ = std::make_shared<CachingAllocator>(
      std::make_unique<BlockSource>(context_, MemoryUse::Staging));
  pipelines_ = std::make_unique<Pipelines>(context_);
}

std::shared_ptr<VulkanDevice> VulkanDevice::create(std::shared_ptr<Context> context) {
  std::shared_ptr<VulkanDevice> device(new VulkanDevice(std::move(context)));
  device->default_stream_ = std::static_pointer_cast<VulkanStream>(device->create_stream());
  device->kernels_ = std::make_unique<Kernels>(*device);
  return device;
}

VulkanDevice::~VulkanDevice() {
  try {
    synchronize();
  } catch (const Error&) {
    // Lost: nothing left to wait for.
  }
}

std::shared_ptr<Stream> VulkanDevice::create_stream() {
  auto stream = std::make_shared<VulkanStream>(context_, staging_);
  std::lock_guard lock(streams_mutex_);
  std::erase_if(streams_, [](const std::weak_ptr<VulkanStream>& s) { return s.expired(); });
  streams_.push_back(stream);
  return stream;
}

void VulkanDevice::synchronize() {
  std::vector<std::shared_ptr<VulkanStream>> live;
  {
    std::lock_guard lock(streams_mutex_);
    for (auto& weak : streams_) {
      if (auto stream = weak.lock()) live.push_back(std::move(stream));
    }
  }
  for (auto& stream : live) stream->synchronize();
}

std::shared_ptr<Device> adopt_device(const ExternalDevice& external) {
  return VulkanDevice::create(Context::wrap(external));
}

}  // namespace ember::vulkan
