#pragma once
// Launcher of the CTC recursion kernel (ctc_recursion.comp), for VulkanLoss.
#include "runtime/kernels/loss.h"
#include "runtime/vulkan/vulkan_device.h"

namespace ember::vulkan {

void launch_ctc_recursion(VulkanDevice& device, Stream& stream, const CtcRecursionArgs& args);

}  // namespace ember::vulkan
