#pragma once
// ember::Device on Vulkan: a context, its pipelines, its streams, and memory from the caching allocator.
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/device.h"
#include "runtime/vulkan/context.h"
#include "runtime/vulkan/pipelines.h"
#include "runtime/vulkan/vulkan_stream.h"

namespace ember::vulkan {

class VulkanDevice final : public Device {
 public:
  static std::shared_ptr<VulkanDevice> create(std::shared_ptr<Context> context);
  ~VulkanDevice() override;

  std::shared_ptr<Stream> default_stream() override { return default_stream_; }
  std::shared_ptr<Stream> create_stream() override;
  Kernels& kernels() override { return *kernels_; }
  void synchronize() override;

  Context& context() { return *context_; }
  const std::shared_ptr<Context>& shared_context() const { return context_; }
  Pipelines& pipelines() { return *pipelines_; }
  CachingAllocator& staging_allocator() { return *staging_; }

 private:
  explicit VulkanDevice(std::shared_ptr<Context> context);

  std::shared_ptr<Context> context_;
  std::unique_ptr<Pipelines> pipelines_;
  std::shared_ptr<CachingAllocator> staging_;
  std::shared_ptr<VulkanStream> default_stream_;
  std::mutex streams_mutex_;
  std::vector<std::weak_ptr<VulkanStream>> streams_;
  std::unique_ptr<Kernels> kernels_;  // the families shaders/ registered
};


}  // namespace ember::vulkan
