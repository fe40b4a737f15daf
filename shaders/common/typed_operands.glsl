// Typed access to operands whose dtype is a specialization constant, so that one SPIR-V module serves
// every combination of operand dtypes: each pipeline is specialised for its dtypes and the driver folds
// the branches away. Arithmetic happens in compute_t, chosen per module by one of COMPUTE_F32 (also for
// float16 and bfloat16), COMPUTE_F64, COMPUTE_I32 (int8 to int32 and bool) or COMPUTE_I64.
//
// Every module here uses 8- and 16-bit storage and int64; only COMPUTE_F64 modules need float64, so a
// device without shaderFloat64 still runs the others.
#ifndef EMBER_TYPED_OPERANDS_GLSL
#define EMBER_TYPED_OPERANDS_GLSL

#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "texels.glsl"

// dtype codes, in the order of ember::DType.
#define DT_F32 0
#define DT_F16 1
#define DT_BF16 2
#define DT_F64 3
#define DT_I8 4
#define DT_U8 5
#define DT_I16 6
#define DT_I32 7
#define DT_I64 8
#define DT_BOOL 9

#if defined(COMPUTE_F64)
#define compute_t double
#define COMPUTE_IS_FLOAT 1
#elif defined(COMPUTE_I32)
#define compute_t int
#define COMPUTE_BITS 32
#define COMPUTE_IS_FLOAT 0
#elif defined(COMPUTE_I64)
#define compute_t int64_t
#define COMPUTE_BITS 64
#define COMPUTE_IS_FLOAT 0
#else
#ifndef COMPUTE_F32
#define COMPUTE_F32 1
#endif
#define compute_t float
#define COMPUTE_IS_FLOAT 1
#endif

#if defined(COMPUTE_F64)
#define F64_FROM_BITS(bits) packDouble2x32(bits)
#define F64_TO_BITS(value) unpackDouble2x32(double(value))
#else
// Without float64 in the module no operand is float64: tensor/ computes in float64 whenever one is.
#define F64_FROM_BITS(bits) 0.0
#define F64_TO_BITS(value) uvec2(0)
#endif

// A signed 32-bit value (int8 to int32, already sign-extended to 32 bits) in compute_t. For int64 the
// high word is built from the sign bit: lavapipe (Mesa 22.3) miscompiled int64_t(int(bits)) where the
// op then tested the value's sign or size (int64 ** int32 -2 gave 1, 7 % int32 -2 gave 1, 3 << int32 2
// gave 0), while sums and comparisons of the same loads were right.
compute_t from_int32(int value) {
#if defined(COMPUTE_I64)
  return int64_t(pack64(uvec2(uint(value), uint(value >> 31))));
#else
  return compute_t(value);
#endif
}

float half_bits_to_float(uint bits) { return unpackHalf2x16(bits).x; }
uint float_to_half_bits(float value) { return packHalf2x16(vec2(value, 0.0)) & 0xffffu; }
float bfloat16_bits_to_float(uint bits) { return uintBitsToFloat(bits << 16); }
// Round to nearest even, as PyTorch's c10::BFloat16 does; NaN stays a quiet NaN.
uint float_to_bfloat16_bits(float value) {
  const uint bits = floatBitsToUint(value);
  if (isnan(value)) return (bits >> 16) | 0x40u;
  return (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
}

// The value of float16 bits, decoded with integer arithmetic. NVIDIA's compiler appears to take
// unpackHalf2x16(packHalf2x16(v)) for v itself: a float16 uniform draw reached its high bound there.
float half_value(uint bits) {
  const uint sign = (bits & 0x8000u) << 16, exponent = (bits >> 10) & 0x1fu, mantissa = bits & 0x3ffu;
  if (exponent == 0u) return uintBitsToFloat(sign | floatBitsToUint(float(mantissa) * 5.9604644775390625e-8));
  if (exponent == 31u) return uintBitsToFloat(sign | 0x7f800000u | (mantissa << 13));
  return uintBitsToFloat(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

// What an operand of dtype `dt` holds after storing v: float16 and bfloat16 round, as PyTorch rounds the
// result of each operation on them.
compute_t as_stored(uint dt, compute_t v) {
#if defined(COMPUTE_F32)
  if (dt == DT_F16) return half_value(float_to_half_bits(v));
  if (dt == DT_BF16) return bfloat16_bits_to_float(float_to_bfloat16_bits(v));
#endif
  return v;
}

// A scalar argument that travels as two 32-bit words holding the compute type's bits.
compute_t scalar_from_bits(uvec2 bits) {
#if defined(COMPUTE_F64)
  return packDouble2x32(bits);
#elif defined(COMPUTE_I32)
  return int(bits.x);
#elif defined(COMPUTE_I64)
  return int64_t(pack64(bits));
#else
  return uintBitsToFloat(bits.x);
#endif
}

// One binding seen at the four element widths. QUALIFIER is readonly, writeonly or empty.
#define DECLARE_OPERAND(BINDING, NAME, QUALIFIER)                                                       \
  layout(set = 0, binding = BINDING) QUALIFIER buffer NAME##_block8 { uint8_t NAME##_8[]; };           \
  layout(set = 0, binding = BINDING) QUALIFIER buffer NAME##_block16 { uint16_t NAME##_16[]; };        \
  layout(set = 0, binding = BINDING) QUALIFIER buffer NAME##_block32 { uint NAME##_32[]; };            \
  layout(set = 0, binding = BINDING) QUALIFIER buffer NAME##_block64 { uvec2 NAME##_64[]; };

// compute_t NAME_load(uint element): reads element `element` of NAME, whose dtype is DT.
#define DEFINE_LOAD(NAME, DT)                                                                           \
  compute_t NAME##_load(uint i) {                                                                      \
    if (DT == DT_F32) return compute_t(uintBitsToFloat(NAME##_32[i]));                                 \
    if (DT == DT_F16) return compute_t(half_bits_to_float(uint(NAME##_16[i])));                        \
    if (DT == DT_BF16) return compute_t(bfloat16_bits_to_float(uint(NAME##_16[i])));                   \
    if (DT == DT_F64) return compute_t(F64_FROM_BITS(NAME##_64[i]));                                   \
    if (DT == DT_I8) return from_int32(int(int8_t(NAME##_8[i])));                                      \
    if (DT == DT_U8 || DT == DT_BOOL) return compute_t(uint(NAME##_8[i]));                             \
    if (DT == DT_I16) return from_int32(int(int16_t(NAME##_16[i])));                                   \
    if (DT == DT_I32) return from_int32(int(NAME##_32[i]));                                            \
    return compute_t(int64_t(pack64(NAME##_64[i])));                                                   \
  }

// void NAME_store(uint element, compute_t value): converts once, as PyTorch's casts do (float to
// integer truncates toward zero, anything to bool is value != 0, so NaN is true).
#define DEFINE_STORE(NAME, DT)                                                                          \
  void NAME##_store(uint i, compute_t v) {                                                             \
    if (DT == DT_F32) NAME##_32[i] = floatBitsToUint(float(v));                                        \
    else if (DT == DT_F16) NAME##_16[i] = uint16_t(float_to_half_bits(float(v)));                      \
    else if (DT == DT_BF16) NAME##_16[i] = uint16_t(float_to_bfloat16_bits(float(v)));                 \
    else if (DT == DT_F64) NAME##_64[i] = F64_TO_BITS(v);                                              \
    else if (DT == DT_BOOL) NAME##_8[i] = uint8_t(v != compute_t(0) ? 1u : 0u);                        \
    else if (DT == DT_I8 || DT == DT_U8) NAME##_8[i] = uint8_t(int64_t(v));                            \
    else if (DT == DT_I16) NAME##_16[i] = uint16_t(int64_t(v));                                        \
    else if (DT == DT_I32) NAME##_32[i] = uint(int64_t(v));                                            \
    else NAME##_64[i] = unpack32(uint64_t(int64_t(v)));                                                \
  }

#endif
