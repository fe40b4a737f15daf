// The float controls added to every shader before the driver compiles it (runtime/vulkan/float_controls.h):
// the modes each device's rules allow, in the module sections where SPIR-V wants them. Every other test
// creates its pipelines from such modules under the validation layers, which check them on this device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "runtime/vulkan/float_controls.h"
#include "runtime/vulkan/shader_registry.h"

namespace ember::vulkan {
namespace {

constexpr uint32_t kDenormPreserve = 4459, kSignedZeroInfNanPreserve = 4461;

// What a module declares, read back instruction by instruction.
struct Decoded {
  std::vector<uint32_t> opcodes;  // in order
  std::multiset<uint32_t> capabilities;
  std::vector<std::string> extensions;
  std::set<uint32_t> float_widths;
  size_t entry_points = 0;
  std::multiset<std::pair<uint32_t, uint32_t>> modes;  // (mode, width), over all entry points
};

Decoded decode(const std::vector<uint32_t>& module) {
  Decoded d;
  for (size_t at = 5; at < module.size();) {
    const uint32_t words = module[at] >> 16, op = module[at] & 0xffffu;
    EXPECT_GT(words, 0u);
    if (words == 0) break;
    d.opcodes.push_back(op);
    if (op == 17) d.capabilities.insert(module[at + 1]);
    if (op == 10) d.extensions.emplace_back(reinterpret_cast<const char*>(&module[at + 1]));
    if (op == 22) d.float_widths.insert(module[at + 2]);
    if (op == 15) ++d.entry_points;
    if (op == 16 && words == 4) d.modes.insert({module[at + 2], module[at + 3]});
    at += words;
  }
  return d;
}

// SPIR-V's logical layout: capabilities, extensions, imports, the memory model, entry points, then
// execution modes, each section whole.
void expect_sections_in_order(const Decoded& d) {
  const std::vector<uint32_t> order = {17, 10, 11, 14, 15, 16};
  size_t last = 0;
  for (uint32_t op : d.opcodes) {
    const auto found = std::find(order.begin(), order.end(), op);
    if (found == order.end()) continue;
    const size_t rank = static_cast<size_t>(found - order.begin());
    EXPECT_GE(rank, last) << "opcode " << op << " after a later section";
    last = std::max(last, rank);
  }
}

std::vector<uint32_t> copy(const EmbeddedShader& shader) { return {shader.spirv.begin(), shader.spirv.end()}; }

// An embedded shader that declares both 32- and 64-bit floats.
EmbeddedShader float32_and_float64_shader() {
  for (const EmbeddedShader& shader : embedded_shaders()) {
    const Decoded d = decode(copy(shader));
    if (d.float_widths.count(32) && d.float_widths.count(64)) return shader;
  }
  throw std::runtime_error("no embedded shader declares both float32 and float64");
}

FloatControls everything(VkShaderFloatControlsIndependence independence) {
  FloatControls all;
  all.keeps_inf_nan = {true, true, true};
  all.keeps_denormals = {true, true, true};
  all.denormal_independence = independence;
  return all;
}

TEST(FloatControls, EveryShaderGetsBothModesForEachWidthItDeclares) {
  const FloatControls all = everything(VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL);
  for (const EmbeddedShader& shader : embedded_shaders()) {
    SCOPED_TRACE(std::string(shader.name));
    const std::vector<uint32_t> original = copy(shader);
    const std::vector<uint32_t> patched = with_float_controls(shader.spirv, all);
    const Decoded before = decode(original), after = decode(patched);
    expect_sections_in_order(after);
    ASSERT_EQ(after.entry_points, 1u);
    for (uint32_t width : before.float_widths) {
      EXPECT_EQ(after.modes.count({kSignedZeroInfNanPreserve, width}), 1u) << width;
      EXPECT_EQ(after.modes.count({kDenormPreserve, width}), 1u) << width;
    }
    const size_t added_modes = after.modes.size() - before.modes.size();
    EXPECT_EQ(added_modes, 2 * before.float_widths.size());
    if (before.float_widths.empty()) {
      EXPECT_EQ(patched, original);
      continue;
    }
    EXPECT_EQ(after.capabilities.count(4466), 1u) << "SignedZeroInfNanPreserve";
    EXPECT_EQ(after.capabilities.count(4464), 1u) << "DenormPreserve";
    EXPECT_TRUE(after.extensions.empty() || after.extensions == before.extensions) << "SPIR-V 1.4+ needs none";
    EXPECT_EQ(patched.size(), original.size() + 2 * 2 + 4 * added_modes);
    EXPECT_EQ(with_float_controls(patched, all), patched) << "a second pass adds nothing";
    const ShaderLayout layout = reflect(patched);  // still a module SPIRV-Cross reads
    EXPECT_EQ(layout.push_constant_bytes, reflect(shader.spirv).push_constant_bytes);
  }
}

TEST(FloatControls, DenormalModesFollowTheDevicesIndependenceRules) {
  const EmbeddedShader shader = float32_and_float64_shader();
  SCOPED_TRACE(std::string(shader.name));
  auto denormal_widths = [&](const FloatControls& supported) {
    std::set<uint32_t> widths;
    for (const auto& [mode, width] : decode(with_float_controls(shader.spirv, supported)).modes) {
      if (mode == kDenormPreserve) widths.insert(width);
    }
    return widths;
  };
  // Only 32-bit may differ: 16 and 64 would have to agree, so only 32 gets the mode.
  EXPECT_EQ(denormal_widths(everything(VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_32_BIT_ONLY)), (std::set<uint32_t>{32}));
  // No independence: all three widths together, or none when one of them cannot.
  EXPECT_EQ(denormal_widths(everything(VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_NONE)),
            (std::set<uint32_t>{16, 32, 64}));
  FloatControls no_float16 = everything(VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_NONE);
  no_float16.keeps_denormals[0] = false;
  EXPECT_TRUE(denormal_widths(no_float16).empty());
  // Independent widths: each that the device supports.
  FloatControls only_float32 = everything(VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL);
  only_float32.keeps_denormals = {false, true, false};
  EXPECT_EQ(denormal_widths(only_float32), (std::set<uint32_t>{32}));
}

TEST(FloatControls, NothingSupportedLeavesTheModuleAsItIs) {
  const EmbeddedShader shader = float32_and_float64_shader();
  EXPECT_EQ(with_float_controls(shader.spirv, FloatControls{}), copy(shader));
  FloatControls inf_nan_only;
  inf_nan_only.keeps_inf_nan = {false, false, true};
  const Decoded d = decode(with_float_controls(shader.spirv, inf_nan_only));
  EXPECT_EQ(d.modes.count({kSignedZeroInfNanPreserve, 64}), 1u);
  EXPECT_EQ(d.modes.count({kSignedZeroInfNanPreserve, 32}), 0u);
  EXPECT_EQ(d.capabilities.count(4464), 0u) << "no DenormPreserve capability without its mode";
}

TEST(FloatControls, ModulesBeforeSpirv14GetTheExtension) {
  std::vector<uint32_t> module = copy(float32_and_float64_shader());
  module[1] = 0x00010300;  // SPIR-V 1.3
  const Decoded d = decode(with_float_controls(module, everything(VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL)));
  EXPECT_EQ(std::count(d.extensions.begin(), d.extensions.end(), "SPV_KHR_float_controls"), 1);
  expect_sections_in_order(d);
}

TEST(FloatControls, MalformedModulesAreLeftForTheDriverToRefuse) {
  std::vector<uint32_t> overrun = copy(float32_and_float64_shader());
  overrun[5] = (0xffffu << 16) | (overrun[5] & 0xffffu);  // the first instruction claims more words than exist
  EXPECT_EQ(with_float_controls(overrun, everything(VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL)), overrun);
  const std::vector<uint32_t> header_only = {0x07230203u, 0x00010500u, 0, 1};
  EXPECT_EQ(with_float_controls(header_only, everything(VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL)), header_only);
}

}  // namespace
}  // namespace ember::vulkan
