#pragma once
// A Vulkan instance, physical device, device and queue that ember works on: either created by ember, or
// adopted from an application (ember/vulkan.h), in which case ember never destroys them.
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/vulkan/external_device.h"
#include "runtime/device.h"
#include "runtime/vulkan/entry_points.h"
#include "runtime/vulkan/float_controls.h"

namespace ember::vulkan {

// The features ember enables on a device it creates: required_features() read through `fn`.
RequiredFeatures required_features(const EntryPoints& fn, VkPhysicalDevice physical_device);

class Instance;

class Context {
 public:
  // Creates a device on the physical device at `index` in ember's preference order.
  static std::shared_ptr<Context> create(int index);
  static std::shared_ptr<Context> wrap(const ExternalDevice& external);
  ~Context();

  EntryPoints fn;
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  uint32_t queue_family = 0;
  VkQueue queue = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties properties{};
  VkPhysicalDeviceMemoryProperties memory_properties{};
  bool has_memory_budget = false;
  bool storage_8bit = false;
  bool storage_16bit = false;
  bool float64 = false;
  bool int64_atomics = false;  // shaderBufferInt64Atomics
  FloatControls float_controls;  // what every shader is given before it is compiled
  // VK_KHR_external_memory_fd and VK_KHR_external_semaphore_fd, enabled on the device.
  bool external_memory_fd = false;
  bool external_semaphore_fd = false;
  DeviceInfo info;

  // vkQueueSubmit under the application's queue lock. Marks the device lost and throws on failure.
  void submit(const VkSubmitInfo& submit_info);
  // Throws DeviceLostError (marking the device lost) or Error, naming `what`, unless `result` is success.
  void check(VkResult result, const char* what);
  bool lost() const { return lost_.load(); }
  void throw_if_lost() const;

 private:
  Context() = default;
  void init_properties();
  void create_device();
  void note_optional_extensions(const std::vector<std::string>& enabled);

  std::shared_ptr<Instance> owned_instance_;  // null when adopted
  bool owns_device_ = false;
  ExternalDevice external_;
  std::mutex submit_mutex_;
  std::atomic<bool> lost_{false};
};

// Describes every physical device in preference order (discrete, integrated, virtual, CPU).
std::vector<DeviceInfo> enumerate_devices();
// Why there is no usable Vulkan device, or "" when there is one.
std::string vulkan_unavailable_reason();
// Lets ember's instance go once no Context holds it; the next enumeration or Context::create makes a new one.
void release_instance();

}  // namespace ember::vulkan
