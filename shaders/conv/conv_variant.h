#pragma once
// Which convolution kernel a Vulkan device runs: the same choice per device class as matmul's
// (matmul_variant, which EMBER_MATMUL_VARIANT overrides), unless EMBER_CONV_VARIANT=register|tiled
// overrides it for convolutions alone; tests and benchmarks run both kernels on one device with it.
#include "shaders/matmul/matmul_variant.h"

namespace ember::vulkan {

// Throws Error when EMBER_CONV_VARIANT holds anything else than register or tiled.
MatmulVariant conv_variant(const DeviceInfo& info);

}  // namespace ember::vulkan
