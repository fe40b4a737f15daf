#version 450
// out = unary_op(in), with the op and both dtypes fixed by specialization constants.
#include "elementwise_functions.glsl"

layout(constant_id = 0) const int OP = 0;
layout(constant_id = 1) const int DT_OUT = 0;
layout(constant_id = 2) const int DT_IN = 0;
// How the operands are laid out (contiguous.glsl): strided, contiguous elements or contiguous blocks.
layout(constant_id = 3) const int LAYOUT = 0;

#define NUM_OPERANDS 2
#define EXTRA_PARAMS uint scalars[6];
#include "strided.glsl"
#include "contiguous.glsl"

DECLARE_OPERAND(0, out_data, writeonly)
DECLARE_OPERAND(1, in_data, readonly)
DECLARE_BLOCK_VIEWS(0, out_data, writeonly)
DECLARE_BLOCK_VIEWS(1, in_data, readonly)
DECLARE_BLOCK_TEXELS(2, in_data)
DEFINE_LOAD(in_data, DT_IN)
DEFINE_STORE(out_data, DT_OUT)
DEFINE_LOAD4(in_data, DT_IN)
DEFINE_STORE4(out_data, DT_OUT)

void main() {
  COPY_PUSH_CONSTANTS();
  const compute_t p0 = scalar_from_bits(uvec2(p.scalars[0], p.scalars[1]));
  const compute_t p1 = scalar_from_bits(uvec2(p.scalars[2], p.scalars[3]));
  const compute_t p2 = scalar_from_bits(uvec2(p.scalars[4], p.scalars[5]));
  const uint item = launch_item();
  uint at[2];
  uint steps[2];
  if (LAYOUT_IS_ROWS(LAYOUT)) row_item(LAYOUT, item, at, steps);
  if (item < LAYOUT_ITEMS(LAYOUT)) {
    uint offsets[RUN_ELEMENTS][2];
    compute4_t x = compute4_t(0);
    if (LAYOUT == LAYOUT_BLOCKS) {
      x = LOAD_BLOCK(in_data, item);
    } else if (LAYOUT_IS_ROWS(LAYOUT)) {
      LOAD_ROW_ITEM(in_data, steps[1], at[1], x)
    } else {
      item_offsets(LAYOUT, item, offsets);
      for (int k = 0; k < LAYOUT_ITEM_ELEMENTS(LAYOUT); ++k) {
        if (item_has_element(LAYOUT, item, k)) x[k] = in_data_load(offsets[k][1]);
      }
    }
    // The shader's one call of the op: each copy of its switch costs lavapipe's compiler about 0.2 s per
    // pipeline, even where the layout leaves it out.
    compute4_t y;
    for (int k = 0; k < LAYOUT_ITEM_ELEMENTS(LAYOUT); ++k) y[k] = unary_op(OP, x[k], p0, p1, p2);
    if (LAYOUT == LAYOUT_BLOCKS) {
      out_data_store4(item, y);
    } else if (LAYOUT_IS_ROWS(LAYOUT)) {
      out_data_store4(at[0] / BLOCK_ELEMENTS, y);
    } else {
      for (int k = 0; k < LAYOUT_ITEM_ELEMENTS(LAYOUT); ++k) {
        if (item_has_element(LAYOUT, item, k)) out_data_store(offsets[k][0], y[k]);
      }
    }
  }
}
