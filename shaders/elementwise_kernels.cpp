#include "runtime/error.h"
#include "shaders/vulkan_kernels.h"

namespace ember::vulkan {

std::span<const KernelAbi> elementwise_kernel_abis() { return {}; }

void VulkanKernels::unary(Stream&, UnaryOp, const TensorRef&, const TensorRef&, DType, Scalar, Scalar,
                          Scalar) {
  missing("unary");
}
void VulkanKernels::binary(Stream&, BinaryOp, const TensorRef&, const Operand&, const Operand&, DType,
                           Scalar) {
  missing("binary");
}
void VulkanKernels::ternary(Stream&, TernaryOp, const TensorRef&, const TensorRef&, const Operand&,
                            const Operand&, DType, Scalar) {
  missing("ternary");
}
void VulkanKernels::sequence(Stream&, const TensorRef&, Scalar, Scalar, std::optional<Scalar>) {
  missing("sequence");
}

}  // namespace ember::vulkan
