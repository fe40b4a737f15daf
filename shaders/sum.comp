#version 450
// First pass of a float32 sum: each workgroup reduces its share of a strided input to one partial.
// Each invocation first sums its grid-stride elements with Kahan compensation, then the workgroup sums
// the invocations as a tree.
#define NUM_OPERANDS 1
#define EXTRA_PARAMS uint partial_base;
#include "strided.glsl"
#include "reduce_tree.glsl"

layout(set = 0, binding = 0) writeonly buffer Partials { float partials[]; };
layout(set = 0, binding = 1) readonly buffer In { float in_data[]; };

void main() {
  float sum = 0.0;
  float compensation = 0.0;
  FOR_EACH_ELEMENT(i) {
    uint offsets[1];
    operand_offsets(i, offsets);
    const float y = in_data[offsets[0]] - compensation;
    const float t = sum + y;
    compensation = (t - sum) - y;
    sum = t;
  }
  const float total = workgroup_sum(sum);
  if (gl_LocalInvocationID.x == 0) partials[p.partial_base + gl_WorkGroupID.x] = total;
}
