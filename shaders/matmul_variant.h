#pragma once
// Which matmul kernel a Vulkan device runs. CPU drivers (lavapipe) run shared-memory tiles slowly, so
// they get register blocks read straight from memory; GPUs get shared-memory tiles. The environment
// variable EMBER_MATMUL_VARIANT=register|tiled overrides the choice (a kill switch, and how tests and
// benchmarks run both kernels on one device); it is read at every call.
#include "runtime/device.h"

namespace ember::vulkan {

enum class MatmulVariant { Register, Tiled };

// Throws Error when EMBER_MATMUL_VARIANT holds anything else than register or tiled.
MatmulVariant matmul_variant(const DeviceInfo& info);

}  // namespace ember::vulkan
