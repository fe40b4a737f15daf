#version 450
// Writes the coordinates of every nonzero element of `in` as row positions[k] - 1 of out (int64), where
// k is the element's row-major position and positions holds the inclusive count of nonzeros. Elements
// are tested by their ELEM_BITS-wide bits; IS_FLOAT (a specialization constant) ignores the sign bit so
// that -0.0 counts as zero while NaN does not. positions is contiguous, so element i of a launch piece
// finds its count at positions_offset + i. The coordinates come from k and in's sizes of dims 1 onwards.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "element_types.glsl"
#define NUM_OPERANDS 1
#define MAX_DIMS 4  // leaves room in 128 bytes for in's own sizes
#define EXTRA_PARAMS                                                                              \
  uint positions_offset; uint out_offset; uint out_row_stride; uint out_col_stride; uint base;   \
  uint in_ndim; uint in_sizes[15];
#include "strided.glsl"

layout(constant_id = 0) const bool IS_FLOAT = false;

layout(set = 0, binding = 0) writeonly buffer Out { int64_t out_data[]; };
layout(set = 0, binding = 1) readonly buffer In { ELEMENT in_data[]; };
layout(set = 0, binding = 2) readonly buffer Positions { int64_t positions[]; };

bool is_nonzero(ELEMENT value) {
#if ELEM_BITS == 64
  const uint sign = IS_FLOAT ? 0x7fffffffu : 0xffffffffu;
  return (value.x | (value.y & sign)) != 0u;
#else
  const uint all = (1u << (ELEM_BITS - 1)) * 2u - 1u;
  const uint mask = IS_FLOAT ? all >> 1 : all;
  return (uint(value) & mask) != 0u;
#endif
}

void main() {
  COPY_PUSH_CONSTANTS();
  FOR_EACH_ELEMENT(i) {
    uint offsets[1];
    operand_offsets(i, offsets);
    if (!is_nonzero(in_data[offsets[0]])) continue;
    const uint row = uint(positions[p.positions_offset + i] - 1);
    const uint out_row = p.out_offset + row * p.out_row_stride;
    uint position = p.base + i;
    for (int d = int(p.in_ndim) - 1; d > 0; --d) {
      const uint size = p.in_sizes[d - 1];
      out_data[out_row + uint(d) * p.out_col_stride] = int64_t(position % size);
      position /= size;
    }
    out_data[out_row] = int64_t(position);
  }
}
