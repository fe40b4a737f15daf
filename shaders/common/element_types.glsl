// ELEMENT: the storage type for ELEM_BITS-wide elements that are moved without arithmetic (fill, copy),
// so one variant per width serves every dtype of that width. 64-bit elements travel as uvec2, which
// needs no shaderInt64.
#ifndef EMBER_ELEMENT_TYPES_GLSL
#define EMBER_ELEMENT_TYPES_GLSL

#if ELEM_BITS == 8
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#define ELEMENT uint8_t
#define ELEMENT_FROM_BITS(lo, hi) uint8_t(lo)
#elif ELEM_BITS == 16
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#define ELEMENT uint16_t
#define ELEMENT_FROM_BITS(lo, hi) uint16_t(lo)
#elif ELEM_BITS == 32
#define ELEMENT uint
#define ELEMENT_FROM_BITS(lo, hi) (lo)
#elif ELEM_BITS == 64
#define ELEMENT uvec2
#define ELEMENT_FROM_BITS(lo, hi) uvec2(lo, hi)
#else
#error ELEM_BITS must be 8, 16, 32 or 64
#endif

#endif
