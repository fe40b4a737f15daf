#version 450
// out[p] = in[p with coordinate `dim` replaced by index[p]], moving ELEM_BITS-wide elements without
// arithmetic. The host binds `in` as a view with out's sizes whose stride along `dim` is zero, and
// passes that dim's stride and size: each element then adds index * in_dim_stride to its offset.
// Negative indices count from the end; an index still out of range reads zero.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "element_types.glsl"
#define NUM_OPERANDS 3
#define EXTRA_PARAMS uint in_dim_stride; uint in_dim_size;
#include "strided.glsl"

layout(set = 0, binding = 0) writeonly buffer Out { ELEMENT out_data[]; };
layout(set = 0, binding = 1) readonly buffer Index { int64_t index_data[]; };
layout(set = 0, binding = 2) readonly buffer In { ELEMENT in_data[]; };

void main() {
  const int64_t size = int64_t(p.in_dim_size);
  FOR_EACH_ELEMENT(i) {
    uint offsets[3];
    operand_offsets(i, offsets);
    int64_t index = index_data[offsets[1]];
    if (index < 0) index += size;
    ELEMENT value = ELEMENT_FROM_BITS(0u, 0u);
    if (index >= 0 && index < size) value = in_data[offsets[2] + uint(index) * p.in_dim_stride];
    out_data[offsets[0]] = value;
  }
}
