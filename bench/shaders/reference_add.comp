#version 450
// out[i] = a[i] + b[i] over float32, one element per invocation: the reference of DESIGN.md ("Memory").
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) writeonly buffer Out { float out_data[]; };
layout(set = 0, binding = 1) readonly buffer A { float a_data[]; };
layout(set = 0, binding = 2) readonly buffer B { float b_data[]; };
layout(push_constant) uniform Params { uint numel; } p;

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i < p.numel) out_data[i] = a_data[i] + b_data[i];
}
