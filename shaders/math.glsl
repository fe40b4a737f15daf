// Math functions on compute_t (see typed_operands.glsl), named m_<function>: exp, exp2, log, log2, log10,
// log1p, expm1, sin, cos, tan, asin, acos, atan, atan2(y, x), sinh, cosh, tanh, pow(x, y), erf, erfc,
// erfinv. GLSL has transcendental functions for float only and lacks erf, log1p and expm1 altogether;
// math_f32.glsl and math_f64.glsl fill both gaps so that shaders are written once for every float
// compute class. Integer modules get nothing from here.
#ifndef EMBER_MATH_GLSL
#define EMBER_MATH_GLSL

#include "typed_operands.glsl"

#if defined(COMPUTE_F64)
#include "math_f64.glsl"
#elif COMPUTE_IS_FLOAT
#include "math_f32.glsl"
#endif

#endif
