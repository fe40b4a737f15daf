#include "tests/interop/application.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ember::test {

namespace {

bool device_has(VkPhysicalDevice physical, const char* name) {
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> properties(count);
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, properties.data());
  return std::any_of(properties.begin(), properties.end(),
                     [&](const VkExtensionProperties& p) { return std::string(p.extensionName) == name; });
}

}  // namespace

Application::Application() : Application(Options()) {}

Application::Application(Options options) {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_2;
  const char* layer = "VK_LAYER_KHRONOS_validation";
  const char* extension = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  info.enabledLayerCount = 1;
  info.ppEnabledLayerNames = &layer;
  info.enabledExtensionCount = 1;
  info.ppEnabledExtensionNames = &extension;
  EXPECT_EQ(vkCreateInstance(&info, nullptr, &instance), VK_SUCCESS);
  VkDebugUtilsMessengerCreateInfoEXT messenger_info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  messenger_info.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
  messenger_info.pfnUserCallback = vulkan::validation_callback;
  auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
      vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
  create_messenger(instance, &messenger_info, nullptr, &messenger_);

  uint32_t count = 1;
  vkEnumeratePhysicalDevices(instance, &count, &physical);
  uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> properties(family_count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &family_count, properties.data());
  // A graphics application's queue: graphics and compute in one family.
  for (uint32_t f = 0; f < family_count; ++f) {
    const auto flags = properties[f].queueFlags;
    if ((flags & VK_QUEUE_COMPUTE_BIT) && (flags & VK_QUEUE_GRAPHICS_BIT)) {
      family = f;
      break;
    }
  }
  VkPhysicalDeviceProperties device_properties;
  vkGetPhysicalDeviceProperties(physical, &device_properties);
  const std::string name = device_properties.deviceName;
  families[0] = families[1] = family;
  const uint32_t queue_count = options.two_queues ? std::min(2u, properties[family].queueCount) : 1;
  has_second_queue = queue_count == 2;
  if (options.two_queues && !has_second_queue) {
    second_queue_missing = name + " has " + std::to_string(properties[family].queueCount) +
                           " queue(s) in its graphics and compute family";
  }
  if (options.other_family) {
    for (uint32_t f = 0; f < family_count; ++f) {
      if (f != family && (properties[f].queueFlags & (VK_QUEUE_TRANSFER_BIT | VK_QUEUE_COMPUTE_BIT))) {
        families[1] = f;
        has_second_queue = true;
        break;
      }
    }
    if (!has_second_queue) second_queue_missing = name + " has " + std::to_string(family_count) + " queue family";
  }

  vulkan::RequiredFeatures features = vulkan::required_features(vkGetInstanceProcAddr, instance, physical);
  std::vector<const char*> extensions = vulkan::required_device_extensions();
  if (options.external_memory) {
    has_external_memory = device_has(physical, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
    if (has_external_memory) {
      extensions.push_back(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
      enabled_extensions_.emplace_back(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
    } else {
      external_memory_missing = name + " lacks VK_KHR_external_memory_fd";
    }
  }
  const float priorities[2] = {1.0f, 1.0f};
  const bool two_families = families[1] != family;
  VkDeviceQueueCreateInfo queue_infos[2] = {{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO},
                                            {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO}};
  queue_infos[0].queueFamilyIndex = family;
  queue_infos[0].queueCount = queue_count;
  queue_infos[0].pQueuePriorities = priorities;
  queue_infos[1].queueFamilyIndex = families[1];
  queue_infos[1].queueCount = 1;
  queue_infos[1].pQueuePriorities = priorities;
  VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  device_info.pNext = features.chain();
  device_info.queueCreateInfoCount = two_families ? 2 : 1;
  device_info.pQueueCreateInfos = queue_infos;
  device_info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  device_info.ppEnabledExtensionNames = extensions.data();
  EXPECT_EQ(vkCreateDevice(physical, &device_info, nullptr, &device), VK_SUCCESS);
  for (uint32_t q = 0; q < queue_count; ++q) vkGetDeviceQueue(device, family, q, &queues[q]);
  if (two_families) vkGetDeviceQueue(device, families[1], 0, &queues[1]);
  for (int q = 0; q < 2; ++q) {
    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool_info.queueFamilyIndex = families[q];
    vkCreateCommandPool(device, &pool_info, nullptr, &pools_[q]);
  }
}

Application::~Application() {
  vkDeviceWaitIdle(device);
  for (VkSemaphore semaphore : semaphores_) vkDestroySemaphore(device, semaphore, nullptr);
  for (VkCommandPool pool : pools_) vkDestroyCommandPool(device, pool, nullptr);
  vkDestroyDevice(device, nullptr);
  auto destroy_messenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
      vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
  destroy_messenger(instance, messenger_, nullptr);
  vkDestroyInstance(instance, nullptr);
}

vulkan::ExternalDevice Application::external(int queue) const {
  vulkan::ExternalDevice external;
  external.instance = instance;
  external.physical_device = physical;
  external.device = device;
  external.queue_family = families[queue];
  external.queue = queues[queue];
  external.get_instance_proc_addr = vkGetInstanceProcAddr;
  external.enabled_extensions = enabled_extensions_;
  return external;
}

uint32_t Application::memory_type(uint32_t allowed, VkMemoryPropertyFlags required) const {
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(physical, &memory);
  for (uint32_t t = 0; t < memory.memoryTypeCount; ++t) {
    if ((allowed & (1u << t)) && (memory.memoryTypes[t].propertyFlags & required) == required) return t;
  }
  ADD_FAILURE() << "no memory type with flags " << required;
  return 0;
}

AppBuffer Application::create_buffer(VkDeviceSize size, VkBufferUsageFlags usage, bool host_visible) {
  AppBuffer result;
  result.size = size;
  VkBufferCreateInfo buffer_info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  buffer_info.size = size;
  buffer_info.usage = usage;
  EXPECT_EQ(vkCreateBuffer(device, &buffer_info, nullptr, &result.buffer), VK_SUCCESS);
  VkMemoryRequirements requirements;
  vkGetBufferMemoryRequirements(device, result.buffer, &requirements);
  VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocate.allocationSize = requirements.size;
  allocate.memoryTypeIndex = memory_type(
      requirements.memoryTypeBits, host_visible ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                                : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  EXPECT_EQ(vkAllocateMemory(device, &allocate, nullptr, &result.memory), VK_SUCCESS);
  vkBindBufferMemory(device, result.buffer, result.memory, 0);
  if (host_visible) vkMapMemory(device, result.memory, 0, VK_WHOLE_SIZE, 0, &result.mapped);
  return result;
}

AppBuffer Application::import_buffer(int fd, VkDeviceSize allocation_size, VkDeviceSize size,
                                     VkBufferUsageFlags usage) {
  AppBuffer result;
  result.size = size;
  VkExternalMemoryBufferCreateInfo external_info{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  external_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkBufferCreateInfo buffer_info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, &external_info};
  buffer_info.size = size;
  buffer_info.usage = usage;
  EXPECT_EQ(vkCreateBuffer(device, &buffer_info, nullptr, &result.buffer), VK_SUCCESS);
  VkMemoryRequirements requirements;
  vkGetBufferMemoryRequirements(device, result.buffer, &requirements);
  VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicated.buffer = result.buffer;
  VkImportMemoryFdInfoKHR import{VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR, &dedicated};
  import.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  import.fd = fd;
  VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &import};
  allocate.allocationSize = allocation_size;
  allocate.memoryTypeIndex = memory_type(requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  EXPECT_EQ(vkAllocateMemory(device, &allocate, nullptr, &result.memory), VK_SUCCESS);
  vkBindBufferMemory(device, result.buffer, result.memory, 0);
  return result;
}

void Application::destroy(AppBuffer& buffer) {
  if (buffer.mapped) vkUnmapMemory(device, buffer.memory);
  vkDestroyBuffer(device, buffer.buffer, nullptr);
  vkFreeMemory(device, buffer.memory, nullptr);
  buffer = {};
}

AppImage Application::create_image(VkFormat format, uint32_t width, uint32_t height) {
  AppImage result;
  VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = format;
  info.extent = {width, height, 1};
  info.mipLevels = 1;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  EXPECT_EQ(vkCreateImage(device, &info, nullptr, &result.image), VK_SUCCESS);
  VkMemoryRequirements requirements;
  vkGetImageMemoryRequirements(device, result.image, &requirements);
  VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocate.allocationSize = requirements.size;
  allocate.memoryTypeIndex = memory_type(requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  EXPECT_EQ(vkAllocateMemory(device, &allocate, nullptr, &result.memory), VK_SUCCESS);
  vkBindImageMemory(device, result.image, result.memory, 0);
  return result;
}

void Application::destroy(AppImage& image) {
  vkDestroyImage(device, image.image, nullptr);
  vkFreeMemory(device, image.memory, nullptr);
  image = {};
}

VkSemaphore Application::create_timeline() {
  VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type};
  VkSemaphore semaphore = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateSemaphore(device, &info, nullptr, &semaphore), VK_SUCCESS);
  semaphores_.push_back(semaphore);
  return semaphore;
}

VkSemaphore Application::create_binary() {
  VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  VkSemaphore semaphore = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateSemaphore(device, &info, nullptr, &semaphore), VK_SUCCESS);
  semaphores_.push_back(semaphore);
  return semaphore;
}

void Application::submit(const std::function<void(VkCommandBuffer)>& record, const SemaphoreValues& waits,
                         const SemaphoreValues& signals, bool wait, int queue) {
  VkCommandBufferAllocateInfo command_info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  command_info.commandPool = pools_[queue];
  command_info.commandBufferCount = 1;
  VkCommandBuffer commands;
  vkAllocateCommandBuffers(device, &command_info, &commands);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  vkBeginCommandBuffer(commands, &begin);
  record(commands);
  vkEndCommandBuffer(commands);

  std::vector<VkSemaphore> wait_semaphores, signal_semaphores;
  std::vector<uint64_t> wait_values, signal_values;
  std::vector<VkPipelineStageFlags> stages;
  for (auto [semaphore, value] : waits) {
    wait_semaphores.push_back(semaphore);
    wait_values.push_back(value);
    stages.push_back(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
  }
  for (auto [semaphore, value] : signals) {
    signal_semaphores.push_back(semaphore);
    signal_values.push_back(value);
  }
  VkTimelineSemaphoreSubmitInfo timeline{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  timeline.waitSemaphoreValueCount = static_cast<uint32_t>(wait_values.size());
  timeline.pWaitSemaphoreValues = wait_values.data();
  timeline.signalSemaphoreValueCount = static_cast<uint32_t>(signal_values.size());
  timeline.pSignalSemaphoreValues = signal_values.data();
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO, &timeline};
  submit.waitSemaphoreCount = static_cast<uint32_t>(wait_semaphores.size());
  submit.pWaitSemaphores = wait_semaphores.data();
  submit.pWaitDstStageMask = stages.data();
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &commands;
  submit.signalSemaphoreCount = static_cast<uint32_t>(signal_semaphores.size());
  submit.pSignalSemaphores = signal_semaphores.data();
  VkFence fence = VK_NULL_HANDLE;
  if (wait) {
    VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    vkCreateFence(device, &fence_info, nullptr, &fence);
  }
  EXPECT_EQ(vkQueueSubmit(queues[queue], 1, &submit, fence), VK_SUCCESS);
  if (wait) {
    EXPECT_EQ(vkWaitForFences(device, 1, &fence, VK_TRUE, 10'000'000'000ull), VK_SUCCESS);
    vkDestroyFence(device, fence, nullptr);
  }
}

void Application::wait_idle() { vkDeviceWaitIdle(device); }

}  // namespace ember::test
