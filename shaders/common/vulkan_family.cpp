#include "shaders/common/vulkan_family.h"

#include <string>

#include "runtime/error.h"

namespace ember::vulkan {

VulkanStream& vulkan_stream(Stream& stream) {
  auto* vulkan = dynamic_cast<VulkanStream*>(&stream);
  if (!vulkan) throw Error("a Vulkan kernel was given a stream of another backend");
  return *vulkan;
}

bool compute_subgroup_shuffles(VulkanDevice& device) {
  const Context& context = device.context();
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &subgroup};
  context.fn.vkGetPhysicalDeviceProperties2(context.physical_device, &properties);
  return (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 &&
         (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT) != 0;
}

std::string_view compute_suffix(DType compute) {
  switch (compute_storage(compute)) {
    case DType::Float64: return "f64";
    case DType::Int32: return "i32";
    case DType::Int64: return "i64";
    default: return "f32";
  }
}

DType compute_storage(DType compute) {
  switch (compute) {
    case DType::Float64: return DType::Float64;
    case DType::Int64: return DType::Int64;
    case DType::Int8:
    case DType::UInt8:
    case DType::Int16:
    case DType::Int32:
    case DType::Bool: return DType::Int32;
    case DType::Float32:
    case DType::Float16:
    case DType::BFloat16: return DType::Float32;
  }
  return DType::Float32;
}

void require_dtype(const VulkanDevice& device, DType dtype, std::string_view op) {
  if (device.supports(dtype)) return;
  throw UnsupportedError(std::string(op) + ": " + device.info().name + " has no " +
                         std::string(dtype_name(dtype)) +
                         (dtype == DType::Float64 ? " (the device lacks shaderFloat64)" : ""));
}

void require_domain(OpDomain domain, DType compute, std::string_view family, std::string_view op) {
  if (in_domain(domain, compute)) return;
  throw UnsupportedError("the vulkan backend has no " + std::string(family) + " " + std::string(op) +
                         " kernel computing in " + std::string(dtype_name(compute)));
}

}  // namespace ember::vulkan
