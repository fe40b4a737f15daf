#pragma once
// The float controls (SPIR-V's SignedZeroInfNanPreserve and DenormPreserve execution modes) that ember
// adds to a shader before the driver compiles it, where the device supports them. Without them a
// compiler may assume that no value is infinite or NaN and flush denormals: NVIDIA's returned 0 for a
// float64 pow(0, -1) and took a float32 exponent of 1e-45 for 0, where PyTorch keeps both. The shaders
// are compiled once for every device, so the modes are added here, per device, rather than in GLSL.
// EMBER_FLOAT_CONTROLS=0 turns this off (to tell a driver's problem with them from ember's).
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "runtime/vulkan/entry_points.h"

namespace ember::vulkan {

struct FloatControls {
  // Indexed by width: 16-, 32- and 64-bit floats.
  std::array<bool, 3> keeps_inf_nan{};   // shaderSignedZeroInfNanPreserveFloat16/32/64
  std::array<bool, 3> keeps_denormals{};  // shaderDenormPreserveFloat16/32/64
  VkShaderFloatControlsIndependence denormal_independence = VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_NONE;

  static FloatControls query(const EntryPoints& fn, VkPhysicalDevice physical);
  // What ember asks for here, e.g. "inf/NaN kept for 16, 32, 64-bit; denormals kept for 32-bit".
  std::string describe() const;
};

// `spirv` with the capabilities and execution modes that `supported` allows for the float widths the
// module declares: every width keeps infinities and NaN, and keeps denormals where the device's
// independence rules let the widths differ or all of them can. A module without floats is returned as is.
std::vector<uint32_t> with_float_controls(std::span<const uint32_t> spirv, const FloatControls& supported);

}  // namespace ember::vulkan
