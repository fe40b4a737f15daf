#pragma once
// What the Vulkan interop files share: the Vulkan device and stream behind ember's generic ones, and the
// buffer range a tensor's elements occupy.
#include <memory>
#include <string>

#include "ember/vulkan.h"
#include "runtime/vulkan/vulkan_device.h"
#include "runtime/vulkan/vulkan_stream.h"

namespace ember::vulkan::detail {

// Throws Error naming `what` when `device` is not a Vulkan device.
VulkanDevice& vulkan_device(const Device& device, const char* what);
VulkanStream& vulkan_stream(Stream& stream, const char* what);
// The stream that runs `device`'s tensor ops.
std::shared_ptr<VulkanStream> tensor_stream(const Device& device, const char* what);

// Why `device` cannot use the optional `extension` whose flag `enabled` reads from its context, or "" when
// it can: not a Vulkan device, or the extension not enabled on it.
std::string missing_extension(const Device& device, const char* extension, bool Context::*enabled);

// Bytes [begin, end) of the tensor's VkBuffer that its elements span.
struct TensorRange {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize begin = 0;
  VkDeviceSize end = 0;
};
TensorRange tensor_range(const Tensor& tensor, const char* what);

}  // namespace ember::vulkan::detail
