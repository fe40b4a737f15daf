#pragma once
// A Vulkan instance, physical device, device and queue that ember works on: either created by ember, or
// adopted from an application, in which case ember never destroys them.
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/device.h"
#include "runtime/vulkan/functions.h"

namespace ember::vulkan {

// What an application hands over. The handles stay the application's.
struct ExternalDevice {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  uint32_t queue_family = 0;
  VkQueue queue = VK_NULL_HANDLE;
  PFN_vkGetInstanceProcAddr get_instance_proc_addr = nullptr;
  // When the application submits to the same queue from other threads, ember takes its lock around
  // every vkQueueSubmit. Leave empty when ember is the only submitter.
  std::function<void()> lock_queue;
  std::function<void()> unlock_queue;
};

// Device extensions an application must enable before handing its device to ember.
std::vector<const char*> required_device_extensions();

// Feature structs to chain into VkDeviceCreateInfo::pNext (through `chain()`), with what ember needs set
// and, where the physical device supports them, the optional features ember uses (8/16-bit storage,
// float16, int8, int64, float64).
struct RequiredFeatures {
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan11Features vulkan11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features vulkan12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  const void* chain();  // links the structs and returns &features
};
RequiredFeatures required_features(const Functions& fn, VkPhysicalDevice physical_device);

// Validation messages (warnings and errors) collected from every instance ember created with validation
// on, and from any application messenger that forwards to `validation_callback`.
std::vector<std::string> take_validation_messages();
VKAPI_ATTR VkBool32 VKAPI_CALL validation_callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT types,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                   void* user);

class Instance;

class Context {
 public:
  // Creates a device on the physical device at `index` in ember's preference order.
  static std::shared_ptr<Context> create(int index);
  static std::shared_ptr<Context> wrap(const ExternalDevice& external);
  ~Context();

  Functions fn;
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

}  // namespace ember::vulkan
