# cmake -DSPV=in.spv -DCPP=out.cpp -DNAME=variant -P EmbedSpirv.cmake
# Writes the SPIR-V words of SPV as a uint32_t array named spirv_<NAME>.
file(READ ${SPV} hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR word_count "${hex_length} / 8")
# SPIR-V is little-endian on disk; reassemble each word from its four bytes.
string(REGEX REPLACE "(..)(..)(..)(..)" "0x\\4\\3\\2\\1u," words "${hex}")
file(WRITE ${CPP} "// Generated from ${SPV}. Do not edit.\n#include <cstddef>\n#include <cstdint>\n"
     "namespace ember::vulkan {\n"
     "extern const uint32_t spirv_${NAME}[] = {${words}};\n"
     "extern const size_t spirv_${NAME}_words = ${word_count};\n"
     "}  // namespace ember::vulkan\n")
