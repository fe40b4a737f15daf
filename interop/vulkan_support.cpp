#include "interop/vulkan_support.h"

#include <string>

#include "tensor/known_values.h"
#include "tensor/ops_support.h"

namespace ember::vulkan::detail {

VulkanDevice& vulkan_device(const Device& device, const char* what) {
  auto* vulkan = dynamic_cast<VulkanDevice*>(const_cast<Device*>(&device));
  if (!vulkan) {
    throw Error(std::string(what) + " needs a Vulkan device, got " + device.info().name + " (" +
                std::string(backend_name(device.backend())) + ")");
  }
  return *vulkan;
}

VulkanStream& vulkan_stream(Stream& stream, const char* what) {
  auto* vulkan = dynamic_cast<VulkanStream*>(&stream);
  if (!vulkan) throw Error(std::string(what) + " needs a stream of a Vulkan device");
  return *vulkan;
}

std::shared_ptr<VulkanStream> tensor_stream(const Device& device, const char* what) {
  vulkan_device(device, what);
  return std::static_pointer_cast<VulkanStream>(ember::detail::stream_for(device));
}

std::string missing_extension(const Device& device, const char* extension, bool Context::*enabled) {
  auto* vulkan = dynamic_cast<VulkanDevice*>(const_cast<Device*>(&device));
  if (!vulkan) return device.info().name + " is not a Vulkan device";
  if (vulkan->context().*enabled) return "";
  return device.info().name + " has no " + extension +
         " enabled (ember enables it where the driver has it; an adopted device lists it in "
         "ExternalDevice::enabled_extensions)";
}

TensorRange tensor_range(const Tensor& tensor, const char* what) {
  if (!tensor.defined()) throw Error(std::string(what) + ": the tensor is undefined");
  vulkan_device(*tensor.device(), what);
  // Every interop call on a tensor's memory hands it to the application or writes it outside ember's ops,
  // neither of which bumps its version.
  ember::detail::forget_known_values(tensor);
  const Allocation& allocation = *tensor.storage()->allocation;
  const uint64_t element = element_size(tensor.dtype());
  const uint64_t first = allocation.offset() + static_cast<uint64_t>(tensor.storage_offset()) * element;
  TensorRange range;
  range.buffer = reinterpret_cast<VkBuffer>(allocation.handle());
  range.begin = first;
  range.end = first + ember::detail::strided_nbytes(tensor.sizes(), tensor.strides(), tensor.dtype());
  return range;
}

}  // namespace ember::vulkan::detail
