#version 450
// Test harness for math.glsl: out[i] = FN(x[i]) (or FN(x[i], y[i]) for atan2 and pow) in compute_t,
// over contiguous buffers. tests/math_test.cpp compares the results with LibTorch.
#include "math.glsl"

layout(local_size_x = 256) in;

// The function, in the order of MathFunction in tests/math_test.cpp.
layout(constant_id = 0) const int FN = 0;

layout(push_constant) uniform Params { uint count; } p;

layout(set = 0, binding = 0) writeonly buffer Out { compute_t out_data[]; };
layout(set = 0, binding = 1) readonly buffer X { compute_t x_data[]; };
layout(set = 0, binding = 2) readonly buffer Y { compute_t y_data[]; };

compute_t apply(compute_t x, compute_t y) {
  switch (FN) {
    case 0: return m_exp(x);
    case 1: return m_exp2(x);
    case 2: return m_log(x);
    case 3: return m_log2(x);
    case 4: return m_log10(x);
    case 5: return m_log1p(x);
    case 6: return m_expm1(x);
    case 7: return m_sin(x);
    case 8: return m_cos(x);
    case 9: return m_tan(x);
    case 10: return m_asin(x);
    case 11: return m_acos(x);
    case 12: return m_atan(x);
    case 13: return m_atan2(x, y);
    case 14: return m_sinh(x);
    case 15: return m_cosh(x);
    case 16: return m_tanh(x);
    case 17: return m_pow(x, y);
    case 18: return m_erf(x);
    case 19: return m_erfc(x);
    case 20: return m_erfinv(x);
    default: return x * y;  // the test's probe of how the device treats denormals
  }
}

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i < p.count) out_data[i] = apply(x_data[i], y_data[i]);
}
