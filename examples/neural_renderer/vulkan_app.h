#pragma once
// The application's own Vulkan: an instance (with the validation layer when EMBER_VALIDATION asks, its
// messages forwarded to ember's log), a physical device, a device with what ember needs enabled, and the
// one graphics-and-compute queue that the renderer and ember share.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <mutex>
#include <string>

#include "ember/vulkan.h"

namespace ember::neural_renderer {

class VulkanApp {
 public:
  explicit VulkanApp(bool validation);
  ~VulkanApp();
  VulkanApp(const VulkanApp&) = delete;
  VulkanApp& operator=(const VulkanApp&) = delete;

  // What ember::vulkan::adopt_device takes; ember submits under the same lock as the renderer.
  vulkan::ExternalDevice external_device();

  // vkQueueSubmit under the queue lock that ember also takes.
  void submit(const VkSubmitInfo& info, VkFence fence);
  // Waits until the queue and everything on it are idle (teardown only; never throws).
  void wait_idle() noexcept;

  // The first memory type in `type_bits` with all of `properties`; throws when there is none.
  uint32_t memory_type(uint32_t type_bits, VkMemoryPropertyFlags properties) const;

  VkDevice device() const { return device_; }
  uint32_t queue_family() const { return family_; }
  const std::string& device_name() const { return device_name_; }

 private:
  void create_instance(bool validation);
  void choose_physical_device();
  void create_device();

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  uint32_t family_ = 0;
  VkQueue queue_ = VK_NULL_HANDLE;
  std::string device_name_;
  std::mutex queue_mutex_;
};

// Throws a runtime_error naming `what` unless `result` is VK_SUCCESS.
void check(VkResult result, const char* what);

}  // namespace ember::neural_renderer
