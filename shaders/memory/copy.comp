#version 450
// out[i] = in[i] between any two strided views of ELEM_BITS-wide elements.
#include "element_types.glsl"
#define NUM_OPERANDS 2
#include "strided.glsl"

layout(set = 0, binding = 0) writeonly buffer Out { ELEMENT out_data[]; };
layout(set = 0, binding = 1) readonly buffer In { ELEMENT in_data[]; };

void main() {
  FOR_EACH_ELEMENT(i) {
    uint offsets[2];
    operand_offsets(i, offsets);
    out_data[offsets[0]] = in_data[offsets[1]];
  }
}
