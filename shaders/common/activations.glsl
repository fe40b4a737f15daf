// Activations shared by the elementwise kernels and the matmul and convolution epilogues: relu, and on
// float compute classes gelu (exact, with erf) and its tanh approximation, PyTorch's formulas.
#ifndef EMBER_ACTIVATIONS_GLSL
#define EMBER_ACTIVATIONS_GLSL

#include "math.glsl"

// Keeps NaN, as torch.relu does. The isnan test is needed: NVIDIA's compiler turns the plain select
// into max(x, 0), which drops NaN.
compute_t relu(compute_t x) { return m_isnan(x) || x > compute_t(0) ? x : compute_t(0); }

#if COMPUTE_IS_FLOAT
compute_t gelu_erf(compute_t x) {
  return compute_t(0.5) * x * (compute_t(1) + m_erf(x * compute_t(0.70710678118654752440)));
}
compute_t gelu_tanh_approximation(compute_t x) {
  const compute_t inner = compute_t(0.79788456080286535588) * (x + compute_t(0.044715) * x * x * x);
  return compute_t(0.5) * x * (compute_t(1) + m_tanh(inner));
}
#endif

#endif
