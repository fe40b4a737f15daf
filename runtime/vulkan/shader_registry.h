#pragma once
// SPIR-V modules compiled from shaders/*.comp at build time and embedded in the library, and what
// SPIRV-Cross reflects from them. Pipeline layouts are derived from the reflection, never written twice.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ember::vulkan {

struct EmbeddedShader {
  std::string_view name;  // the variant's name in shaders/variants.cmake
  std::span<const uint32_t> spirv;
};

// Every embedded variant, generated at build time.
std::span<const EmbeddedShader> embedded_shaders();
// Throws Error when no variant has that name.
const EmbeddedShader& find_shader(std::string_view name);

struct ShaderLayout {
  std::vector<uint32_t> storage_buffer_bindings;  // set 0, in binding order
  uint32_t push_constant_bytes = 0;
  std::array<uint32_t, 3> local_size{1, 1, 1};
  uint32_t specialization_constants = 0;
};

// Throws Error when the module cannot be parsed or uses a resource ember's ABI does not have.
ShaderLayout reflect(std::span<const uint32_t> spirv);

// What a launcher passes to a shader, checked against the reflection by a test.
struct KernelAbi {
  std::string_view shader;
  uint32_t storage_buffers;
  uint32_t push_constant_bytes;
};

}  // namespace ember::vulkan
