#pragma once
// Typed access to operands whose dtype is known only at run time: the CUDA counterpart of
// shaders/typed_operands.glsl. Kernels are instantiated per compute type only, never per combination of
// operand dtypes: float (float32, float16 and bfloat16 compute in float), double, int32_t (int8, uint8,
// int16, int32 and bool) and int64_t. Each operand is loaded from its own dtype through a switch on its
// dtype code, which is the same for every thread of a launch and so costs no divergence.
//
// Conversions are PyTorch's, applied once when a value is stored: float to integer truncates toward zero
// (through int64, so narrow integers keep the low bits), anything to bool is value != 0 (NaN is true),
// float16 and bfloat16 round to nearest even.
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "runtime/dtype.h"
#include "runtime/scalar.h"

namespace ember::cuda {

// ember::DType's order, as the plain ints kernels take.
enum DTypeCode : int { kF32, kF16, kBF16, kF64, kI8, kU8, kI16, kI32, kI64, kBool };

inline int dtype_code(DType dtype) { return static_cast<int>(dtype); }

__host__ __device__ inline int dtype_bytes(int code) {
  switch (code) {
    case kF64:
    case kI64: return 8;
    case kF32:
    case kI32: return 4;
    case kF16:
    case kBF16:
    case kI16: return 2;
    default: return 1;
  }
}

__host__ __device__ inline float float_from_bits(uint32_t bits) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(bits);
#else
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
#endif
}

__host__ __device__ inline uint32_t bits_from_float(float value) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(value);
#else
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
#endif
}

__host__ __device__ inline double double_from_bits(uint64_t bits) {
#ifdef __CUDA_ARCH__
  return __longlong_as_double(static_cast<long long>(bits));
#else
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
#endif
}

__host__ __device__ inline uint64_t bits_from_double(double value) {
#ifdef __CUDA_ARCH__
  return static_cast<uint64_t>(__double_as_longlong(value));
#else
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
#endif
}

__host__ __device__ inline float half_bits_to_float(uint16_t bits) {
  __half_raw raw;
  raw.x = bits;
  return __half2float(__half(raw));
}

__host__ __device__ inline uint16_t float_to_half_bits(float value) {
  const __half_raw raw = __half_raw(__float2half_rn(value));
  return raw.x;
}

__host__ __device__ inline float bfloat16_bits_to_float(uint16_t bits) {
  return float_from_bits(static_cast<uint32_t>(bits) << 16);
}

// Round to nearest even, as c10::BFloat16 does; NaN stays a quiet NaN.
__host__ __device__ inline uint16_t float_to_bfloat16_bits(float value) {
  const uint32_t bits = bits_from_float(value);
  if (value != value) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

// A compute value as int64, truncating floats toward zero.
template <class T>
__host__ __device__ inline int64_t to_int64(T value) {
  return static_cast<int64_t>(value);
}

// The element whose bits (in the low bytes) are `bits`, as compute type T.
template <class T>
__host__ __device__ inline T decode(int code, uint64_t bits) {
  switch (code) {
    case kF32: return static_cast<T>(float_from_bits(static_cast<uint32_t>(bits)));
    case kF16: return static_cast<T>(half_bits_to_float(static_cast<uint16_t>(bits)));
    case kBF16: return static_cast<T>(bfloat16_bits_to_float(static_cast<uint16_t>(bits)));
    case kF64: return static_cast<T>(double_from_bits(bits));
    case kI8: return static_cast<T>(static_cast<int8_t>(bits));
    case kU8:
    case kBool: return static_cast<T>(static_cast<uint8_t>(bits));
    case kI16: return static_cast<T>(static_cast<int16_t>(bits));
    case kI32: return static_cast<T>(static_cast<int32_t>(bits));
    default: return static_cast<T>(static_cast<int64_t>(bits));
  }
}

// The bits (in the low bytes) of `value` converted to dtype `code`.
template <class T>
__host__ __device__ inline uint64_t encode(int code, T value) {
  switch (code) {
    case kF32: return bits_from_float(static_cast<float>(value));
    case kF16: return float_to_half_bits(static_cast<float>(value));
    case kBF16: return float_to_bfloat16_bits(static_cast<float>(value));
    case kF64: return bits_from_double(static_cast<double>(value));
    case kBool: return value != T(0) ? 1u : 0u;
    // Two's complement: the low bytes of the int64 are the narrower integer, wrapped.
    default: return static_cast<uint64_t>(to_int64(value));
  }
}

__device__ inline uint64_t load_bits(int code, const void* base, int64_t i) {
  switch (dtype_bytes(code)) {
    case 1: return static_cast<const uint8_t*>(base)[i];
    case 2: return static_cast<const uint16_t*>(base)[i];
    case 4: return static_cast<const uint32_t*>(base)[i];
    default: return static_cast<const uint64_t*>(base)[i];
  }
}

__device__ inline void store_bits(int code, void* base, int64_t i, uint64_t bits) {
  switch (dtype_bytes(code)) {
    case 1: static_cast<uint8_t*>(base)[i] = static_cast<uint8_t>(bits); break;
    case 2: static_cast<uint16_t*>(base)[i] = static_cast<uint16_t>(bits); break;
    case 4: static_cast<uint32_t*>(base)[i] = static_cast<uint32_t>(bits); break;
    default: static_cast<uint64_t*>(base)[i] = bits; break;
  }
}

// Element i (counted in elements) of an operand of dtype `code`, as compute type T.
template <class T>
__device__ inline T load_as(int code, const void* base, int64_t i) {
  return decode<T>(code, load_bits(code, base, i));
}

template <class T>
__device__ inline void store_as(int code, void* base, int64_t i, T value) {
  store_bits(code, base, i, encode(code, value));
}

// What an operand of dtype `code` holds after storing `value`: float16 and bfloat16 round.
template <class T>
__host__ __device__ inline T as_stored(int code, T value) {
  if (code == kF16 || code == kBF16) return decode<T>(code, encode(code, value));
  return value;
}

// Calls f with a value of the compute type that kernels use for `compute`.
template <class F>
void with_compute_type(DType compute, F&& f) {
  switch (compute) {
    case DType::Float32:
    case DType::Float16:
    case DType::BFloat16: f(float{}); break;
    case DType::Float64: f(double{}); break;
    case DType::Int64: f(int64_t{}); break;
    default: f(int32_t{}); break;
  }
}

// Calls f with a value of the type that accumulates for `compute` in reductions, scans and combining
// scatters: integers of every width accumulate in int64, as PyTorch's integer sums do.
template <class F>
void with_accumulator_type(DType compute, F&& f) {
  switch (compute) {
    case DType::Float32:
    case DType::Float16:
    case DType::BFloat16: f(float{}); break;
    case DType::Float64: f(double{}); break;
    default: f(int64_t{}); break;
  }
}

// A host scalar in compute type T, converted as Scalar::bits_as converts it for that dtype.
template <class T>
T scalar_as(const Scalar& scalar) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(scalar.to_double());
  } else {
    return static_cast<T>(scalar.to_int64());
  }
}

}  // namespace ember::cuda
