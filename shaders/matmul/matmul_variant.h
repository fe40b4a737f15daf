#pragma once
// Which matmul kernel a Vulkan device runs. CPU drivers (lavapipe) run shared-memory tiles slowly, so
// they get register blocks read straight from memory; GPUs get shared-memory tiles. The environment
// variable EMBER_MATMUL_VARIANT=register|register-shared|register-private|tiled overrides the choice (a
// kill switch, and how tests and benchmarks run every kernel on one device); it is read at every call.
// register picks among all register blocks; register-shared takes only blocks whose subgroups share A
// (matmul_register.comp's SHARE_A) where the device and dtype allow them, register-private never.
#include <string>

#include "runtime/device.h"
#include "runtime/scoped_environment.h"

namespace ember::vulkan {

enum class MatmulVariant { Register, RegisterShared, RegisterPrivate, Tiled };

// Throws Error when EMBER_MATMUL_VARIANT holds anything else than the four names.
MatmulVariant matmul_variant(const DeviceInfo& info);

class VulkanDevice;
// Whether `device` runs the register blocks that share A: subgroups of 8 with shuffles in compute.
bool register_blocks_can_share_a(VulkanDevice& device);

// EMBER_MATMUL_VARIANT set to `value` for its lifetime ("" unsets it).
class ScopedMatmulVariant : public ScopedEnvironment {
 public:
  explicit ScopedMatmulVariant(const std::string& value) : ScopedEnvironment("EMBER_MATMUL_VARIANT", value) {}
};

}  // namespace ember::vulkan
