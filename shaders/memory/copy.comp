#version 450
// out[i] = in[i] between any two strided views of ELEM_BITS-wide elements.
#include "element_types.glsl"
#define NUM_OPERANDS 2
#include "strided.glsl"

layout(set = 0, binding = 0) writeonly buffer Out { ELEMENT out_data[]; };
layout(set = 0, binding = 1) readonly buffer In { ELEMENT in_data[]; };

// Runs of RUN_ELEMENTS elements per invocation and step (strided.glsl's run_offsets: one division chain
// per run); the host launches an invocation per run. The step never wraps past 2^32.
void main() {
  COPY_PUSH_CONSTANTS();
  const uint step = gl_NumWorkGroups.x * WORKGROUP_SIZE * RUN_ELEMENTS;
  for (uint first = gl_GlobalInvocationID.x * RUN_ELEMENTS; first < p.numel;
       first = p.numel - first > step ? first + step : p.numel) {
    uint offsets[RUN_ELEMENTS][2];
    run_offsets(first, offsets);
    for (int k = 0; k < RUN_ELEMENTS; ++k) {
      if (first + uint(k) < p.numel) out_data[offsets[k][0]] = in_data[offsets[k][1]];
    }
  }
}
