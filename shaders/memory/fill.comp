#version 450
// out[i] = value, with the value's bit pattern given by the host for any dtype of ELEM_BITS bits.
#include "element_types.glsl"
#define NUM_OPERANDS 1
#define EXTRA_PARAMS uint value_lo; uint value_hi;
#include "strided.glsl"

layout(set = 0, binding = 0) writeonly buffer Out { ELEMENT out_data[]; };

void main() {
  COPY_PUSH_CONSTANTS();
  const ELEMENT value = ELEMENT_FROM_BITS(p.value_lo, p.value_hi);
  FOR_EACH_ELEMENT(i) {
    uint offsets[1];
    operand_offsets(i, offsets);
    out_data[offsets[0]] = value;
  }
}
