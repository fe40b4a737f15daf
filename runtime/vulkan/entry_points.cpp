#include "runtime/vulkan/entry_points.h"

#include <string>

#include "runtime/error.h"

namespace ember::vulkan {

void EntryPoints::load_instance(PFN_vkGetInstanceProcAddr loader, VkInstance instance) {
  vkGetInstanceProcAddr = loader;
#define EMBER_VK_LOAD(name)                                                                    \
  name = reinterpret_cast<PFN_##name>(loader(instance, #name));                               \
  if (!name) throw Error(std::string("the Vulkan loader does not provide ") + #name);
  EMBER_VK_INSTANCE_FUNCTIONS(EMBER_VK_LOAD)
#undef EMBER_VK_LOAD
}

void EntryPoints::load_device(VkDevice device) {
#define EMBER_VK_LOAD(name)                                                                    \
  name = reinterpret_cast<PFN_##name>(vkGetDeviceProcAddr(device, #name));                    \
  if (!name) throw Error(std::string("the Vulkan device does not provide ") + #name +         \
                         " (was VK_KHR_push_descriptor enabled?)");
  EMBER_VK_DEVICE_FUNCTIONS(EMBER_VK_LOAD)
#undef EMBER_VK_LOAD
#define EMBER_VK_LOAD_OPTIONAL(name) name = reinterpret_cast<PFN_##name>(vkGetDeviceProcAddr(device, #name));
  EMBER_VK_OPTIONAL_DEVICE_FUNCTIONS(EMBER_VK_LOAD_OPTIONAL)
#undef EMBER_VK_LOAD_OPTIONAL
}

}  // namespace ember::vulkan
