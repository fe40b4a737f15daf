# Compiles each variant of shaders/variants.cmake to SPIR-V with glslc (depfiles make included .glsl
# files trigger rebuilds) and embeds the modules as C++ arrays in generated sources.
find_program(EMBER_GLSLC glslc REQUIRED)

function(ember_embedded_shaders out_sources)
  include(${PROJECT_SOURCE_DIR}/shaders/variants.cmake)
  set(gen_dir ${PROJECT_BINARY_DIR}/generated/shaders)
  file(MAKE_DIRECTORY ${gen_dir})
  set(sources "")
  set(declarations "")
  set(entries "")
  foreach(variant IN LISTS EMBER_SHADER_VARIANTS)
    string(REPLACE "|" ";" fields "${variant}")
    list(GET fields 0 name)
    list(GET fields 1 source)
    list(LENGTH fields field_count)
    set(define_flags "")
    if(field_count GREATER 2)
      list(GET fields 2 defines)
      string(REPLACE "," ";" defines "${defines}")
      foreach(define IN LISTS defines)
        if(define)
          list(APPEND define_flags "-D${define}")
        endif()
      endforeach()
    endif()
    set(spv ${gen_dir}/${name}.spv)
    set(cpp ${gen_dir}/${name}.spv.cpp)
    add_custom_command(
      OUTPUT ${spv}
      COMMAND ${EMBER_GLSLC} --target-env=vulkan1.2 -O ${define_flags}
              -MD -MF ${spv}.d -o ${spv} ${PROJECT_SOURCE_DIR}/shaders/${source}
      DEPENDS ${PROJECT_SOURCE_DIR}/shaders/${source}
      DEPFILE ${spv}.d
      COMMENT "glslc ${name}"
      VERBATIM)
    add_custom_command(
      OUTPUT ${cpp}
      COMMAND ${CMAKE_COMMAND} -DSPV=${spv} -DCPP=${cpp} -DNAME=${name}
              -P ${PROJECT_SOURCE_DIR}/cmake/EmbedSpirv.cmake
      DEPENDS ${spv} ${PROJECT_SOURCE_DIR}/cmake/EmbedSpirv.cmake
      VERBATIM)
    list(APPEND sources ${cpp})
    string(APPEND declarations "extern const uint32_t spirv_${name}[];\nextern const size_t spirv_${name}_words;\n")
    string(APPEND entries "    {\"${name}\", {spirv_${name}, spirv_${name}_words}},\n")
  endforeach()
  set(registry ${gen_dir}/embedded_shaders.cpp)
  file(CONFIGURE OUTPUT ${registry} CONTENT
"// Generated from shaders/variants.cmake. Do not edit.
#include \"runtime/vulkan/shader_registry.h\"

namespace ember::vulkan {
${declarations}
std::span<const EmbeddedShader> embedded_shaders() {
  static const EmbeddedShader shaders[] = {
${entries}  };
  return shaders;
}

}  // namespace ember::vulkan
")
  list(APPEND sources ${registry})
  set(${out_sources} ${sources} PARENT_SCOPE)
endfunction()
