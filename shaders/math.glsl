// Math functions on compute_t (see typed_operands.glsl), named m_<function>. GLSL has transcendental
// functions for float only, and lacks erf, log1p and expm1 altogether; this file fills both gaps so
// that shaders are written once for every compute class.
#ifndef EMBER_MATH_GLSL
#define EMBER_MATH_GLSL

#include "typed_operands.glsl"

#if COMPUTE_IS_FLOAT

#if defined(COMPUTE_F64)
// Placeholder: float precision until the float64 library replaces this block.
#define M_UNARY_VIA_FLOAT(NAME, EXPR) \
  double NAME(double x) { float f = float(x); return double(EXPR); }
M_UNARY_VIA_FLOAT(m_exp, exp(f))
M_UNARY_VIA_FLOAT(m_log, log(f))
M_UNARY_VIA_FLOAT(m_sin, sin(f))
M_UNARY_VIA_FLOAT(m_cos, cos(f))
M_UNARY_VIA_FLOAT(m_tan, tan(f))
M_UNARY_VIA_FLOAT(m_asin, asin(f))
M_UNARY_VIA_FLOAT(m_acos, acos(f))
M_UNARY_VIA_FLOAT(m_atan, atan(f))
M_UNARY_VIA_FLOAT(m_sinh, sinh(f))
M_UNARY_VIA_FLOAT(m_cosh, cosh(f))
M_UNARY_VIA_FLOAT(m_tanh, tanh(f))
double m_atan2(double y, double x) { return double(atan(float(y), float(x))); }
double m_pow(double x, double y) { return double(pow(float(x), float(y))); }
double m_log1p(double x) { return m_log(1.0 + x); }
double m_expm1(double x) { return m_exp(x) - 1.0; }
double m_erf(double x) {
  const double t = 1.0 / (1.0 + 0.3275911 * abs(x));
  const double y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t +
                          0.254829592) * t * m_exp(-x * x);
  return x < 0.0 ? -y : y;
}
#else
float m_exp(float x) { return exp(x); }
float m_log(float x) { return log(x); }
float m_sin(float x) { return sin(x); }
float m_cos(float x) { return cos(x); }
float m_tan(float x) { return tan(x); }
float m_asin(float x) { return asin(x); }
float m_acos(float x) { return acos(x); }
float m_atan(float x) { return atan(x); }
float m_sinh(float x) { return sinh(x); }
float m_cosh(float x) { return cosh(x); }
float m_tanh(float x) { return tanh(x); }
float m_atan2(float y, float x) { return atan(y, x); }
float m_pow(float x, float y) { return pow(x, y); }
// Placeholder accuracy until the float library lands: log(1 + x) loses digits for tiny x.
float m_log1p(float x) { return log(1.0 + x); }
float m_expm1(float x) { return exp(x) - 1.0; }
float m_erf(float x) {
  const float t = 1.0 / (1.0 + 0.3275911 * abs(x));
  const float y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t +
                         0.254829592) * t * exp(-x * x);
  return x < 0.0 ? -y : y;
}
#endif

compute_t m_erfc(compute_t x) { return compute_t(1) - m_erf(x); }
compute_t m_exp2(compute_t x) { return m_exp(x * compute_t(0.6931471805599453094)); }
compute_t m_log2(compute_t x) { return m_log(x) * compute_t(1.4426950408889634074); }
compute_t m_log10(compute_t x) { return m_log(x) * compute_t(0.43429448190325182765); }

#endif  // COMPUTE_IS_FLOAT

#endif
