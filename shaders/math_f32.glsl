#ifndef EMBER_MATH_F32_GLSL
#define EMBER_MATH_F32_GLSL
float m_exp(float x) { return exp(x); }
float m_exp2(float x) { return exp2(x); }
float m_log(float x) { return log(x); }
float m_log2(float x) { return log2(x); }
float m_log10(float x) { return log(x) * 0.43429448190325182765; }
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
float m_log1p(float x) { return log(1.0 + x); }
float m_expm1(float x) { return exp(x) - 1.0; }
float m_erf(float x) {
  const float t = 1.0 / (1.0 + 0.3275911 * abs(x));
  const float y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t +
                         0.254829592) * t * exp(-x * x);
  return x < 0.0 ? -y : y;
}
float m_erfc(float x) { return 1.0 - m_erf(x); }
float m_erfinv(float x) { return x; }
#endif
