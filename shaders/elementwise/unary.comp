#version 450
// out = unary_op(in), with the op and both dtypes fixed by specialization constants.
#include "elementwise_functions.glsl"

layout(constant_id = 0) const int OP = 0;
layout(constant_id = 1) const int DT_OUT = 0;
layout(constant_id = 2) const int DT_IN = 0;

#define NUM_OPERANDS 2
#define EXTRA_PARAMS uint scalars[6];
#include "strided.glsl"

DECLARE_OPERAND(0, out_data, writeonly)
DECLARE_OPERAND(1, in_data, readonly)
DEFINE_LOAD(in_data, DT_IN)
DEFINE_STORE(out_data, DT_OUT)

void main() {
  const compute_t p0 = scalar_from_bits(uvec2(p.scalars[0], p.scalars[1]));
  const compute_t p1 = scalar_from_bits(uvec2(p.scalars[2], p.scalars[3]));
  const compute_t p2 = scalar_from_bits(uvec2(p.scalars[4], p.scalars[5]));
  FOR_EACH_ELEMENT(i) {
    uint offsets[2];
    operand_offsets(i, offsets);
    out_data_store(offsets[0], unary_op(OP, in_data_load(offsets[1]), p0, p1, p2));
  }
}
