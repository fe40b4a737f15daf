#version 450
// out = binary_op(a, b); either input may be a scalar carried in the push constants.
#include "elementwise_functions.glsl"

layout(constant_id = 0) const int OP = 0;
layout(constant_id = 1) const int DT_OUT = 0;
layout(constant_id = 2) const int DT_A = 0;
layout(constant_id = 3) const int DT_B = 0;
layout(constant_id = 4) const bool A_IS_SCALAR = false;
layout(constant_id = 5) const bool B_IS_SCALAR = false;
// How the operands are laid out (contiguous.glsl): strided, contiguous elements or contiguous blocks.
layout(constant_id = 6) const int LAYOUT = 0;

#define NUM_OPERANDS 3
#define MAX_DIMS 5
#define EXTRA_PARAMS uint scalars[4];
#include "strided.glsl"
#include "contiguous.glsl"

DECLARE_OPERAND(0, out_data, writeonly)
DECLARE_OPERAND(1, a_data, readonly)
DECLARE_OPERAND(2, b_data, readonly)
DECLARE_BLOCK_VIEWS(0, out_data, writeonly)
DECLARE_BLOCK_VIEWS(1, a_data, readonly)
DECLARE_BLOCK_VIEWS(2, b_data, readonly)
DEFINE_LOAD(a_data, DT_A)
DEFINE_LOAD(b_data, DT_B)
DEFINE_STORE(out_data, DT_OUT)
DEFINE_LOAD4(a_data, DT_A)
DEFINE_LOAD4(b_data, DT_B)
DEFINE_STORE4(out_data, DT_OUT)

DECLARE_BLOCK_TEXELS(3, a_data)
DECLARE_BLOCK_TEXELS(4, b_data)

void main() {
  COPY_PUSH_CONSTANTS();
  const compute_t param = scalar_from_bits(uvec2(p.scalars[0], p.scalars[1]));
  const compute_t scalar = scalar_from_bits(uvec2(p.scalars[2], p.scalars[3]));
  const uint item = launch_item();
  uint at[3];
  uint steps[3];
  if (LAYOUT_IS_ROWS(LAYOUT)) row_item(LAYOUT, item, at, steps);
  if (item < LAYOUT_ITEMS(LAYOUT)) {
    uint offsets[RUN_ELEMENTS][3];
    compute4_t a = compute4_t(scalar), b = compute4_t(scalar);
    if (LAYOUT == LAYOUT_BLOCKS) {
      if (!A_IS_SCALAR) a = LOAD_BLOCK(a_data, item);
      if (!B_IS_SCALAR) b = LOAD_BLOCK(b_data, item);
    } else if (LAYOUT_IS_ROWS(LAYOUT)) {
      if (!A_IS_SCALAR) { LOAD_ROW_ITEM(a_data, steps[1], at[1], a) }
      if (!B_IS_SCALAR) { LOAD_ROW_ITEM(b_data, steps[2], at[2], b) }
    } else {
      item_offsets(LAYOUT, item, offsets);
      for (int k = 0; k < LAYOUT_ITEM_ELEMENTS(LAYOUT); ++k) {
        if (!item_has_element(LAYOUT, item, k)) continue;
        if (!A_IS_SCALAR) a[k] = a_data_load(offsets[k][1]);
        if (!B_IS_SCALAR) b[k] = b_data_load(offsets[k][2]);
      }
    }
    // The shader's one call of the op: each copy of its switch costs lavapipe's compiler about 0.2 s per
    // pipeline, even where the layout leaves it out.
    compute4_t r;
    for (int k = 0; k < LAYOUT_ITEM_ELEMENTS(LAYOUT); ++k) r[k] = binary_op(OP, a[k], b[k], param);
    if (LAYOUT == LAYOUT_BLOCKS) {
      out_data_store4(item, r);
    } else if (LAYOUT_IS_ROWS(LAYOUT)) {
      out_data_store4(at[0] / BLOCK_ELEMENTS, r);
    } else {
      for (int k = 0; k < LAYOUT_ITEM_ELEMENTS(LAYOUT); ++k) {
        if (item_has_element(LAYOUT, item, k)) out_data_store(offsets[k][0], r[k]);
      }
    }
  }
}
