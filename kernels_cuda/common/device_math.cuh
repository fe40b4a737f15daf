#pragma once
// Scalar math shared by the CUDA kernels, on the four compute types (see typed_operands.cuh): overloads
// of the math library for float and double, integer arithmetic that wraps instead of overflowing into
// undefined behaviour, and PyTorch's rules for division, remainder, powers and NaN in maximum/minimum.
// Everything is __host__ __device__ so that it means the same on both sides.
#include <math.h>

#include <cstdint>
#include <type_traits>

namespace ember::cuda {

template <class T>
inline constexpr bool kIsFloat = std::is_floating_point_v<T>;

#define EMBER_MATH_UNARY(name)                                                         \
  __host__ __device__ inline float m_##name(float x) { return ::name##f(x); }        \
  __host__ __device__ inline double m_##name(double x) { return ::name(x); }
EMBER_MATH_UNARY(exp)
EMBER_MATH_UNARY(exp2)
EMBER_MATH_UNARY(log)
EMBER_MATH_UNARY(log2)
EMBER_MATH_UNARY(log10)
EMBER_MATH_UNARY(log1p)
EMBER_MATH_UNARY(expm1)
EMBER_MATH_UNARY(sqrt)
EMBER_MATH_UNARY(sin)
EMBER_MATH_UNARY(cos)
EMBER_MATH_UNARY(tan)
EMBER_MATH_UNARY(asin)
EMBER_MATH_UNARY(acos)
EMBER_MATH_UNARY(atan)
EMBER_MATH_UNARY(sinh)
EMBER_MATH_UNARY(cosh)
EMBER_MATH_UNARY(tanh)
EMBER_MATH_UNARY(erf)
EMBER_MATH_UNARY(erfc)
EMBER_MATH_UNARY(floor)
EMBER_MATH_UNARY(ceil)
EMBER_MATH_UNARY(rint)
EMBER_MATH_UNARY(trunc)
EMBER_MATH_UNARY(fabs)
#undef EMBER_MATH_UNARY

#define EMBER_MATH_BINARY(name)                                                                   \
  __host__ __device__ inline float m_##name(float x, float y) { return ::name##f(x, y); }        \
  __host__ __device__ inline double m_##name(double x, double y) { return ::name(x, y); }
EMBER_MATH_BINARY(pow)
EMBER_MATH_BINARY(atan2)
EMBER_MATH_BINARY(hypot)
EMBER_MATH_BINARY(fmod)
EMBER_MATH_BINARY(copysign)
#undef EMBER_MATH_BINARY

__host__ __device__ inline float m_fma(float x, float y, float z) { return ::fmaf(x, y, z); }
__host__ __device__ inline double m_fma(double x, double y, double z) { return ::fma(x, y, z); }

template <class T>
__host__ __device__ inline bool is_nan(T x) {
  if constexpr (kIsFloat<T>) {
    return x != x;
  } else {
    return false;
  }
}

template <class T>
__host__ __device__ inline T infinity() {
  return static_cast<T>(INFINITY);
}

template <class T>
__host__ __device__ inline T quiet_nan() {
  static_assert(kIsFloat<T>, "only floats have NaN");
  return static_cast<T>(NAN);
}

template <class T>
__host__ __device__ inline bool is_inf(T x) {
  if constexpr (kIsFloat<T>) {
    return x == infinity<T>() || x == -infinity<T>();
  } else {
    return false;
  }
}

// The lowest and highest values of a compute type (infinities for floats).
template <class T>
__host__ __device__ inline T lowest() {
  if constexpr (kIsFloat<T>) {
    return -infinity<T>();
  } else if constexpr (sizeof(T) == 8) {
    return INT64_MIN;
  } else {
    return INT32_MIN;
  }
}

template <class T>
__host__ __device__ inline T highest() {
  if constexpr (kIsFloat<T>) {
    return infinity<T>();
  } else if constexpr (sizeof(T) == 8) {
    return INT64_MAX;
  } else {
    return INT32_MAX;
  }
}

// Integer +, -, * and negation in two's complement: they wrap, as PyTorch's integer tensors do.
template <class T>
__host__ __device__ inline T wrap_add(T a, T b) {
  if constexpr (kIsFloat<T>) {
    return a + b;
  } else {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  }
}

template <class T>
__host__ __device__ inline T wrap_sub(T a, T b) {
  if constexpr (kIsFloat<T>) {
    return a - b;
  } else {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  }
}

template <class T>
__host__ __device__ inline T wrap_mul(T a, T b) {
  if constexpr (kIsFloat<T>) {
    return a * b;
  } else {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  }
}

template <class T>
__host__ __device__ inline T wrap_neg(T a) {
  if constexpr (kIsFloat<T>) {
    return -a;  // -0.0 for 0.0, which 0 - a would not give
  } else {
    return wrap_sub(T(0), a);
  }
}

// torch.maximum / torch.minimum: NaN in either operand gives NaN.
template <class T>
__host__ __device__ inline T maximum(T a, T b) {
  if constexpr (kIsFloat<T>) {
    if (is_nan(a) || is_nan(b)) return quiet_nan<T>();
  }
  return a > b ? a : b;
}

template <class T>
__host__ __device__ inline T minimum(T a, T b) {
  if constexpr (kIsFloat<T>) {
    if (is_nan(a) || is_nan(b)) return quiet_nan<T>();
  }
  return a < b ? a : b;
}

// Integer division and remainder are defined everywhere here: dividing by zero gives 0 (as NumPy does;
// PyTorch's CPU kernels raise and its CUDA kernels return garbage), and the one overflowing quotient,
// lowest / -1, wraps to lowest.
template <class T>
__host__ __device__ inline T div_trunc(T a, T b) {
  if constexpr (kIsFloat<T>) {
    return m_trunc(a / b);
  } else {
    if (b == 0) return 0;
    if (b == -1) return wrap_neg(a);
    return a / b;
  }
}

// torch.floor_divide. For floats this is PyTorch's div_floor_floating: the quotient of a - fmod(a, b),
// corrected toward -inf, and rounded so that it is exact where the true quotient is an integer.
template <class T>
__host__ __device__ inline T div_floor(T a, T b) {
  if constexpr (kIsFloat<T>) {
    if (b == T(0)) return a / b;
    const T mod = m_fmod(a, b);
    T div = (a - mod) / b;
    if (mod != T(0) && (b < T(0)) != (mod < T(0))) div -= T(1);
    if (div == T(0)) return m_copysign(T(0), a / b);
    T floored = m_floor(div);
    if (div - floored > T(0.5)) floored += T(1);
    return floored;
  } else {
    if (b == 0) return 0;
    if (b == -1) return wrap_neg(a);
    T quotient = a / b;
    const T rest = a % b;
    if (rest != 0 && ((rest < 0) != (b < 0))) quotient -= 1;
    return quotient;
  }
}

// Python's modulus (torch.remainder): the result takes b's sign.
template <class T>
__host__ __device__ inline T remainder(T a, T b) {
  if constexpr (kIsFloat<T>) {
    T mod = m_fmod(a, b);
    if (mod != T(0) && (b < T(0)) != (mod < T(0))) mod += b;
    return mod;
  } else {
    if (b == 0 || b == -1) return 0;
    T rest = a % b;
    if (rest != 0 && ((rest < 0) != (b < 0))) rest += b;
    return rest;
  }
}

// C's fmod (torch.fmod): the result takes a's sign.
template <class T>
__host__ __device__ inline T fmod_value(T a, T b) {
  if constexpr (kIsFloat<T>) {
    return m_fmod(a, b);
  } else {
    if (b == 0 || b == -1) return 0;
    return a % b;
  }
}

// torch.pow; for integers, by squaring, with PyTorch's answers for negative exponents.
template <class T>
__host__ __device__ inline T pow_value(T base, T exponent) {
  if constexpr (kIsFloat<T>) {
    // CUDA's pow is within 2 ulp, not exact where the power is representable: pow(3.0, 1.0) gives
    // 2.9999999999999996, which an integer logspace truncates to 2. A positive integer exponent is taken
    // by squaring where every product is exact (fma leaves no remainder, nothing overflows), which gives
    // the power itself, as PyTorch's CPU pow does; the library's pow takes every other case.
    if (exponent >= T(1) && exponent <= T(2048) && m_trunc(exponent) == exponent) {
      unsigned int k = static_cast<unsigned int>(exponent);
      T result = T(1), square = base;
      bool exact = true;
      for (;;) {
        if (k & 1u) {
          const T product = result * square;
          exact = exact && m_fma(result, square, -product) == T(0) && product - product == T(0);
          result = product;
        }
        k >>= 1u;
        if (k == 0u || !exact) break;
        const T next = square * square;
        exact = exact && m_fma(square, square, -next) == T(0) && next - next == T(0);
        square = next;
      }
      if (exact) return result;
    }
    return m_pow(base, exponent);
  } else {
    if (exponent < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exponent & 1) ? -1 : 1;
      return 0;
    }
    T result = 1;
    while (exponent != 0) {
      if (exponent & 1) result = wrap_mul(result, base);
      exponent >>= 1;
      base = wrap_mul(base, base);
    }
    return result;
  }
}

// log(exp(a) + exp(b)) without overflow, as PyTorch's _log_add_exp_helper: equal infinities stay.
template <class T>
__host__ __device__ inline T log_add_exp(T a, T b) {
  static_assert(kIsFloat<T>, "log_add_exp is for floats");
  if (is_nan(a) || is_nan(b)) return quiet_nan<T>();
  const T low = a < b ? a : b;
  const T high = a < b ? b : a;
  if (low == high && is_inf(low)) return low;
  return high + m_log1p(m_exp(low - high));
}

}  // namespace ember::cuda
