#version 450
// tril / triu over the last two dims: keeps in's elements whose column minus row is at most `diagonal`
// (lower) or at least `diagonal` (upper) and writes zero elsewhere. Rows and columns come from the
// element's row-major position, position_base being the launch piece's first position modulo one
// matrix, because the host merges dims and may merge the matrix dims with the batch. out may alias in:
// each element is read and written by the same invocation.
#include "element_types.glsl"
#define NUM_OPERANDS 2
#define EXTRA_PARAMS uint rows; uint cols; uint position_base; int diagonal; uint upper;
#include "strided.glsl"

layout(set = 0, binding = 0) writeonly buffer Out { ELEMENT out_data[]; };
layout(set = 0, binding = 1) readonly buffer In { ELEMENT in_data[]; };

void main() {
  COPY_PUSH_CONSTANTS();
  FOR_EACH_ELEMENT(i) {
    uint offsets[2];
    operand_offsets(i, offsets);
    const uint position = p.position_base + i;
    const int col = int(position % p.cols);
    const int row = int((position / p.cols) % p.rows);
    const bool keep = p.upper != 0u ? col - row >= p.diagonal : col - row <= p.diagonal;
    out_data[offsets[0]] = keep ? in_data[offsets[1]] : ELEMENT_FROM_BITS(0u, 0u);
  }
}
