#include "runtime/vulkan/shader_registry.h"

#include <spirv_cross/spirv_cross_c.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include "runtime/error.h"

namespace ember::vulkan {

namespace {

// Filled during static initialisation, before anything else here may be constructed: the lists live
// in function-local statics. Registered entries are never removed, so references into the map stay.
struct Registry {
  std::mutex mutex;
  std::map<std::string_view, EmbeddedShader> shaders;
  std::vector<KernelAbi> abis;
};

Registry& registry() {
  static Registry instance;
  return instance;
}

}  // namespace

ShaderRegistration::ShaderRegistration(std::string_view name, std::span<const uint32_t> spirv) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (!r.shaders.try_emplace(name, EmbeddedShader{name, spirv}).second) {
    throw Error("two embedded shaders are named " + std::string(name));
  }
}

std::vector<EmbeddedShader> embedded_shaders() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<EmbeddedShader> all;
  for (const auto& [name, shader] : r.shaders) all.push_back(shader);
  return all;
}

const EmbeddedShader& find_shader(std::string_view name) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.shaders.find(name);
  if (it == r.shaders.end()) throw Error("no embedded shader named " + std::string(name));
  return it->second;
}

KernelAbiRegistration::KernelAbiRegistration(std::initializer_list<KernelAbi> abis) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.abis.insert(r.abis.end(), abis.begin(), abis.end());
}

std::vector<KernelAbi> registered_kernel_abis() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return r.abis;
}

ShaderLayout reflect(std::span<const uint32_t> spirv) {
  spvc_context context = nullptr;
  if (spvc_context_create(&context) != SPVC_SUCCESS) throw Error("SPIRV-Cross: no context");
  std::unique_ptr<spvc_context_s, decltype(&spvc_context_destroy)> owner(context,
                                                                        spvc_context_destroy);
  auto fail = [&](const char* step) {
    return Error(std::string("SPIRV-Cross ") + step + ": " + spvc_context_get_last_error_string(context));
  };
  spvc_parsed_ir ir = nullptr;
  if (spvc_context_parse_spirv(context, spirv.data(), spirv.size(), &ir) != SPVC_SUCCESS) {
    throw fail("parse");
  }
  spvc_compiler compiler = nullptr;
  if (spvc_context_create_compiler(context, SPVC_BACKEND_NONE, ir,
                                   SPVC_CAPTURE_MODE_TAKE_OWNERSHIP, &compiler) != SPVC_SUCCESS) {
    throw fail("compiler");
  }
  spvc_resources resources = nullptr;
  if (spvc_compiler_create_shader_resources(compiler, &resources) != SPVC_SUCCESS) {
    throw fail("resources");
  }
  ShaderLayout layout;
  const spvc_reflected_resource* list = nullptr;
  size_t count = 0;
  std::vector<std::pair<uint32_t, BindingKind>> buffers;
  auto add = [&](const spvc_reflected_resource& resource, BindingKind kind) {
    if (spvc_compiler_get_decoration(compiler, resource.id, SpvDecorationDescriptorSet) != 0) {
      throw Error("embedded shaders bind buffers in descriptor set 0 only");
    }
    buffers.emplace_back(spvc_compiler_get_decoration(compiler, resource.id, SpvDecorationBinding), kind);
  };
  for (auto type : {SPVC_RESOURCE_TYPE_STORAGE_BUFFER, SPVC_RESOURCE_TYPE_UNIFORM_BUFFER}) {
    spvc_resources_get_resource_list_for_type(resources, type, &list, &count);
    for (size_t i = 0; i < count; ++i) {
      add(list[i], type == SPVC_RESOURCE_TYPE_UNIFORM_BUFFER ? BindingKind::Uniform : BindingKind::Storage);
    }
  }
  // Texel buffers: the runtime makes every view R32G32B32A32_UINT, so the shader must read uvec4 texels.
  spvc_resources_get_resource_list_for_type(resources, SPVC_RESOURCE_TYPE_SEPARATE_IMAGE, &list, &count);
  for (size_t i = 0; i < count; ++i) {
    const spvc_type type = spvc_compiler_get_type_handle(compiler, list[i].type_id);
    const spvc_type sampled = spvc_compiler_get_type_handle(compiler, spvc_type_get_image_sampled_type(type));
    if (spvc_type_get_image_dimension(type) != SpvDimBuffer || spvc_type_get_basetype(sampled) != SPVC_BASETYPE_UINT32) {
      throw Error("embedded shaders read images only as utextureBuffer");
    }
    add(list[i], BindingKind::Texel);
  }
  // Shaders alias one binding with several element types (typed_operands.glsl); it is one binding.
  std::sort(buffers.begin(), buffers.end());
  buffers.erase(std::unique(buffers.begin(), buffers.end()), buffers.end());
  for (size_t i = 1; i < buffers.size(); ++i) {
    if (buffers[i].first == buffers[i - 1].first) throw Error("a binding is declared as two kinds of buffer");
  }
  for (const auto& [binding, kind] : buffers) {
    layout.storage_buffer_bindings.push_back(binding);
    layout.kinds.push_back(kind);
  }
  for (auto type : {SPVC_RESOURCE_TYPE_STORAGE_IMAGE, SPVC_RESOURCE_TYPE_SAMPLED_IMAGE}) {
    spvc_resources_get_resource_list_for_type(resources, type, &list, &count);
    if (count) throw Error("embedded shaders use buffers and push constants only");
  }
  spvc_resources_get_resource_list_for_type(resources, SPVC_RESOURCE_TYPE_PUSH_CONSTANT, &list,
                                            &count);
  if (count == 1) {
    size_t size = 0;
    spvc_compiler_get_declared_struct_size(
        compiler, spvc_compiler_get_type_handle(compiler, list[0].base_type_id), &size);
    layout.push_constant_bytes = static_cast<uint32_t>(size);
  }
  for (uint32_t i = 0; i < 3; ++i) {
    layout.local_size[i] = spvc_compiler_get_execution_mode_argument_by_index(
        compiler, SpvExecutionModeLocalSize, i);
  }
  const spvc_specialization_constant* constants = nullptr;
  size_t constant_count = 0;
  spvc_compiler_get_specialization_constants(compiler, &constants, &constant_count);
  // Launchers pass values by position (constant_id i takes entry i), and a shader may leave an id unused
  // in some of its variants, where the compiler drops it: count up to the highest id.
  for (size_t i = 0; i < constant_count; ++i) {
    layout.specialization_constants = std::max(layout.specialization_constants, constants[i].constant_id + 1);
  }
  return layout;
}

}  // namespace ember::vulkan
