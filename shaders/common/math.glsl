// Math functions on compute_t (see typed_operands.glsl), named m_<function>: exp, exp2, log, log2, log10,
// log1p, expm1, sin, cos, tan, asin, acos, atan, atan2(y, x), sinh, cosh, tanh, pow(x, y), erf, erfc,
// erfinv. GLSL has transcendental functions for float only and lacks erf, log1p and expm1 altogether;
// math_f32.glsl and math_f64.glsl fill both gaps so that shaders are written once for every float
// compute class. Integer modules get only the NaN-aware helpers below, where NaN never occurs.
#ifndef EMBER_MATH_GLSL
#define EMBER_MATH_GLSL

#include "typed_operands.glsl"

// Defines T NAME(const T table[N], int i): entry i of a constant table where i differs between lanes, by
// selects over every entry. llvmpipe reads a constant array at such an index from memory, lane by lane:
// erf took 20 times its present time so, and atan 4.5 times (docs/PERFORMANCE.md).
#define DEFINE_LANE_ENTRY(NAME, T, N)                                  \
  T NAME(const T table[N], int i) {                                    \
    T value = table[0];                                                \
    for (int k = 1; k < N; ++k) value = i == k ? table[k] : value;     \
    return value;                                                      \
  }

#if defined(COMPUTE_F64)
#include "math_f64.glsl"
#elif COMPUTE_IS_FLOAT
#include "math_f32.glsl"
#endif

#if COMPUTE_IS_FLOAT
bool m_isnan(compute_t x) { return isnan(x); }
bool m_isinf(compute_t x) { return isinf(x); }
#else
bool m_isnan(compute_t x) { return false; }
bool m_isinf(compute_t x) { return false; }
#endif

// The larger and smaller operand, or a NaN operand, as torch.maximum, torch.amax and torch.clamp answer;
// GLSL's max and min may return the other operand (llvmpipe's do).
compute_t nan_max(compute_t a, compute_t b) { return m_isnan(a) ? a : (m_isnan(b) ? b : max(a, b)); }
compute_t nan_min(compute_t a, compute_t b) { return m_isnan(a) ? a : (m_isnan(b) ? b : min(a, b)); }

#if COMPUTE_IS_FLOAT
// erfinv(x): Winitzki's closed form (relative error about 2e-3) refined by Halley steps on
// f(g) = erf(g) - |x|, written as (1 - |x|) - erfc(g) above 1/2 so that the residual keeps its digits
// near 1. Each step triples the correct digits.
compute_t m_erfinv(compute_t x) {
  if (mc_isnan(x)) return x;
  const compute_t a = abs(x);
  if (a > compute_t(1)) return mc_nan();
  if (a == compute_t(1)) return mc_copysign(mc_inf(), x);
  if (a < MC_ERFINV_LINEAR) return x * MC_SQRT_PI_OVER_TWO;
  const compute_t one_minus = compute_t(1) - a;
  const compute_t l = m_log(one_minus * (compute_t(1) + a));
  const compute_t t = compute_t(4.3307467508) + compute_t(0.5) * l;  // 2 / (pi 0.147) + l / 2
  compute_t g = sqrt(sqrt(t * t - l / compute_t(0.147)) - t);
  for (int step = 0; step < MC_ERFINV_STEPS; ++step) {
    const compute_t f = a <= compute_t(0.5) ? m_erf(g) - a : one_minus - m_erfc(g);
    const compute_t u = f / (MC_TWO_OVER_SQRT_PI * m_exp(-g * g));
    g -= u / (compute_t(1) + g * u);
  }
  return mc_copysign(g, x);
}
#endif

#endif
