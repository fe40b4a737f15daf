#pragma once
// An application's own Vulkan instance, device and queue handed to ember, and what that device must
// enable first. Users reach it through ember/vulkan.h.
//
//   auto extensions = ember::vulkan::required_device_extensions();
//   auto features = ember::vulkan::required_features(vkGetInstanceProcAddr, instance, physical_device);
//   // ... vkCreateDevice with features.chain() and the extensions ...
//   std::shared_ptr<ember::Device> device = ember::vulkan::adopt_device(external);
//
// ember never destroys a handle it adopted; the application keeps them alive while ember objects made
// on the device exist.
#include <vulkan/vulkan.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/device.h"

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
  // every vkQueueSubmit. Leave empty when ember and the application submit from one thread (ember
  // submits only inside calls the application makes) or ember is the only submitter.
  std::function<void()> lock_queue;
  std::function<void()> unlock_queue;
  // Extensions the application enabled beyond the required ones; ember looks here for the optional ones.
  std::vector<std::string> enabled_extensions;
};

// Device extensions an application must enable before handing its device to ember.
std::vector<const char*> required_device_extensions();
// Extensions ember uses when the device has them: external memory and semaphores as file descriptors
// (ember/vulkan.h's export and import). An application that enables some lists them in
// ExternalDevice::enabled_extensions.
std::vector<const char*> optional_device_extensions();

// Feature structs to chain into VkDeviceCreateInfo::pNext (through `chain()`), with what ember needs set
// and, where the physical device supports them, the optional features ember uses (8/16-bit storage,
// float16, int8, int64, float64, 64-bit atomics).
struct RequiredFeatures {
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan11Features vulkan11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features vulkan12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  const void* chain();  // links the structs and returns &features
};
RequiredFeatures required_features(PFN_vkGetInstanceProcAddr get_instance_proc_addr, VkInstance instance,
                                   VkPhysicalDevice physical_device);

// Adopts an application's device. Dropping every ember object that came from it leaves the
// application's handles as they were.
std::shared_ptr<Device> adopt_device(const ExternalDevice& external);

// Validation messages (warnings and errors) collected from every instance ember created with validation
// on, and from any application messenger that forwards to `validation_callback`.
std::vector<std::string> take_validation_messages();
VKAPI_ATTR VkBool32 VKAPI_CALL validation_callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT types,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                   void* user);

}  // namespace ember::vulkan
