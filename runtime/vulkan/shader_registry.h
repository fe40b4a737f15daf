#pragma once
// SPIR-V modules compiled from the shaders at build time and embedded in the binary, and what
// SPIRV-Cross reflects from them. Pipeline layouts are derived from the reflection, never written twice.
//
// Each embedded module registers itself (generated code, see cmake/EmberShaders.cmake) and each kernel
// family registers the ABI of its launchers beside them, so no list joins the families by hand. A test
// program can embed shaders of its own the same way.
#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ember::vulkan {

struct EmbeddedShader {
  std::string_view name;  // the variant's name in its family's variants.cmake
  std::span<const uint32_t> spirv;
};

// Adds an embedded module to the registry; generated code makes one per variant at static
// initialisation. Throws Error when the name is taken.
struct ShaderRegistration {
  ShaderRegistration(std::string_view name, std::span<const uint32_t> spirv);
};

// Every embedded variant registered so far.
std::vector<EmbeddedShader> embedded_shaders();
// Throws Error when no variant has that name.
const EmbeddedShader& find_shader(std::string_view name);

// How a shader sees one binding's buffer.
enum class BindingKind : uint8_t {
  Storage,
  Uniform,
  Texel,  // a uniform texel buffer of uvec4 texels (`utextureBuffer`): 16 raw bytes per texelFetch
};

struct ShaderLayout {
  std::vector<uint32_t> storage_buffer_bindings;  // set 0, in binding order: every buffer binding
  std::vector<BindingKind> kinds;                  // per entry above
  uint32_t push_constant_bytes = 0;
  std::array<uint32_t, 3> local_size{1, 1, 1};
  uint32_t specialization_constants = 0;  // one past the highest constant_id
};

// Throws Error when the module cannot be parsed or uses a resource ember's ABI does not have.
ShaderLayout reflect(std::span<const uint32_t> spirv);

// What a launcher passes to a shader, checked against the reflection by a test.
struct KernelAbi {
  std::string_view shader;
  uint32_t storage_buffers;
  uint32_t push_constant_bytes;
};

// A launcher file lists the ABI of its shaders in one of these, at namespace scope.
struct KernelAbiRegistration {
  KernelAbiRegistration(std::initializer_list<KernelAbi> abis);
};
std::vector<KernelAbi> registered_kernel_abis();

}  // namespace ember::vulkan
