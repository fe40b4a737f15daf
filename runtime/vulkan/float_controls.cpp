#include "runtime/vulkan/float_controls.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace ember::vulkan {

namespace {

// SPIR-V opcodes, capabilities and execution modes (the SPIR-V specification, section 3).
constexpr uint32_t kOpExtension = 10;
constexpr uint32_t kOpEntryPoint = 15;
constexpr uint32_t kOpExecutionMode = 16;
constexpr uint32_t kOpCapability = 17;
constexpr uint32_t kOpTypeFloat = 22;
constexpr uint32_t kCapabilityDenormPreserve = 4464;
constexpr uint32_t kCapabilitySignedZeroInfNanPreserve = 4466;
constexpr uint32_t kModeDenormPreserve = 4459;
constexpr uint32_t kModeSignedZeroInfNanPreserve = 4461;
constexpr uint32_t kHeaderWords = 5;
constexpr uint32_t kVersion1_4 = 0x00010400;
constexpr uint32_t kWidths[3] = {16, 32, 64};

uint32_t opcode(uint32_t word) { return word & 0xffffu; }
uint32_t word_count(uint32_t word) { return word >> 16; }
uint32_t instruction(uint32_t opcode, uint32_t words) { return (words << 16) | opcode; }

std::vector<uint32_t> extension_instruction(const char* name) {
  const size_t words = std::strlen(name) / 4 + 1;  // the terminating NUL included, padded to a word
  std::vector<uint32_t> out(1 + words, 0);
  out[0] = instruction(kOpExtension, static_cast<uint32_t>(out.size()));
  std::memcpy(out.data() + 1, name, std::strlen(name));
  return out;
}

bool disabled_by_environment() {
  const char* value = std::getenv("EMBER_FLOAT_CONTROLS");
  return value && std::string(value) == "0";
}

}  // namespace

FloatControls FloatControls::query(const EntryPoints& fn, VkPhysicalDevice physical) {
  VkPhysicalDeviceFloatControlsProperties controls{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES};
  VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &controls};
  fn.vkGetPhysicalDeviceProperties2(physical, &properties);
  FloatControls supported;
  if (properties.properties.apiVersion < VK_API_VERSION_1_2 || disabled_by_environment()) return supported;
  supported.keeps_inf_nan = {controls.shaderSignedZeroInfNanPreserveFloat16 == VK_TRUE,
                             controls.shaderSignedZeroInfNanPreserveFloat32 == VK_TRUE,
                             controls.shaderSignedZeroInfNanPreserveFloat64 == VK_TRUE};
  supported.keeps_denormals = {controls.shaderDenormPreserveFloat16 == VK_TRUE,
                               controls.shaderDenormPreserveFloat32 == VK_TRUE,
                               controls.shaderDenormPreserveFloat64 == VK_TRUE};
  supported.denormal_independence = controls.denormBehaviorIndependence;
  return supported;
}

std::string FloatControls::describe() const {
  auto widths = [](const std::array<bool, 3>& which) {
    std::string list;
    for (int w = 0; w < 3; ++w) {
      if (which[w]) list += (list.empty() ? "" : ", ") + std::to_string(kWidths[w]);
    }
    return list.empty() ? std::string("none") : list + "-bit";
  };
  return "inf/NaN kept for " + widths(keeps_inf_nan) + "; denormals kept for " + widths(keeps_denormals);
}

std::vector<uint32_t> with_float_controls(std::span<const uint32_t> spirv, const FloatControls& supported) {
  std::vector<uint32_t> module(spirv.begin(), spirv.end());
  if (module.size() < kHeaderWords) return module;

  // One pass over the module: the float widths it declares, its entry points, and where the
  // capability, extension and entry-point sections end.
  std::array<bool, 3> declared{};
  std::vector<uint32_t> entry_points;
  std::vector<uint32_t> capabilities;
  std::vector<std::pair<uint32_t, uint32_t>> existing_modes;  // (mode, width) already declared
  size_t after_capabilities = kHeaderWords, after_extensions = 0, after_entry_points = 0;
  for (size_t at = kHeaderWords; at < module.size();) {
    const uint32_t words = word_count(module[at]);
    if (words == 0 || at + words > module.size()) return std::vector<uint32_t>(spirv.begin(), spirv.end());
    const uint32_t op = opcode(module[at]);
    if (op == kOpCapability) {
      capabilities.push_back(module[at + 1]);
      after_capabilities = at + words;
    } else if (op == kOpExtension) {
      after_extensions = at + words;
    } else if (op == kOpEntryPoint) {
      entry_points.push_back(module[at + 2]);
      after_entry_points = at + words;
    } else if (op == kOpExecutionMode && words == 4) {
      existing_modes.emplace_back(module[at + 2], module[at + 3]);
    } else if (op == kOpTypeFloat) {
      for (int w = 0; w < 3; ++w) declared[w] = declared[w] || module[at + 2] == kWidths[w];
    }
    at += words;
  }
  if (entry_points.empty()) return module;

  // Denormal modes are per width only where the device lets widths differ; otherwise the widths that
  // must agree get the mode together or not at all.
  std::array<bool, 3> denormals{};
  const auto& keeps = supported.keeps_denormals;
  switch (supported.denormal_independence) {
    case VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL:
      for (int w = 0; w < 3; ++w) denormals[w] = declared[w] && keeps[w];
      break;
    case VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_32_BIT_ONLY:
      denormals[1] = declared[1] && keeps[1];
      break;
    default:
      if (keeps[0] && keeps[1] && keeps[2] && (declared[0] || declared[1] || declared[2])) denormals = {true, true, true};
      break;
  }
  std::vector<std::pair<uint32_t, uint32_t>> modes;  // (mode, width)
  auto add_mode = [&](uint32_t mode, uint32_t width) {
    const std::pair<uint32_t, uint32_t> m{mode, width};
    if (std::find(existing_modes.begin(), existing_modes.end(), m) == existing_modes.end()) modes.push_back(m);
  };
  for (int w = 0; w < 3; ++w) {
    if (declared[w] && supported.keeps_inf_nan[w]) add_mode(kModeSignedZeroInfNanPreserve, kWidths[w]);
    if (denormals[w]) add_mode(kModeDenormPreserve, kWidths[w]);
  }
  if (modes.empty()) return module;

  std::vector<uint32_t> new_capabilities;
  for (const auto& [capability, mode] : {std::pair{kCapabilitySignedZeroInfNanPreserve, kModeSignedZeroInfNanPreserve},
                                        std::pair{kCapabilityDenormPreserve, kModeDenormPreserve}}) {
    const bool used = std::any_of(modes.begin(), modes.end(), [&](const auto& m) { return m.first == mode; });
    const bool declared_already = std::find(capabilities.begin(), capabilities.end(), capability) != capabilities.end();
    if (used && !declared_already) new_capabilities.insert(new_capabilities.end(), {instruction(kOpCapability, 2), capability});
  }
  // Before SPIR-V 1.4 the modes come from an extension (Vulkan 1.2 devices accept it).
  std::vector<uint32_t> extension;
  if (module[1] < kVersion1_4) extension = extension_instruction("SPV_KHR_float_controls");
  std::vector<uint32_t> execution_modes;
  for (uint32_t entry : entry_points) {
    for (const auto& [mode, width] : modes) {
      execution_modes.insert(execution_modes.end(), {instruction(kOpExecutionMode, 4), entry, mode, width});
    }
  }

  // From the back, so that the earlier positions stay valid.
  module.insert(module.begin() + static_cast<std::ptrdiff_t>(after_entry_points), execution_modes.begin(),
                execution_modes.end());
  const size_t extension_at = std::max(after_extensions, after_capabilities);
  module.insert(module.begin() + static_cast<std::ptrdiff_t>(extension_at), extension.begin(), extension.end());
  module.insert(module.begin() + static_cast<std::ptrdiff_t>(after_capabilities), new_capabilities.begin(),
                new_capabilities.end());
  return module;
}

}  // namespace ember::vulkan
