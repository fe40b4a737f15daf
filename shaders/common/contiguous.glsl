// The contiguous fast paths of the elementwise shaders, for launches whose tensor operands are all
// contiguous (the host checks, see contiguous_launch.h): no index arithmetic, and where every window
// starts on 16 bytes, blocks of four elements that move as 32-, 64- or 128-bit words.
//
// Why words: llvmpipe (lavapipe's compiler) runs every storage-buffer access one lane at a time, with a
// branch and a bounds check per access, whatever its width. Four float32 elements in one u64vec2 are two
// 64-bit accesses instead of four, and the per-invocation work is paid once per four elements. Measured
// on lavapipe: a float32 add moving u64vec2 blocks runs 2.5x the plain one-element-per-invocation add
// (docs/PERFORMANCE.md, "Contiguous elementwise fast path").
//
// The including shader has included typed_operands.glsl and strided.glsl, and declares its operands with
// DECLARE_OPERAND.
#ifndef EMBER_CONTIGUOUS_GLSL
#define EMBER_CONTIGUOUS_GLSL

#include "typed_bits.glsl"

#define BLOCK_ELEMENTS 4

// Four values of the compute type.
#if defined(COMPUTE_F64)
#define compute4_t dvec4
#elif defined(COMPUTE_I32)
#define compute4_t ivec4
#elif defined(COMPUTE_I64)
#define compute4_t i64vec4
#else
#define compute4_t vec4
#endif

// The 64- and 128-bit views of binding BINDING that whole blocks move through (DECLARE_OPERAND has the
// 32-bit one, NAME_32).
#define DECLARE_BLOCK_VIEWS(BINDING, NAME, QUALIFIER)                                                  \
  layout(set = 0, binding = BINDING) QUALIFIER buffer NAME##_block_w64 { uint64_t NAME##_w64[]; };     \
  layout(set = 0, binding = BINDING) QUALIFIER buffer NAME##_block_w128 { u64vec2 NAME##_w128[]; };

// compute4_t NAME_load4(uint block): elements 4 block .. 4 block + 3 of NAME, whose dtype is DT, in a
// window that starts at element 0. The conversions are typed_bits.glsl's, those of DEFINE_LOAD.
#define DEFINE_LOAD4(NAME, DT)                                                                         \
  DEFINE_BIT_CONVERSIONS(NAME##_element, DT)                                                           \
  compute4_t NAME##_load4(uint block) {                                                                \
    uvec2 b0, b1, b2, b3;                                                                              \
    if (DTYPE_BITS(DT) == 8u) {                                                                        \
      const uint w = NAME##_32[block];                                                                 \
      b0 = uvec2(w & 0xffu, 0u);                                                                       \
      b1 = uvec2(bitfieldExtract(w, 8, 8), 0u);                                                        \
      b2 = uvec2(bitfieldExtract(w, 16, 8), 0u);                                                       \
      b3 = uvec2(w >> 24, 0u);                                                                         \
    } else if (DTYPE_BITS(DT) == 16u) {                                                                \
      const uvec2 w = unpack32(NAME##_w64[block]);                                                     \
      b0 = uvec2(w.x & 0xffffu, 0u);                                                                   \
      b1 = uvec2(w.x >> 16, 0u);                                                                       \
      b2 = uvec2(w.y & 0xffffu, 0u);                                                                   \
      b3 = uvec2(w.y >> 16, 0u);                                                                       \
    } else if (DTYPE_BITS(DT) == 32u) {                                                                \
      const u64vec2 w = NAME##_w128[block];                                                            \
      const uvec2 lo = unpack32(w.x), hi = unpack32(w.y);                                              \
      b0 = uvec2(lo.x, 0u);                                                                            \
      b1 = uvec2(lo.y, 0u);                                                                            \
      b2 = uvec2(hi.x, 0u);                                                                            \
      b3 = uvec2(hi.y, 0u);                                                                            \
    } else {                                                                                           \
      const u64vec2 w0 = NAME##_w128[2u * block], w1 = NAME##_w128[2u * block + 1u];                   \
      b0 = unpack32(w0.x);                                                                             \
      b1 = unpack32(w0.y);                                                                             \
      b2 = unpack32(w1.x);                                                                             \
      b3 = unpack32(w1.y);                                                                             \
    }                                                                                                  \
    return compute4_t(NAME##_element_from_bits(b0), NAME##_element_from_bits(b1),                      \
                      NAME##_element_from_bits(b2), NAME##_element_from_bits(b3));                     \
  }

// void NAME_store4(uint block, compute4_t v): the store of DEFINE_LOAD4's block.
#define DEFINE_STORE4(NAME, DT)                                                                        \
  DEFINE_BIT_CONVERSIONS(NAME##_element, DT)                                                           \
  void NAME##_store4(uint block, compute4_t v) {                                                       \
    const uvec2 b0 = NAME##_element_to_bits(v.x), b1 = NAME##_element_to_bits(v.y);                    \
    const uvec2 b2 = NAME##_element_to_bits(v.z), b3 = NAME##_element_to_bits(v.w);                    \
    if (DTYPE_BITS(DT) == 8u) {                                                                        \
      NAME##_32[block] = b0.x | (b1.x << 8) | (b2.x << 16) | (b3.x << 24);                             \
    } else if (DTYPE_BITS(DT) == 16u) {                                                                \
      NAME##_w64[block] = pack64(uvec2(b0.x | (b1.x << 16), b2.x | (b3.x << 16)));                     \
    } else if (DTYPE_BITS(DT) == 32u) {                                                                \
      NAME##_w128[block] = u64vec2(pack64(uvec2(b0.x, b1.x)), pack64(uvec2(b2.x, b3.x)));              \
    } else {                                                                                           \
      NAME##_w128[2u * block] = u64vec2(pack64(b0), pack64(b1));                                       \
      NAME##_w128[2u * block + 1u] = u64vec2(pack64(b2), pack64(b3));                                  \
    }                                                                                                  \
  }

// The layouts a shader's LAYOUT specialization constant selects, each its own pipeline: llvmpipe runs
// both sides of every branch under a lane mask, so a path that is not taken still costs unless it is
// compiled out.
//   LAYOUT_STRIDED: strided.glsl's index arithmetic, any strides; items are elements.
//   LAYOUT_ELEMENTS: contiguous operands, element i of the launch at p.offsets[k] + i of each window.
//   LAYOUT_BLOCKS: contiguous operands whose windows start at their first element on 16 bytes; p.numel is
//     a multiple of four and item j is the block of elements 4j .. 4j+3, moved as whole words.
// The host (contiguous_launch.h) covers a contiguous launch with blocks and sends what is left to
// LAYOUT_ELEMENTS.
#define LAYOUT_STRIDED 0
#define LAYOUT_ELEMENTS 1
#define LAYOUT_BLOCKS 2

// Items of a launch of p.numel elements, and elements per item.
#define LAYOUT_ITEMS(LAYOUT) ((LAYOUT) == LAYOUT_BLOCKS ? p.numel / BLOCK_ELEMENTS : p.numel)
#define LAYOUT_ITEM_ELEMENTS(LAYOUT) ((LAYOUT) == LAYOUT_BLOCKS ? BLOCK_ELEMENTS : 1)

// This invocation's item: one item per invocation, in rows of workgroups when one row cannot cover a
// launch (groups_for_items in contiguous_launch.h). No grid-stride loop: it cost llvmpipe a quarter of a
// plain copy's speed.
uint launch_item() {
  return gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * WORKGROUP_SIZE;
}

// Element offsets of every operand for element `index` of a LAYOUT_ELEMENTS or LAYOUT_STRIDED launch.
void element_offsets(int layout_code, uint index, out uint offsets[NUM_OPERANDS]) {
  if (layout_code == LAYOUT_ELEMENTS) {
    for (int op = 0; op < NUM_OPERANDS; ++op) offsets[op] = p.offsets[op] + index;
  } else {
    operand_offsets(index, offsets);
  }
}

#endif
