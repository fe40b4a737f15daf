#include "runtime/error.h"
#include "shaders/vulkan_kernels.h"

namespace ember::vulkan {

std::span<const KernelAbi> reduce_kernel_abis() { return {}; }

void VulkanKernels::reduce(Stream&, ReduceOp, const TensorRef*, const TensorRef*, const TensorRef&,
                           uint32_t, DType, double) {
  missing("reduce");
}

void VulkanKernels::scan(Stream&, ScanOp, const TensorRef&, const TensorRef*, const TensorRef&, int,
                         DType) {
  missing("scan");
}

}  // namespace ember::vulkan
