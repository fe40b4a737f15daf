// The math.glsl test harness (math_test.comp) is embedded like every shader, so it lists its ABI for the
// reflection test; tests/math_test.cpp launches it.
#include "shaders/vulkan_kernels.h"

namespace ember::vulkan {

std::span<const KernelAbi> math_kernel_abis() {
  // out, x, y; push constants: the element count.
  static const KernelAbi abis[] = {{"math_test_f32", 3, sizeof(uint32_t)},
                                   {"math_test_f64", 3, sizeof(uint32_t)}};
  return abis;
}

}  // namespace ember::vulkan
