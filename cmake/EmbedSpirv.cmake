# cmake -DSPV=in.spv -DCPP=out.cpp -DNAME=variant -P EmbedSpirv.cmake
#   writes the SPIR-V words of SPV as a C++ array, registered with ember's shader registry as NAME;
# cmake -DSPV=in.spv -DHEADER=out.h -DSYMBOL=k_name -P EmbedSpirv.cmake
#   writes them as a plain `inline constexpr uint32_t SYMBOL[]` in HEADER, for programs with their own
#   pipelines (examples/neural_renderer).
file(READ ${SPV} hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR word_count "${hex_length} / 8")
# SPIR-V is little-endian on disk; reassemble each word from its four bytes.
string(REGEX REPLACE "(..)(..)(..)(..)" "0x\\4\\3\\2\\1u," words "${hex}")
if(DEFINED SYMBOL)
  file(WRITE ${HEADER} "// Generated from ${SPV}. Do not edit.\n#pragma once\n#include <cstdint>\n"
       "inline constexpr uint32_t ${SYMBOL}[] = {${words}};\n")
  return()
endif()
file(WRITE ${CPP} "// Generated from ${SPV}. Do not edit.\n#include <cstdint>\n"
     "#include \"runtime/vulkan/shader_registry.h\"\n"
     "namespace ember::vulkan {\nnamespace {\n"
     "const uint32_t kWords[] = {${words}};\n"
     "const ShaderRegistration kRegistration(\"${NAME}\", {kWords, ${word_count}});\n"
     "}  // namespace\n}  // namespace ember::vulkan\n")
