#version 450
// out = a OP b on float32 views; broadcasting arrives as zero strides.
#define NUM_OPERANDS 3
#include "strided.glsl"

layout(set = 0, binding = 0) writeonly buffer Out { float out_data[]; };
layout(set = 0, binding = 1) readonly buffer A { float a_data[]; };
layout(set = 0, binding = 2) readonly buffer B { float b_data[]; };

void main() {
  FOR_EACH_ELEMENT(i) {
    uint offsets[3];
    operand_offsets(i, offsets);
    const float a = a_data[offsets[1]];
    const float b = b_data[offsets[2]];
#if defined(OP_ADD)
    out_data[offsets[0]] = a + b;
#elif defined(OP_MUL)
    out_data[offsets[0]] = a * b;
#else
#error define OP_ADD or OP_MUL
#endif
  }
}
