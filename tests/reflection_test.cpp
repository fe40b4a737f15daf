// Every embedded shader reflects, and what each launcher passes matches what the shader declares.
#include <gtest/gtest.h>

#include <set>

#include "runtime/error.h"
#include "runtime/vulkan/shader_registry.h"

namespace ember::vulkan {
namespace {

TEST(Reflection, EveryEmbeddedShaderReflects) {
  ASSERT_FALSE(embedded_shaders().empty());
  for (const EmbeddedShader& shader : embedded_shaders()) {
    SCOPED_TRACE(std::string(shader.name));
    ASSERT_GT(shader.spirv.size(), 5u);
    EXPECT_EQ(shader.spirv[0], 0x07230203u) << "SPIR-V magic";
    ShaderLayout layout = reflect(shader.spirv);
    EXPECT_FALSE(layout.storage_buffer_bindings.empty());
    EXPECT_EQ(layout.local_size[0], 256u);
    EXPECT_LE(layout.push_constant_bytes, 128u) << "the minimum every Vulkan device offers";
  }
}

TEST(Reflection, LauncherAbisMatchTheShaders) {
  std::set<std::string_view> covered;
  for (const KernelAbi& abi : registered_kernel_abis()) {
    SCOPED_TRACE(std::string(abi.shader));
    ShaderLayout layout = reflect(find_shader(abi.shader).spirv);
    EXPECT_EQ(layout.storage_buffer_bindings.size(), abi.storage_buffers);
    EXPECT_EQ(layout.push_constant_bytes, abi.push_constant_bytes);
    covered.insert(abi.shader);
  }
  for (const EmbeddedShader& shader : embedded_shaders()) {
    EXPECT_TRUE(covered.count(shader.name)) << shader.name << " has no launcher ABI entry";
  }
}

TEST(Reflection, UnknownShaderIsAnError) { EXPECT_THROW(find_shader("no_such_shader"), Error); }

}  // namespace
}  // namespace ember::vulkan
