// Conversions between compute_t and the bit pattern of one element, for shaders that update elements
// through atomics on their containing words and so hold elements as bits rather than as buffer entries.
// The conversions are those of DEFINE_LOAD and DEFINE_STORE in typed_operands.glsl. Bits sit in the low
// bits of .x (and .y for 64-bit dtypes); the rest are zero.
#ifndef EMBER_TYPED_BITS_GLSL
#define EMBER_TYPED_BITS_GLSL

#include "typed_operands.glsl"

// Bits of one element of a dtype.
#define DTYPE_BITS(DT)                                              \
  ((DT) == DT_F64 || (DT) == DT_I64 ? 64u                           \
   : (DT) == DT_F32 || (DT) == DT_I32 ? 32u                         \
   : (DT) == DT_F16 || (DT) == DT_BF16 || (DT) == DT_I16 ? 16u : 8u)

// compute_t NAME_from_bits(uvec2 bits) and uvec2 NAME_to_bits(compute_t v) for dtype DT.
#define DEFINE_BIT_CONVERSIONS(NAME, DT)                                                             \
  compute_t NAME##_from_bits(uvec2 b) {                                                             \
    if (DT == DT_F32) return compute_t(uintBitsToFloat(b.x));                                       \
    if (DT == DT_F16) return compute_t(half_bits_to_float(b.x));                                    \
    if (DT == DT_BF16) return compute_t(bfloat16_bits_to_float(b.x));                               \
    if (DT == DT_F64) return compute_t(F64_FROM_BITS(b));                                           \
    if (DT == DT_I8) return from_int32(bitfieldExtract(int(b.x), 0, 8));                            \
    if (DT == DT_U8 || DT == DT_BOOL) return compute_t(b.x);                                        \
    if (DT == DT_I16) return from_int32(bitfieldExtract(int(b.x), 0, 16));                          \
    if (DT == DT_I32) return from_int32(int(b.x));                                                  \
    return compute_t(int64_t(pack64(b)));                                                           \
  }                                                                                                 \
  uvec2 NAME##_to_bits(compute_t v) {                                                               \
    if (DT == DT_F32) return uvec2(floatBitsToUint(float(v)), 0u);                                  \
    if (DT == DT_F16) return uvec2(float_to_half_bits(float(v)), 0u);                               \
    if (DT == DT_BF16) return uvec2(float_to_bfloat16_bits(float(v)), 0u);                          \
    if (DT == DT_F64) return F64_TO_BITS(v);                                                        \
    if (DT == DT_BOOL) return uvec2(v != compute_t(0) ? 1u : 0u, 0u);                               \
    if (DT == DT_I8 || DT == DT_U8) return uvec2(uint(int64_t(v)) & 0xffu, 0u);                     \
    if (DT == DT_I16) return uvec2(uint(int64_t(v)) & 0xffffu, 0u);                                 \
    if (DT == DT_I32) return uvec2(uint(int64_t(v)), 0u);                                           \
    return unpack32(uint64_t(int64_t(v)));                                                          \
  }

#endif
