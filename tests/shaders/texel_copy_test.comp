#version 450
#extension GL_EXT_samplerless_texture_functions : require
// out[i] = word i of a uniform texel buffer: tests/texel_binding_test.cpp checks the runtime's texel views.
layout(local_size_x = 256) in;
layout(push_constant) uniform Params { uint count; } p;
layout(set = 0, binding = 0) writeonly buffer Out { uint out_words[]; };
layout(set = 0, binding = 1) uniform utextureBuffer words;

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i < p.count) out_words[i] = texelFetch(words, int(i >> 2))[i & 3u];
}
