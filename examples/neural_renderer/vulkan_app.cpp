#include "examples/neural_renderer/vulkan_app.h"

#include <stdexcept>
#include <vector>

namespace ember::neural_renderer {

void check(VkResult result, const char* what) {
  if (result != VK_SUCCESS) throw std::runtime_error(std::string(what) + " failed (VkResult " + std::to_string(result) + ")");
}

VulkanApp::VulkanApp(bool validation) {
  create_instance(validation);
  choose_physical_device();
  create_device();
}

VulkanApp::~VulkanApp() {
  if (device_) {
    vkDeviceWaitIdle(device_);
    vkDestroyDevice(device_, nullptr);
  }
  if (messenger_) {
    auto destroy_messenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    destroy_messenger(instance_, messenger_, nullptr);
  }
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

void VulkanApp::create_instance(bool validation) {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "ember-neural-renderer";
  app.apiVersion = VK_API_VERSION_1_3;
  const char* layer = "VK_LAYER_KHRONOS_validation";
  const char* extension = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  // ember's callback collects the messages, so that one list at exit covers both ember and the renderer.
  VkDebugUtilsMessengerCreateInfoEXT messenger_info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  messenger_info.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT;
  messenger_info.pfnUserCallback = vulkan::validation_callback;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  if (validation) {
    info.pNext = &messenger_info;  // also reports what goes wrong in vkCreateInstance itself
    info.enabledLayerCount = 1;
    info.ppEnabledLayerNames = &layer;
    info.enabledExtensionCount = 1;
    info.ppEnabledExtensionNames = &extension;
  }
  const VkResult result = vkCreateInstance(&info, nullptr, &instance_);
  if (result == VK_ERROR_LAYER_NOT_PRESENT) {
    throw std::runtime_error("EMBER_VALIDATION is set but VK_LAYER_KHRONOS_validation is not installed");
  }
  check(result, "vkCreateInstance");
  if (validation) {
    auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
    check(create_messenger(instance_, &messenger_info, nullptr, &messenger_), "vkCreateDebugUtilsMessengerEXT");
  }
}

// The first device with a queue family that draws and computes: ember's work and the renderer's share
// one queue, so that the timeline semaphores order them without any queue-family transfer.
void VulkanApp::choose_physical_device() {
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance_, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  vkEnumeratePhysicalDevices(instance_, &count, devices.data());
  constexpr VkQueueFlags wanted = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
  for (VkPhysicalDevice candidate : devices) {
    uint32_t families = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(candidate, &families, nullptr);
    std::vector<VkQueueFamilyProperties> properties(families);
    vkGetPhysicalDeviceQueueFamilyProperties(candidate, &families, properties.data());
    for (uint32_t f = 0; f < families; ++f) {
      if ((properties[f].queueFlags & wanted) == wanted) {
        physical_ = candidate;
        family_ = f;
        VkPhysicalDeviceProperties device_properties;
        vkGetPhysicalDeviceProperties(candidate, &device_properties);
        device_name_ = device_properties.deviceName;
        return;
      }
    }
  }
  throw std::runtime_error("no Vulkan device has a queue family with both graphics and compute");
}

void VulkanApp::create_device() {
  vulkan::RequiredFeatures features = vulkan::required_features(vkGetInstanceProcAddr, instance_, physical_);
  const std::vector<const char*> extensions = vulkan::required_device_extensions();
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = family_;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.pNext = features.chain();
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue_info;
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  check(vkCreateDevice(physical_, &info, nullptr, &device_), "vkCreateDevice");
  vkGetDeviceQueue(device_, family_, 0, &queue_);
}

vulkan::ExternalDevice VulkanApp::external_device() {
  vulkan::ExternalDevice external;
  external.instance = instance_;
  external.physical_device = physical_;
  external.device = device_;
  external.queue_family = family_;
  external.queue = queue_;
  external.get_instance_proc_addr = vkGetInstanceProcAddr;
  external.lock_queue = [this] { queue_mutex_.lock(); };
  external.unlock_queue = [this] { queue_mutex_.unlock(); };
  return external;
}

void VulkanApp::submit(const VkSubmitInfo& info, VkFence fence) {
  std::lock_guard lock(queue_mutex_);
  check(vkQueueSubmit(queue_, 1, &info, fence), "vkQueueSubmit");
}

void VulkanApp::wait_idle() noexcept {
  std::lock_guard lock(queue_mutex_);
  // Teardown only: a lost device has nothing left to wait for, so the result does not matter.
  vkQueueWaitIdle(queue_);
}

uint32_t VulkanApp::memory_type(uint32_t type_bits, VkMemoryPropertyFlags properties) const {
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory);
  for (uint32_t t = 0; t < memory.memoryTypeCount; ++t) {
    if ((type_bits & (1u << t)) && (memory.memoryTypes[t].propertyFlags & properties) == properties) return t;
  }
  throw std::runtime_error("no Vulkan memory type has the properties the renderer needs");
}

}  // namespace ember::neural_renderer
