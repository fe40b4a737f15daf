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
#include "launch_item.glsl"

// The layouts a shader's LAYOUT specialization constant selects, each its own pipeline: llvmpipe runs
// both sides of every branch under a lane mask, so a path that is not taken still costs unless it is
// compiled out.
//   LAYOUT_STRIDED: strided.glsl's index arithmetic, any strides; item j is the run of elements
//     4j .. 4j+3 (those below p.numel), whose offsets come from strided.glsl's run_offsets.
//   LAYOUT_ELEMENTS: contiguous operands, element i of the launch at p.offsets[k] + i of each window.
//   LAYOUT_BLOCKS: contiguous operands whose windows start at their first element on 16 bytes; p.numel is
//     a multiple of four and item j is the block of elements 4j .. 4j+3, moved as whole words.
// The host (contiguous_launch.h) covers a contiguous launch with blocks and sends what is left to
// LAYOUT_ELEMENTS.
#define LAYOUT_STRIDED 0
#define LAYOUT_ELEMENTS 1
#define LAYOUT_BLOCKS 2

// TEXEL_READS (the elementwise shaders' *_f32_texel variants): the float32 inputs of LAYOUT_BLOCKS
// launches come from uvec4 texel views of their windows, one block per texel, bound after the storage
// bindings. llvmpipe fetches a texel for all lanes of a vector at once, where it loads a storage buffer
// lane by lane: a contiguous float32 add ran at 16-18 GB/s so, against 8.3-8.9 (docs/PERFORMANCE.md).
// LOAD_BLOCK(NAME, item) reads a block either way.
#if defined(TEXEL_READS)
#define DECLARE_BLOCK_TEXELS(BINDING, NAME) layout(set = 0, binding = BINDING) uniform utextureBuffer NAME##_texels;
#define LOAD_BLOCK(NAME, item) compute4_t(uintBitsToFloat(texelFetch(NAME##_texels, int(item))))
#else
#define DECLARE_BLOCK_TEXELS(BINDING, NAME)
#define LOAD_BLOCK(NAME, item) NAME##_load4(item)
#endif

// Items of a launch of p.numel elements, and elements per item (at most four: a compute4_t holds them).
#define LAYOUT_ITEMS(LAYOUT)                                        \
  ((LAYOUT) == LAYOUT_BLOCKS    ? p.numel / BLOCK_ELEMENTS         \
   : (LAYOUT) == LAYOUT_STRIDED ? (p.numel + RUN_ELEMENTS - 1u) / RUN_ELEMENTS \
                                : p.numel)
#define LAYOUT_ITEM_ELEMENTS(LAYOUT) \
  ((LAYOUT) == LAYOUT_BLOCKS ? BLOCK_ELEMENTS : (LAYOUT) == LAYOUT_STRIDED ? RUN_ELEMENTS : 1)


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

#endif
