#pragma once
// The Vulkan implementation of ember::Kernels: launchers for the embedded compute shaders.
#include <span>

#include "runtime/kernels.h"
#include "runtime/vulkan/shader_registry.h"
#include "runtime/vulkan/vulkan_device.h"

namespace ember::vulkan {

class VulkanKernels final : public Kernels {
 public:
  explicit VulkanKernels(VulkanDevice& device) : device_(device) {}

  void fill(Stream& stream, const TensorRef& out, Scalar value) override;
  void copy(Stream& stream, const TensorRef& out, const TensorRef& in) override;
  void binary(Stream& stream, BinaryOp op, const TensorRef& out, const TensorRef& a,
              const TensorRef& b) override;
  void sum(Stream& stream, const TensorRef& out, const TensorRef& in) override;

 private:
  VulkanStream& vulkan_stream(Stream& stream) const;
  VulkanDevice& device_;
};

// What each launcher passes to its shaders; a test checks it against the SPIR-V reflection.
std::span<const KernelAbi> vulkan_kernel_abis();

}  // namespace ember::vulkan
