#pragma once
// Which convolution kernel a Vulkan device runs. GPUs: shared-memory tiles (conv_tiled.comp). CPU drivers
// (lavapipe): register blocks (conv_register.comp), sharing A within subgroups where they can, else
// reading A through a uniform buffer where a launch's part of A fits one and the cost model predicts it
// faster (conv_uniform.cpp), else from a storage buffer. The device class decides as matmul_variant does
// (EMBER_MATMUL_VARIANT overrides both); EMBER_CONV_VARIANT=register|uniform|tiled overrides it for
// convolutions alone (uniform: wherever A fits), which is how tests and benchmarks run every kernel on one
// device. Read at every call. On CPU drivers a stride-1 float32 forward or input gradient runs the row
// kernel (conv_rows.cpp) first where it applies; EMBER_CONV_VARIANT=rows asks for it on any device.
// Depthwise convolutions (groups == in channels) run the direct kernel (conv_depthwise.comp) on every
// device class unless EMBER_CONV_VARIANT names a GEMM kernel; EMBER_CONV_VARIANT=depthwise asks for the
// direct kernel and leaves the device class's choice for the other convolutions.
#include "runtime/device.h"

namespace ember::vulkan {

enum class ConvVariant { Automatic, Register, Uniform, Tiled, Rows };

// Throws Error when EMBER_CONV_VARIANT holds anything else than register, uniform, tiled, rows or depthwise.
ConvVariant conv_variant(const DeviceInfo& info);
// Whether EMBER_CONV_VARIANT lets depthwise convolutions run the direct kernel (unset, or depthwise).
bool conv_depthwise_allowed();

}  // namespace ember::vulkan
