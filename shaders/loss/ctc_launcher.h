#pragma once
// Launchers of the CTC kernels (ctc_recursion.comp, ctc_gradient.comp), for VulkanLoss.
#include "runtime/kernels/loss.h"
#include "runtime/vulkan/vulkan_device.h"

namespace ember::vulkan {

void launch_ctc_recursion(VulkanDevice& device, Stream& stream, const CtcRecursionArgs& args);
void launch_ctc_gradient(VulkanDevice& device, Stream& stream, const CtcGradientArgs& args);

}  // namespace ember::vulkan
