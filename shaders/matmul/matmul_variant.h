#pragma once
// Which matmul kernel a Vulkan device runs. CPU drivers (lavapipe) run shared-memory tiles slowly, so
// they get register blocks read straight from memory; GPUs get shared-memory tiles. The environment
// variable EMBER_MATMUL_VARIANT=register|register-shared|register-private|tiled overrides the choice (a
// kill switch, and how tests and benchmarks run every kernel on one device); it is read at every call.
// register picks among all register blocks; register-shared takes only blocks whose subgroups share A
// (matmul_register.comp's SHARE_A) where the device and dtype allow them, register-private never.
#include <cstdlib>
#include <optional>
#include <string>

#include "runtime/device.h"

namespace ember::vulkan {

enum class MatmulVariant { Register, RegisterShared, RegisterPrivate, Tiled };

// Throws Error when EMBER_MATMUL_VARIANT holds anything else than the four names.
MatmulVariant matmul_variant(const DeviceInfo& info);

class VulkanDevice;
// Whether `device` runs the register blocks that share A: subgroups of 8 with shuffles in compute.
bool register_blocks_can_share_a(VulkanDevice& device);

// Sets EMBER_MATMUL_VARIANT for its lifetime ("" unsets it) and puts back what was there; tests and
// benchmarks run both kernels on one device with it.
class ScopedMatmulVariant {
 public:
  explicit ScopedMatmulVariant(const std::string& value) {
    if (const char* old = std::getenv(kName)) previous_ = old;
    if (value.empty()) unsetenv(kName);
    else setenv(kName, value.c_str(), 1);
  }
  ~ScopedMatmulVariant() {
    if (previous_) setenv(kName, previous_->c_str(), 1);
    else unsetenv(kName);
  }
  ScopedMatmulVariant(const ScopedMatmulVariant&) = delete;
  ScopedMatmulVariant& operator=(const ScopedMatmulVariant&) = delete;

 private:
  static constexpr const char* kName = "EMBER_MATMUL_VARIANT";
  std::optional<std::string> previous_;
};

}  // namespace ember::vulkan
