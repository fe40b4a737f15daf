#include "runtime/error.h"
#include "shaders/vulkan_kernels.h"

namespace ember::vulkan {

std::span<const KernelAbi> matmul_kernel_abis() { return {}; }

void VulkanKernels::matmul(Stream&, const MatmulArgs&) { missing("matmul"); }

}  // namespace ember::vulkan
