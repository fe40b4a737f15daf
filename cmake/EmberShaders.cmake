# Builds the embedded shaders. Each kernel family keeps its GLSL sources and a variants.cmake in its
# own folder (shaders/<family>/); a variant row reads "name|source|DEFINE=1,..." with the source
# relative to that folder. Every variant is compiled to SPIR-V with glslc (depfiles make included .glsl
# files trigger rebuilds) and embedded as a C++ array whose generated source registers it with the
# shader registry at start-up (runtime/vulkan/shader_registry.h), so no list joins the families.
#
# Shaders include shared GLSL from shaders/common/ and the op codes generated from every op list
# (runtime/kernels/*.def and shaders/*/*.def, see cmake/OpList.cmake) by file name.
find_program(EMBER_GLSLC glslc REQUIRED)
include(${CMAKE_CURRENT_LIST_DIR}/OpList.cmake)

# The GLSL headers of the op lists, generated at configure time into <binary dir>/generated/ops.
function(ember_generate_op_lists)
  set(out_dir ${PROJECT_BINARY_DIR}/generated/ops)
  file(MAKE_DIRECTORY ${out_dir})
  file(GLOB lists CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/runtime/kernels/*.def
       ${PROJECT_SOURCE_DIR}/shaders/*/*.def)
  foreach(list IN LISTS lists)
    ember_op_list_glsl(${list} ${out_dir} generated)
  endforeach()
endfunction()

# ember_embedded_shaders(<out_sources> <name> <variants.cmake files>...): compiles and embeds every
# variant of the given files; the generated sources go to <binary dir>/generated/<name>.
function(ember_embedded_shaders out_sources name)
  set(gen_dir ${PROJECT_BINARY_DIR}/generated/${name})
  file(MAKE_DIRECTORY ${gen_dir})
  set(sources "")
  foreach(variants_file IN LISTS ARGN)
    get_filename_component(family_dir ${variants_file} DIRECTORY)
    set(EMBER_SHADER_VARIANTS "")
    include(${variants_file})
    set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${variants_file})
    foreach(variant IN LISTS EMBER_SHADER_VARIANTS)
      string(REPLACE "|" ";" fields "${variant}")
      list(GET fields 0 variant_name)
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
      set(spv ${gen_dir}/${variant_name}.spv)
      set(cpp ${gen_dir}/${variant_name}.spv.cpp)
      add_custom_command(
        OUTPUT ${spv}
        COMMAND ${EMBER_GLSLC} --target-env=vulkan1.2 -O ${define_flags}
                -I ${PROJECT_SOURCE_DIR}/shaders/common -I ${PROJECT_BINARY_DIR}/generated/ops
                -MD -MF ${spv}.d -o ${spv} ${family_dir}/${source}
        DEPENDS ${family_dir}/${source}
        DEPFILE ${spv}.d
        COMMENT "glslc ${variant_name}"
        VERBATIM)
      add_custom_command(
        OUTPUT ${cpp}
        COMMAND ${CMAKE_COMMAND} -DSPV=${spv} -DCPP=${cpp} -DNAME=${variant_name}
                -P ${PROJECT_SOURCE_DIR}/cmake/EmbedSpirv.cmake
        DEPENDS ${spv} ${PROJECT_SOURCE_DIR}/cmake/EmbedSpirv.cmake
        VERBATIM)
      list(APPEND sources ${cpp})
    endforeach()
  endforeach()
  set(${out_sources} ${sources} PARENT_SCOPE)
endfunction()
