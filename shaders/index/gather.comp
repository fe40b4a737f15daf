#version 450
// out[p] = in[p with coordinate `dim` replaced by index[p]], moving ELEM_BITS-wide elements without
// arithmetic. The host binds `in` as a view with out's sizes whose stride along `dim` is zero, and
// passes that dim's stride and size: each element then adds index * in_dim_stride to its offset.
// Negative indices count from the end; an index still out of range reads zero.
//
// Where `in` along `dim` is wider than a binding, the host launches once per slice of that dim
// [slice_first, slice_first + slice_size), binding only the slice: a launch writes the elements whose
// index falls in its slice, and the first slice's launch also writes the zeros of out-of-range indices.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "element_types.glsl"
#define NUM_OPERANDS 3
#define MAX_DIMS 5  // leaves room in 128 bytes for the slice
#define EXTRA_PARAMS uint in_dim_stride; uint in_dim_size; uint slice_first; uint slice_size;
#include "strided.glsl"

layout(set = 0, binding = 0) writeonly buffer Out { ELEMENT out_data[]; };
layout(set = 0, binding = 1) readonly buffer Index { int64_t index_data[]; };
layout(set = 0, binding = 2) readonly buffer In { ELEMENT in_data[]; };

void main() {
  COPY_PUSH_CONSTANTS();
  const int64_t size = int64_t(p.in_dim_size);
  FOR_EACH_ELEMENT(i) {
    uint offsets[3];
    operand_offsets(i, offsets);
    int64_t index = index_data[offsets[1]];
    if (index < 0) index += size;
    const int64_t local = index - int64_t(p.slice_first);
    if (local >= 0 && local < int64_t(p.slice_size)) {
      out_data[offsets[0]] = in_data[offsets[2] + uint(local) * p.in_dim_stride];
    } else if (p.slice_first == 0u && (index < 0 || index >= size)) {
      out_data[offsets[0]] = ELEMENT_FROM_BITS(0u, 0u);
    }
  }
}
