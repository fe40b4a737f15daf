#pragma once
// What every Vulkan kernel family shares: its registration, the stream and device it launches on, and
// the dtype checks and variant suffixes of the shaders' compute classes.
#include <string_view>

#include "runtime/kernels/registry.h"
#include "runtime/vulkan/shader_registry.h"
#include "runtime/vulkan/vulkan_device.h"

// Registers `Implementation`, constructed from a VulkanDevice&, as the Vulkan backend's `Family`.
#define EMBER_VULKAN_KERNELS(Family, Implementation) \
  EMBER_REGISTER_KERNELS(::ember::Backend::Vulkan, Family, Implementation, ::ember::vulkan::VulkanDevice)

namespace ember::vulkan {

// The VulkanStream behind `stream`; throws Error for another backend's stream.
VulkanStream& vulkan_stream(Stream& stream);

// The variant suffix of a compute dtype: float16 and bfloat16 compute in float32, the small integer
// types and bool in int32.
std::string_view compute_suffix(DType compute);  // "f32", "f64", "i32", "i64"
// The dtype whose bits carry a scalar for a `compute` launch (Float32, Float64, Int32 or Int64).
DType compute_storage(DType compute);
// Throws UnsupportedError when the device cannot hold or compute in `dtype`.
void require_dtype(const VulkanDevice& device, DType dtype, std::string_view op);
// Whether the device's compute shaders have subgroup shuffles (subgroupShuffle, subgroupShuffleXor).
// DeviceInfo has the subgroup size but not the operations.
bool compute_subgroup_shuffles(VulkanDevice& device);
// Throws UnsupportedError naming the family and op when `compute` is outside the op's domain.
void require_domain(OpDomain domain, DType compute, std::string_view family, std::string_view op);

}  // namespace ember::vulkan
