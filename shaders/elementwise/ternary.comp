#version 450
// out = ternary_op(a, b, c); b or c may be a scalar carried in the push constants.
#include "elementwise_functions.glsl"

layout(constant_id = 0) const int OP = 0;
layout(constant_id = 1) const int DT_OUT = 0;
layout(constant_id = 2) const int DT_A = 0;
layout(constant_id = 3) const int DT_B = 0;
layout(constant_id = 4) const int DT_C = 0;
layout(constant_id = 5) const bool B_IS_SCALAR = false;
layout(constant_id = 6) const bool C_IS_SCALAR = false;

#define NUM_OPERANDS 4
#define MAX_DIMS 4
#define EXTRA_PARAMS uint scalars[6];
#include "strided.glsl"

DECLARE_OPERAND(0, out_data, writeonly)
DECLARE_OPERAND(1, a_data, readonly)
DECLARE_OPERAND(2, b_data, readonly)
DECLARE_OPERAND(3, c_data, readonly)
DEFINE_LOAD(a_data, DT_A)
DEFINE_LOAD(b_data, DT_B)
DEFINE_LOAD(c_data, DT_C)
DEFINE_STORE(out_data, DT_OUT)

void main() {
  const compute_t value = scalar_from_bits(uvec2(p.scalars[0], p.scalars[1]));
  const compute_t b_scalar = scalar_from_bits(uvec2(p.scalars[2], p.scalars[3]));
  const compute_t c_scalar = scalar_from_bits(uvec2(p.scalars[4], p.scalars[5]));
  FOR_EACH_ELEMENT(i) {
    uint offsets[4];
    operand_offsets(i, offsets);
    const compute_t b = B_IS_SCALAR ? b_scalar : b_data_load(offsets[2]);
    const compute_t c = C_IS_SCALAR ? c_scalar : c_data_load(offsets[3]);
    out_data_store(offsets[0], ternary_op(OP, a_data_load(offsets[1]), b, c, value));
  }
}
