#include "runtime/error.h"
#include "shaders/vulkan_kernels.h"

namespace ember::vulkan {

std::span<const KernelAbi> index_kernel_abis() { return {}; }

void VulkanKernels::gather(Stream&, const TensorRef&, const TensorRef&, int, const TensorRef&) {
  missing("gather");
}
void VulkanKernels::scatter(Stream&, ScatterMode, const TensorRef&, int, const TensorRef&,
                            const Operand&, Scalar) {
  missing("scatter");
}
void VulkanKernels::triangle(Stream&, const TensorRef&, const TensorRef&, int64_t, bool) {
  missing("triangle");
}
void VulkanKernels::nonzero(Stream&, const TensorRef&, const TensorRef&, const TensorRef&) {
  missing("nonzero");
}

}  // namespace ember::vulkan
