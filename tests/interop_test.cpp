// A graphics application's own VkDevice handed to ember: ember runs work on it, is torn down, and the
// application's device keeps working.
#include <cstring>

#include "ember/vulkan.h"
#include "test_support.h"

namespace ember::test {
namespace {

// The application side: its own instance (with validation forwarded to ember's log), device and queue.
struct Application {
  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  uint32_t family = 0;
  VkQueue queue = VK_NULL_HANDLE;

  Application() {
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
    VkDebugUtilsMessengerCreateInfoEXT messenger_info{
        VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    messenger_info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                                     VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
    messenger_info.pfnUserCallback = vulkan::validation_callback;
    auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
    create_messenger(instance, &messenger_info, nullptr, &messenger);

    uint32_t count = 1;
    vkEnumeratePhysicalDevices(instance, &count, &physical);
    uint32_t families = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, nullptr);
    std::vector<VkQueueFamilyProperties> properties(families);
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, properties.data());
    for (uint32_t f = 0; f < families; ++f) {
      if (properties[f].queueFlags & VK_QUEUE_COMPUTE_BIT) {
        family = f;
        break;
      }
    }
    // What ember asks for, enabled by the application on its own device.
    vulkan::RequiredFeatures features = vulkan::required_features(vkGetInstanceProcAddr, instance, physical);
    const auto extensions = vulkan::required_device_extensions();
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue_info.queueFamilyIndex = family;
    queue_info.queueCount = 1;
    queue_info.pQueuePriorities = &priority;
    VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    device_info.pNext = features.chain();
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue_info;
    device_info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    device_info.ppEnabledExtensionNames = extensions.data();
    EXPECT_EQ(vkCreateDevice(physical, &device_info, nullptr, &device), VK_SUCCESS);
    vkGetDeviceQueue(device, family, 0, &queue);
  }

  ~Application() {
    vkDestroyDevice(device, nullptr);
    auto destroy_messenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
    destroy_messenger(instance, messenger, nullptr);
    vkDestroyInstance(instance, nullptr);
  }

  // Uses the device on its own after ember is gone: fills a host-visible buffer and reads it back.
  uint32_t fill_and_read(uint32_t pattern) {
    VkBufferCreateInfo buffer_info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    buffer_info.size = 256;
    buffer_info.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VkBuffer buffer;
    vkCreateBuffer(device, &buffer_info, nullptr, &buffer);
    VkMemoryRequirements requirements;
    vkGetBufferMemoryRequirements(device, buffer, &requirements);
    VkPhysicalDeviceMemoryProperties memory;
    vkGetPhysicalDeviceMemoryProperties(physical, &memory);
    uint32_t type = 0;
    for (uint32_t t = 0; t < memory.memoryTypeCount; ++t) {
      const auto flags = memory.memoryTypes[t].propertyFlags;
      if ((requirements.memoryTypeBits & (1u << t)) && (flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) &&
          (flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) {
        type = t;
        break;
      }
    }
    VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    allocate.allocationSize = requirements.size;
    allocate.memoryTypeIndex = type;
    VkDeviceMemory device_memory;
    vkAllocateMemory(device, &allocate, nullptr, &device_memory);
    vkBindBufferMemory(device, buffer, device_memory, 0);

    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool_info.queueFamilyIndex = family;
    VkCommandPool pool;
    vkCreateCommandPool(device, &pool_info, nullptr, &pool);
    VkCommandBufferAllocateInfo command_info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    command_info.commandPool = pool;
    command_info.commandBufferCount = 1;
    VkCommandBuffer commands;
    vkAllocateCommandBuffers(device, &command_info, &commands);
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vkBeginCommandBuffer(commands, &begin);
    vkCmdFillBuffer(commands, buffer, 0, 256, pattern);
    VkMemoryBarrier to_host{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    to_host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                         &to_host, 0, nullptr, 0, nullptr);
    vkEndCommandBuffer(commands);
    VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence;
    vkCreateFence(device, &fence_info, nullptr, &fence);
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &commands;
    vkQueueSubmit(queue, 1, &submit, fence);
    vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX);
    void* mapped;
    vkMapMemory(device, device_memory, 0, VK_WHOLE_SIZE, 0, &mapped);
    uint32_t value;
    std::memcpy(&value, static_cast<char*>(mapped) + 128, sizeof value);
    vkUnmapMemory(device, device_memory);
    vkDestroyFence(device, fence, nullptr);
    vkDestroyCommandPool(device, pool, nullptr);
    vkFreeMemory(device, device_memory, nullptr);
    vkDestroyBuffer(device, buffer, nullptr);
    return value;
  }
};

class InteropTest : public DeviceTest {};

TEST_F(InteropTest, AdoptedDeviceRunsWorkAndSurvivesEmberTeardown) {
  Application app;
  ASSERT_NE(app.device, VK_NULL_HANDLE);
  int queue_locks = 0;
  {
    vulkan::ExternalDevice external;
    external.instance = app.instance;
    external.physical_device = app.physical;
    external.device = app.device;
    external.queue_family = app.family;
    external.queue = app.queue;
    external.get_instance_proc_addr = vkGetInstanceProcAddr;
    external.lock_queue = [&] { ++queue_locks; };
    external.unlock_queue = [] {};
    std::shared_ptr<Device> device = vulkan::adopt_device(external);
    auto stream = device->default_stream();
    constexpr int64_t n = 5000;
    auto a = device->allocate(n * sizeof(float));
    auto total = device->allocate(sizeof(float));
    device->kernels().get<MemoryKernels>().fill(*stream, {TensorRef::contiguous(*a, DType::Float32, {n}), 0.5});
    sum_all(*device, *stream, TensorRef::contiguous(*total, DType::Float32, {}),
            TensorRef::contiguous(*a, DType::Float32, {n}));
    EXPECT_EQ(download<float>(*stream, total, 1)[0], 2500.0f);
  }  // every ember object is gone here; the application's handles must still be valid
  EXPECT_GT(queue_locks, 0) << "ember submitted under the application's queue lock";
  EXPECT_EQ(app.fill_and_read(0xdeadbeef), 0xdeadbeefu);
}

}  // namespace
}  // namespace ember::test
