#include "runtime/error.h"
#include "shaders/vulkan_kernels.h"

namespace ember::vulkan {

std::span<const KernelAbi> random_kernel_abis() { return {}; }

void VulkanKernels::random(Stream&, RandomOp, const TensorRef&, PhiloxState, Scalar, Scalar,
                           const TensorRef*) {
  missing("random");
}
void VulkanKernels::multinomial(Stream&, const TensorRef&, const TensorRef&, PhiloxState) {
  missing("multinomial");
}

}  // namespace ember::vulkan
