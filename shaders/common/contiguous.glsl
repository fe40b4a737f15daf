// The contiguous fast paths of the elementwise shaders, for launches whose tensor operands are all
// contiguous (the host checks, see contiguous_launch.h): no index arithmetic, and where every window
// starts on 16 bytes, blocks of four elements that move as 32-, 64- or 128-bit words.
//
// The words are blocks.glsl's. Measured on lavapipe: a float32 add moving uvec4 blocks runs about twice
// the plain one-element-per-invocation add (docs/PERFORMANCE.md, "Contiguous elementwise and copy
// kernels").
//
// The including shader has included typed_operands.glsl and strided.glsl, and declares its operands with
// DECLARE_OPERAND.
#ifndef EMBER_CONTIGUOUS_GLSL
#define EMBER_CONTIGUOUS_GLSL

#include "blocks.glsl"
#include "divide.glsl"
#include "launch_item.glsl"

// The layouts a shader's LAYOUT specialization constant selects, each its own pipeline: llvmpipe runs
// both sides of every branch under a lane mask, so a path that is not taken still costs unless it is
// compiled out.
//   LAYOUT_STRIDED: strided.glsl's index arithmetic, any strides; item j is the run of elements
//     4j .. 4j+3 (those below p.numel), whose offsets come from strided.glsl's run_offsets.
//   LAYOUT_ELEMENTS: contiguous operands, element i of the launch at p.offsets[k] + i of each window.
//   LAYOUT_BLOCKS: contiguous operands whose windows start at their first element on 16 bytes; p.numel is
//     a multiple of four and item j is the block of elements 4j .. 4j+3, moved as whole words.
//   LAYOUT_ROWS: three dims (the host pads fewer with outer dims of one), the innermost a
//     multiple of four elements along which out steps by one element and its rows start on blocks
//     (whole words); each input steps by one element the same way or by none (a broadcast value per
//     row), with strided.glsl's strides between rows; item j is the block of elements 4j .. 4j+3, fewer
//     than 2^24 of them. Broadcasts such as x - x.amax(1, true) or a bias over channels take it:
//     LAYOUT_STRIDED loads and stores them one element at a time, and divides one lane at a time.
//   LAYOUT_ROWS_GATHER: LAYOUT_ROWS where an input steps by other strides too (a transposed one), whose
//     four elements it loads one by one. A layout of its own: llvmpipe runs a branch that no lane takes
//     under an empty mask rather than jumping over it, and its loads made broadcasts 40% slower.
//   LAYOUT_FOUR_DIM_ROWS and LAYOUT_FOUR_DIM_ROWS_GATHER: the two above over four dims (attention's heads
//     moved in front of its tokens), which cost one more division per block: layouts of their own, so
//     that launches of three dims do not pay it (5-8% in one early alternation on lavapipe; later ones put
//     it within the VM's noise, so the split is a precaution more than a measured gain).
// The host (contiguous_launch.h) covers a contiguous launch with blocks and sends what is left to
// LAYOUT_ELEMENTS.
#define LAYOUT_STRIDED 0
#define LAYOUT_ELEMENTS 1
#define LAYOUT_BLOCKS 2
#define LAYOUT_ROWS 3
#define LAYOUT_ROWS_GATHER 4
#define LAYOUT_FOUR_DIM_ROWS 5
#define LAYOUT_FOUR_DIM_ROWS_GATHER 6
// Single comparisons: glslc's optimizer failed on a specialization-constant select of an || of two.
#define LAYOUT_IS_ROWS(LAYOUT) ((LAYOUT) >= LAYOUT_ROWS)
// Of the rows layouts, those that gather have the even codes.
#define LAYOUT_ROWS_GATHERS(LAYOUT) (((LAYOUT) & 1) == 0)
#define LAYOUT_WHOLE_BLOCKS(LAYOUT) ((LAYOUT) >= LAYOUT_BLOCKS)

// TEXEL_READS (the elementwise shaders' *_f32_texel variants): the float32 inputs' blocks of
// LAYOUT_BLOCKS and the rows layouts come from uvec4 texel views of their windows, one block per texel,
// bound after the storage bindings. llvmpipe fetches a texel for all lanes of a vector at once, where it
// loads a storage buffer lane by lane: a contiguous float32 add ran at 16-18 GB/s so, against 8.3-8.9
// (docs/PERFORMANCE.md).
// LOAD_BLOCK(NAME, item) reads a block either way.
#if defined(TEXEL_READS)
#define DECLARE_BLOCK_TEXELS(BINDING, NAME) layout(set = 0, binding = BINDING) uniform utextureBuffer NAME##_texels;
#define LOAD_BLOCK(NAME, item) compute4_t(uintBitsToFloat(texelFetch(NAME##_texels, int(item))))
#define TEXEL_BLOCKS true
#else
#define DECLARE_BLOCK_TEXELS(BINDING, NAME)
#define LOAD_BLOCK(NAME, item) NAME##_load4(item)
#define TEXEL_BLOCKS false
#endif

// Items of a launch of p.numel elements, and elements per item (at most four: a compute4_t holds them).
#define LAYOUT_ITEMS(LAYOUT)                                        \
  (LAYOUT_WHOLE_BLOCKS(LAYOUT)  ? p.numel / BLOCK_ELEMENTS         \
   : (LAYOUT) == LAYOUT_STRIDED ? (p.numel + RUN_ELEMENTS - 1u) / RUN_ELEMENTS \
                                : p.numel)
#define LAYOUT_ITEM_ELEMENTS(LAYOUT) \
  (LAYOUT_WHOLE_BLOCKS(LAYOUT) ? BLOCK_ELEMENTS : (LAYOUT) == LAYOUT_STRIDED ? RUN_ELEMENTS : 1)


// Element offsets of every operand for the elements of `item` in a LAYOUT_ELEMENTS or LAYOUT_STRIDED
// launch: offsets[k] for its element k (item_has_element says which exist).
void item_offsets(int layout_code, uint item, out uint offsets[RUN_ELEMENTS][NUM_OPERANDS]) {
  if (layout_code == LAYOUT_ELEMENTS) {
    for (int op = 0; op < NUM_OPERANDS; ++op) offsets[0][op] = p.offsets[op] + item;
  } else {
    run_offsets(item * RUN_ELEMENTS, offsets);
  }
}

// Whether element k of `item` lies in the launch.
bool item_has_element(int layout_code, uint item, int k) {
  return item * uint(LAYOUT_ITEM_ELEMENTS(layout_code)) + uint(k) < p.numel;
}

// The rows layouts: every operand's element offset for the first element of `item` (its block's first
// element, or the row's broadcast value), and its step along the rows. The dims are the first four slots,
// whose first is a dim of one below LAYOUT_FOUR_DIM_ROWS. The slots are constants: llvmpipe reads an
// array at an index known only at run time one lane at a time.
void row_item(int layout_code, uint item, out uint at[NUM_OPERANDS], out uint steps[NUM_OPERANDS]) {
  const uint row_blocks = p.sizes[3] / BLOCK_ELEMENTS;
  const uint row = divide_small(item, row_blocks);
  const uint column = (item - row * row_blocks) * BLOCK_ELEMENTS;
  const uint rest = divide_small(row, p.sizes[2]);
  const uint d2 = row - rest * p.sizes[2];
  const uint d0 = layout_code >= LAYOUT_FOUR_DIM_ROWS ? divide_small(rest, p.sizes[1]) : 0u;
  const uint d1 = rest - d0 * p.sizes[1];
  for (int op = 0; op < NUM_OPERANDS; ++op) {
    steps[op] = p.strides[op * MAX_DIMS + 3];
    at[op] = p.offsets[op] + d0 * p.strides[op * MAX_DIMS] + d1 * p.strides[op * MAX_DIMS + 1] +
             d2 * p.strides[op * MAX_DIMS + 2] + column * steps[op];
  }
}

// The rows layouts: `value` = the four elements of an operand (NAME) from `at` (row_item), which
// steps by STEP elements along its rows: 1, a block; 0, the row's broadcast value; else (only in
// the gathering rows layouts, the including shader's specialization constant LAYOUT) four loads. A broadcast
// value comes from its block too where blocks are texels: llvmpipe fetches a texel for all lanes at
// once, and loads a storage buffer element lane by lane.
#define LOAD_ROW_ITEM(NAME, STEP, at, value)                                                         \
  if ((STEP) == 1u) {                                                                                \
    value = LOAD_BLOCK(NAME, (at) / BLOCK_ELEMENTS);                                                 \
  } else if ((STEP) == 0u) {                                                                         \
    if (TEXEL_BLOCKS) {                                                                              \
      value = compute4_t(element_of(LOAD_BLOCK(NAME, (at) / BLOCK_ELEMENTS), (at) % BLOCK_ELEMENTS)); \
    } else {                                                                                         \
      value = compute4_t(NAME##_load(at));                                                           \
    }                                                                                                \
  } else if (LAYOUT_ROWS_GATHERS(LAYOUT)) {                                                          \
    for (uint k = 0; k < BLOCK_ELEMENTS; ++k) value[k] = NAME##_load((at) + k * (STEP));             \
  }

// Element k of `block`, by selects: an index that differs between lanes would send llvmpipe to memory.
compute_t element_of(compute4_t block, uint k) {
  return k == 0u ? block.x : k == 1u ? block.y : k == 2u ? block.z : block.w;
}

#endif
