#pragma once
// Vulkan entry points, loaded through vkGetInstanceProcAddr so that ember works the same on an instance
// it created and on one an application hands it with its own loader.
#include <vulkan/vulkan.h>

namespace ember::vulkan {

#define EMBER_VK_INSTANCE_FUNCTIONS(X)      \
  X(vkDestroyInstance)                      \
  X(vkEnumeratePhysicalDevices)             \
  X(vkGetPhysicalDeviceProperties)          \
  X(vkGetPhysicalDeviceProperties2)         \
  X(vkGetPhysicalDeviceFeatures2)           \
  X(vkGetPhysicalDeviceMemoryProperties)    \
  X(vkGetPhysicalDeviceMemoryProperties2)   \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkEnumerateDeviceExtensionProperties)   \
  X(vkCreateDevice)                         \
  X(vkGetDeviceProcAddr)

#define EMBER_VK_DEVICE_FUNCTIONS(X)   \
  X(vkDestroyDevice)                   \
  X(vkGetDeviceQueue)                  \
  X(vkDeviceWaitIdle)                  \
  X(vkQueueSubmit)                     \
  X(vkAllocateMemory)                  \
  X(vkFreeMemory)                      \
  X(vkMapMemory)                       \
  X(vkUnmapMemory)                     \
  X(vkCreateBuffer)                    \
  X(vkDestroyBuffer)                   \
  X(vkGetBufferMemoryRequirements)     \
  X(vkBindBufferMemory)                \
  X(vkCreateShaderModule)              \
  X(vkCreateBufferView)                \
  X(vkDestroyBufferView)               \
  X(vkDestroyShaderModule)             \
  X(vkCreatePipelineCache)             \
  X(vkDestroyPipelineCache)            \
  X(vkGetPipelineCacheData)            \
  X(vkCreateComputePipelines)          \
  X(vkDestroyPipeline)                 \
  X(vkCreatePipelineLayout)            \
  X(vkDestroyPipelineLayout)           \
  X(vkCreateDescriptorSetLayout)       \
  X(vkDestroyDescriptorSetLayout)      \
  X(vkCreateCommandPool)               \
  X(vkDestroyCommandPool)              \
  X(vkAllocateCommandBuffers)          \
  X(vkFreeCommandBuffers)              \
  X(vkResetCommandBuffer)              \
  X(vkBeginCommandBuffer)              \
  X(vkEndCommandBuffer)                \
  X(vkCmdBindPipeline)                 \
  X(vkCmdPushConstants)                \
  X(vkCmdPushDescriptorSetKHR)         \
  X(vkCmdDispatch)                     \
  X(vkCreateQueryPool)                 \
  X(vkDestroyQueryPool)                \
  X(vkCmdResetQueryPool)               \
  X(vkCmdWriteTimestamp)               \
  X(vkGetQueryPoolResults)             \
  X(vkCmdPipelineBarrier)              \
  X(vkCmdCopyBuffer)                   \
  X(vkCmdCopyImageToBuffer)            \
  X(vkCmdCopyBufferToImage)            \
  X(vkCmdFillBuffer)                   \
  X(vkCreateSemaphore)                 \
  X(vkDestroySemaphore)                \
  X(vkGetSemaphoreCounterValue)        \
  X(vkWaitSemaphores)                  \
  X(vkSignalSemaphore)

// Entry points of optional extensions: null when the device did not enable them.
#define EMBER_VK_OPTIONAL_DEVICE_FUNCTIONS(X) \
  X(vkGetMemoryFdKHR)                         \
  X(vkGetSemaphoreFdKHR)

struct EntryPoints {
#define EMBER_VK_DECLARE(name) PFN_##name name = nullptr;
  EMBER_VK_INSTANCE_FUNCTIONS(EMBER_VK_DECLARE)
  EMBER_VK_DEVICE_FUNCTIONS(EMBER_VK_DECLARE)
  EMBER_VK_OPTIONAL_DEVICE_FUNCTIONS(EMBER_VK_DECLARE)
#undef EMBER_VK_DECLARE
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;

  // Throws Error naming the first entry point the loader does not provide.
  void load_instance(PFN_vkGetInstanceProcAddr loader, VkInstance instance);
  void load_device(VkDevice device);
};

}  // namespace ember::vulkan
