#version 450
// out = binary_op(a, b); either input may be a scalar carried in the push constants.
#include "elementwise_functions.glsl"

layout(constant_id = 0) const int OP = 0;
layout(constant_id = 1) const int DT_OUT = 0;
layout(constant_id = 2) const int DT_A = 0;
layout(constant_id = 3) const int DT_B = 0;
layout(constant_id = 4) const bool A_IS_SCALAR = false;
layout(constant_id = 5) const bool B_IS_SCALAR = false;

#define NUM_OPERANDS 3
#define MAX_DIMS 5
#define EXTRA_PARAMS uint scalars[4];
#include "strided.glsl"

DECLARE_OPERAND(0, out_data, writeonly)
DECLARE_OPERAND(1, a_data, readonly)
DECLARE_OPERAND(2, b_data, readonly)
DEFINE_LOAD(a_data, DT_A)
DEFINE_LOAD(b_data, DT_B)
DEFINE_STORE(out_data, DT_OUT)

void main() {
  const compute_t param = scalar_from_bits(uvec2(p.scalars[0], p.scalars[1]));
  const compute_t scalar = scalar_from_bits(uvec2(p.scalars[2], p.scalars[3]));
  FOR_EACH_ELEMENT(i) {
    uint offsets[3];
    operand_offsets(i, offsets);
    const compute_t a = A_IS_SCALAR ? scalar : a_data_load(offsets[1]);
    const compute_t b = B_IS_SCALAR ? scalar : b_data_load(offsets[2]);
    out_data_store(offsets[0], binary_op(OP, a, b, param));
  }
}
