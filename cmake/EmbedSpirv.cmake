# cmake -DSPV=in.spv -DCPP=out.cpp -DNAME=variant -P EmbedSpirv.cmake
# Writes the SPIR-V words of SPV as a C++ array, registered with the shader registry as NAME.
file(READ ${SPV} hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR word_count "${hex_length} / 8")
# SPIR-V is little-endian on disk; reassemble each word from its four bytes.
string(REGEX REPLACE "(..)(..)(..)(..)" "0x\\4\\3\\2\\1u," words "${hex}")
file(WRITE ${CPP} "// Generated from ${SPV}. Do not edit.\n#include <cstdint>\n"
     "#include \"runtime/vulkan/shader_registry.h\"\n"
     "namespace ember::vulkan {\nnamespace {\n"
     "const uint32_t kWords[] = {${words}};\n"
     "const ShaderRegistration kRegistration(\"${NAME}\", {kWords, ${word_count}});\n"
     "}  // namespace\n}  // namespace ember::vulkan\n")
