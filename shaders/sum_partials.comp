#version 450
// Second pass of a float32 sum: one workgroup adds the partials of the first pass into out.
#define WORKGROUP_SIZE 256
layout(local_size_x = WORKGROUP_SIZE) in;
#include "reduce_tree.glsl"

layout(push_constant) uniform Params {
  uint count;
  uint out_offset;
} p;

layout(set = 0, binding = 0) writeonly buffer Out { float out_data[]; };
layout(set = 0, binding = 1) readonly buffer Partials { float partials[]; };

void main() {
  float sum = 0.0;
  for (uint i = gl_LocalInvocationID.x; i < p.count; i += WORKGROUP_SIZE) sum += partials[i];
  const float total = workgroup_sum(sum);
  if (gl_LocalInvocationID.x == 0) out_data[p.out_offset] = total;
}
