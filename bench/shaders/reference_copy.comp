#version 450
// out[i] = in[i] over 32-bit words, one element per invocation.
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) writeonly buffer Out { uint out_data[]; };
layout(set = 0, binding = 1) readonly buffer In { uint in_data[]; };
layout(push_constant) uniform Params { uint numel; } p;

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i < p.numel) out_data[i] = in_data[i];
}
