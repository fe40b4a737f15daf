// Blocks of four elements moved as whole 32-, 64- or 128-bit words: the loads and stores of the
// contiguous fast paths (contiguous.glsl) and of any shader that walks four adjacent elements per
// invocation (optim.comp).
//
// Why words: llvmpipe (lavapipe's compiler) runs storage-buffer accesses one lane at a time, with a
// branch and a bounds check each, so the fewer and wider the better, and the per-invocation work is paid
// once per four elements. Four float32 elements go as one uvec4: a standalone 64 MiB copy on lavapipe
// moved 8.4-8.8 GB/s as uvec4, 6.0-6.3 as u64vec2 and 5.7 as four floats, and the MLP's Adam step took
// 1.23 ms with uvec4 blocks against 1.44 with u64vec2 ones.
//
// The including shader has included typed_operands.glsl and declares its operands with DECLARE_OPERAND.
#ifndef EMBER_BLOCKS_GLSL
#define EMBER_BLOCKS_GLSL

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

// DEFINE_LOAD4 and DEFINE_STORE4 name their conversions apart, so that one operand may have both.

// The 64- and 128-bit views of binding BINDING that whole blocks move through (DECLARE_OPERAND has the
// 32-bit one, NAME_32).
#define DECLARE_BLOCK_VIEWS(BINDING, NAME, QUALIFIER)                                                  \
  layout(set = 0, binding = BINDING) QUALIFIER buffer NAME##_block_w64 { uint64_t NAME##_w64[]; };     \
  layout(set = 0, binding = BINDING) QUALIFIER buffer NAME##_block_v128 { uvec4 NAME##_v128[]; };

// compute4_t NAME_load4(uint block): elements 4 block .. 4 block + 3 of NAME, whose dtype is DT, in a
// window that starts at element 0. The conversions are typed_bits.glsl's, those of DEFINE_LOAD.
#define DEFINE_LOAD4(NAME, DT)                                                                         \
  DEFINE_BIT_CONVERSIONS(NAME##_load_element, DT)                                                      \
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
      const uvec4 w = NAME##_v128[block];                                                              \
      b0 = uvec2(w.x, 0u);                                                                             \
      b1 = uvec2(w.y, 0u);                                                                             \
      b2 = uvec2(w.z, 0u);                                                                             \
      b3 = uvec2(w.w, 0u);                                                                             \
    } else {                                                                                           \
      const uvec4 w0 = NAME##_v128[2u * block], w1 = NAME##_v128[2u * block + 1u];                     \
      b0 = w0.xy;                                                                                      \
      b1 = w0.zw;                                                                                      \
      b2 = w1.xy;                                                                                      \
      b3 = w1.zw;                                                                                      \
    }                                                                                                  \
    return compute4_t(NAME##_load_element_from_bits(b0), NAME##_load_element_from_bits(b1),            \
                      NAME##_load_element_from_bits(b2), NAME##_load_element_from_bits(b3));           \
  }

// void NAME_store4(uint block, compute4_t v): the store of DEFINE_LOAD4's block.
#define DEFINE_STORE4(NAME, DT)                                                                        \
  DEFINE_BIT_CONVERSIONS(NAME##_store_element, DT)                                                     \
  void NAME##_store4(uint block, compute4_t v) {                                                       \
    const uvec2 b0 = NAME##_store_element_to_bits(v.x), b1 = NAME##_store_element_to_bits(v.y);        \
    const uvec2 b2 = NAME##_store_element_to_bits(v.z), b3 = NAME##_store_element_to_bits(v.w);        \
    if (DTYPE_BITS(DT) == 8u) {                                                                        \
      NAME##_32[block] = b0.x | (b1.x << 8) | (b2.x << 16) | (b3.x << 24);                             \
    } else if (DTYPE_BITS(DT) == 16u) {                                                                \
      NAME##_w64[block] = pack64(uvec2(b0.x | (b1.x << 16), b2.x | (b3.x << 16)));                     \
    } else if (DTYPE_BITS(DT) == 32u) {                                                                \
      NAME##_v128[block] = uvec4(b0.x, b1.x, b2.x, b3.x);                                              \
    } else {                                                                                           \
      NAME##_v128[2u * block] = uvec4(b0, b1);                                                         \
      NAME##_v128[2u * block + 1u] = uvec4(b2, b3);                                                    \
    }                                                                                                  \
  }

#endif
