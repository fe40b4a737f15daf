// The elementwise ops on compute_t, one function per op of runtime/kernels/{unary,binary,ternary}_ops.def,
// named after the op: unary_<name>(x, p0, p1, p2), binary_<name>(a, b, param) and
// ternary_<name>(a, b, c, value). The dispatchers at the end switch over the generated op lists, so an op
// without its function fails to compile. Float-only ops are defined for floating compute classes only,
// integral-only ops for integral ones. Bool results are 1 or 0 and become bool when stored.
#ifndef EMBER_ELEMENTWISE_FUNCTIONS_GLSL
#define EMBER_ELEMENTWISE_FUNCTIONS_GLSL

#include "math.glsl"
#include "activations.glsl"
#include "unary_ops.glsl"
#include "binary_ops.glsl"
#include "ternary_ops.glsl"

// NaN counts as true, as bool(nan) does in PyTorch.
bool truthy(compute_t x) { return !(x == compute_t(0)); }
compute_t from_bool(bool b) { return b ? compute_t(1) : compute_t(0); }

#if COMPUTE_IS_FLOAT
bool sign_bit(compute_t x) {
#if defined(COMPUTE_F64)
  return (unpackDouble2x32(x).y >> 31) != 0u;
#else
  return (floatBitsToUint(x) >> 31) != 0u;
#endif
}
// C's fmod, exact as C's is: the result has a's sign. a - b * trunc(a / b) was NaN for an infinite b and
// off by the quotient's rounding once |a / b| passed the mantissa. Instead, long division in binary:
// subtract from |a| each |b| * 2^k, largest first, that fits. Each subtraction is exact (Sterbenz: the
// remainder r and s = |b| * 2^k satisfy s <= r < 2s), and so is halving s while it is at least |b|.
// At most twice the operands' exponent difference steps (about 560 for float32, 4,200 for float64).
compute_t c_fmod(compute_t a, compute_t b) {
  if (m_isnan(a) || m_isnan(b) || m_isinf(a) || b == compute_t(0)) return mc_nan();
  if (m_isinf(b)) return a;
  const compute_t divisor = abs(b);
  compute_t r = abs(a);
  if (r < divisor) return a;
  compute_t s = divisor;
  while (s * compute_t(2) <= r) s *= compute_t(2);  // an overflow to infinity ends it too
  for (; s >= divisor; s *= compute_t(0.5)) {
    if (r >= s) r -= s;
  }
  return sign_bit(a) ? -r : r;
}
compute_t sigmoid(compute_t x) { return compute_t(1) / (compute_t(1) + m_exp(-x)); }
#endif

// Integer division and remainder with C's truncation, defined for a zero divisor (which PyTorch rejects
// on the host for scalars): the quotient is 0 and the remainder a.
compute_t int_div(compute_t a, compute_t b) { return b == compute_t(0) ? compute_t(0) : a / b; }
compute_t int_rem(compute_t a, compute_t b) { return a - int_div(a, b) * b; }

// ---- unary ----
#define UNARY(name) compute_t unary_##name(compute_t x, compute_t p0, compute_t p1, compute_t p2)

UNARY(cast) { return x; }
UNARY(neg) { return -x; }
UNARY(abs) { return abs(x); }
UNARY(sign) { return from_bool(x > compute_t(0)) - from_bool(x < compute_t(0)); }
UNARY(square) { return x * x; }
// NVIDIA's compiler turns the plain select into max(x, 0), which drops NaN; the test keeps it.
UNARY(relu) { return relu(x); }
UNARY(isnan) { return from_bool(m_isnan(x)); }
UNARY(isinf) { return from_bool(m_isinf(x)); }
UNARY(isposinf) { return from_bool(m_isinf(x) && x > compute_t(0)); }
UNARY(isneginf) { return from_bool(m_isinf(x) && x < compute_t(0)); }
UNARY(isfinite) { return from_bool(!m_isinf(x) && !m_isnan(x)); }
UNARY(logical_not) { return from_bool(!truthy(x)); }
// p0 = min, p1 = max; a NaN x stays NaN. Bounds are never NaN here: tensor/clamp.cpp settles those.
UNARY(clamp) { return m_isnan(x) ? x : min(max(x, p0), p1); }
UNARY(clamp_min) { return m_isnan(x) ? x : max(x, p0); }
UNARY(clamp_max) { return m_isnan(x) ? x : min(x, p0); }
// p0 = threshold, p1 = value.
UNARY(threshold) { return x <= p0 ? p1 : x; }

#if COMPUTE_IS_FLOAT
UNARY(reciprocal) { return compute_t(1) / x; }
UNARY(exp) { return m_exp(x); }
UNARY(exp2) { return m_exp2(x); }
UNARY(log) { return m_log(x); }
UNARY(log2) { return m_log2(x); }
UNARY(log10) { return m_log10(x); }
UNARY(log1p) { return m_log1p(x); }
UNARY(expm1) { return m_expm1(x); }
UNARY(sqrt) { return sqrt(x); }
UNARY(rsqrt) { return compute_t(1) / sqrt(x); }
UNARY(sin) { return m_sin(x); }
UNARY(cos) { return m_cos(x); }
UNARY(tan) { return m_tan(x); }
UNARY(asin) { return m_asin(x); }
UNARY(acos) { return m_acos(x); }
UNARY(atan) { return m_atan(x); }
UNARY(sinh) { return m_sinh(x); }
UNARY(cosh) { return m_cosh(x); }
UNARY(tanh) { return m_tanh(x); }
UNARY(sigmoid) { return sigmoid(x); }
UNARY(gelu) { return gelu_erf(x); }
UNARY(gelu_tanh) { return gelu_tanh_approximation(x); }
UNARY(silu) { return x * sigmoid(x); }
UNARY(erf) { return m_erf(x); }
UNARY(erfc) { return m_erfc(x); }
UNARY(floor) { return floor(x); }
UNARY(ceil) { return ceil(x); }
UNARY(round) { return roundEven(x); }
UNARY(trunc) { return trunc(x); }
UNARY(frac) { return x - trunc(x); }
// p0 replaces NaN, p1 +inf, p2 -inf.
UNARY(nan_to_num) { return m_isnan(x) ? p0 : (m_isinf(x) ? (x > compute_t(0) ? p1 : p2) : x); }
// p0 = the negative slope.
UNARY(leaky_relu) { return x > compute_t(0) ? x : x * p0; }
// p0 = alpha, p1 = scale, p2 = input_scale: PyTorch's elu kernel, which selu and celu call too.
UNARY(elu) { return x <= compute_t(0) ? m_expm1(x * p2) * (p0 * p1) : x * p1; }
// Comparisons rather than min and max, whose result for NaN GLSL leaves undefined: NaN stays NaN.
compute_t clamp_0_6(compute_t t) {
  return t < compute_t(0) ? compute_t(0) : (t > compute_t(6) ? compute_t(6) : t);
}
UNARY(hardsigmoid) { return clamp_0_6(x + compute_t(3)) / compute_t(6); }
UNARY(hardswish) { return x * clamp_0_6(x + compute_t(3)) / compute_t(6); }
// p0 = lambd. Softshrink sends NaN to 0, as PyTorch 1.13's kernel does.
UNARY(hardshrink) { return (x >= -p0 && x <= p0) ? compute_t(0) : x; }
UNARY(softshrink) { return x > p0 ? x - p0 : (x < -p0 ? x + p0 : compute_t(0)); }
// p0 = beta, p1 = threshold: linear where beta x exceeds it.
UNARY(softplus) { return x * p0 > p1 ? x : m_log1p(m_exp(x * p0)) / p0; }
// log(sigmoid(x)) without overflow: min(x, 0) - log1p(exp(-|x|)).
UNARY(log_sigmoid) { return (x < compute_t(0) ? x : compute_t(0)) - m_log1p(m_exp(-abs(x))); }
UNARY(mish) { return x * m_tanh(m_log1p(m_exp(x))); }
// Derivatives, which plain backward multiplies the incoming gradient by. p0..p2 as elu's.
UNARY(elu_grad) { return x <= compute_t(0) ? (p0 * p1 * p2) * m_exp(x * p2) : p1; }
// p0 = beta, p1 = threshold.
UNARY(softplus_grad) { return x * p0 > p1 ? compute_t(1) : sigmoid(x * p0); }
#else
UNARY(bitwise_not) { return ~x; }
#endif

#undef UNARY

// ---- binary ----
#define BINARY(name) compute_t binary_##name(compute_t a, compute_t b, compute_t param)

#if !COMPUTE_IS_FLOAT
// Integer power by squaring; negative exponents give 0 except for bases 1 and -1, as PyTorch.
compute_t int_pow(compute_t base, compute_t exponent) {
  if (exponent < compute_t(0)) {
    if (base == compute_t(1)) return compute_t(1);
    if (base == compute_t(-1)) return (exponent & compute_t(1)) != compute_t(0) ? compute_t(-1) : compute_t(1);
    return compute_t(0);
  }
  compute_t result = compute_t(1);
  while (exponent > compute_t(0)) {
    if ((exponent & compute_t(1)) != compute_t(0)) result *= base;
    base *= base;
    exponent >>= compute_t(1);
  }
  return result;
}
#endif

// param = alpha.
BINARY(add) { return a + param * b; }
BINARY(sub) { return a - param * b; }
BINARY(mul) { return a * b; }
BINARY(maximum) { return nan_max(a, b); }
BINARY(minimum) { return nan_min(a, b); }
BINARY(eq) { return from_bool(a == b); }
BINARY(ne) { return from_bool(!(a == b)); }
BINARY(lt) { return from_bool(a < b); }
BINARY(le) { return from_bool(a <= b); }
BINARY(gt) { return from_bool(a > b); }
BINARY(ge) { return from_bool(a >= b); }
BINARY(logical_and) { return from_bool(truthy(a) && truthy(b)); }
BINARY(logical_or) { return from_bool(truthy(a) || truthy(b)); }
BINARY(logical_xor) { return from_bool(truthy(a) != truthy(b)); }

#if COMPUTE_IS_FLOAT
BINARY(div) { return m_div(a, b); }
BINARY(div_trunc) { return trunc(m_div(a, b)); }
// PyTorch's floor division for floats: exact for representable quotients near integers.
BINARY(floor_divide) {
  if (b == compute_t(0)) return a / b;
  const compute_t mod = c_fmod(a, b);
  compute_t div = m_div(a - mod, b);
  if (mod != compute_t(0) && (b < compute_t(0)) != (mod < compute_t(0))) div -= compute_t(1);
  if (div == compute_t(0)) return sign_bit(a / b) ? -compute_t(0) : compute_t(0);
  compute_t floored = floor(div);
  if (div - floored > compute_t(0.5)) floored += compute_t(1);
  return floored;
}
BINARY(remainder) {
  compute_t mod = c_fmod(a, b);
  if (mod != compute_t(0) && (b < compute_t(0)) != (mod < compute_t(0))) mod += b;
  return mod;
}
BINARY(fmod) { return c_fmod(a, b); }
BINARY(pow) { return m_pow(a, b); }
BINARY(atan2) { return m_atan2(a, b); }
BINARY(hypot) { return sqrt(a * a + b * b); }
BINARY(copysign) { return sign_bit(b) ? -abs(a) : abs(a); }
BINARY(tanh_backward) { return a * (compute_t(1) - b * b); }
BINARY(sigmoid_backward) { return a * b * (compute_t(1) - b); }
// param = threshold; NaN keeps the gradient.
BINARY(threshold_backward) { return b <= param ? compute_t(0) : a; }
// Activation gradients in one pass: a = the incoming gradient, b = the input. PyTorch's selections
// (a gradient set to 0, not multiplied by 0) are kept, so a NaN gradient stays NaN only where PyTorch's does.
// param = the negative slope.
BINARY(leaky_relu_backward) { return b > compute_t(0) ? a : a * param; }
// param = lambd.
BINARY(shrink_backward) { return (b >= -param && b <= param) ? compute_t(0) : a; }
BINARY(hardsigmoid_backward) { return (b > compute_t(-3) && b < compute_t(3)) ? a / compute_t(6) : compute_t(0); }
BINARY(hardswish_backward) {
  return b < compute_t(-3) ? compute_t(0) : (b <= compute_t(3) ? a * (b / compute_t(3) + compute_t(0.5)) : a);
}
BINARY(log_sigmoid_backward) { return a * sigmoid(-b); }
BINARY(mish_backward) {
  const compute_t t = m_tanh(m_log1p(m_exp(b)));
  return a * (t + b * sigmoid(b) * (compute_t(1) - t * t));
}
BINARY(silu_backward) {
  const compute_t s = sigmoid(b);
  return a * s * (compute_t(1) + b * (compute_t(1) - s));
}
// Phi(b) + b phi(b), Phi and phi the standard normal cdf and density.
BINARY(gelu_backward) {
  const compute_t cdf = compute_t(0.5) * (compute_t(1) + m_erf(b * compute_t(0.70710678118654752440)));
  const compute_t pdf = m_exp(compute_t(-0.5) * b * b) * compute_t(0.39894228040143267794);
  return a * (cdf + b * pdf);
}
// With u = k (b + c b^3): 0.5 (1 + tanh u) + 0.5 b (1 - tanh^2 u) k (1 + 3 c b^2).
BINARY(gelu_tanh_backward) {
  const compute_t k = compute_t(0.79788456080286535588), c = compute_t(0.044715);
  const compute_t t = m_tanh(k * (b + c * b * b * b));
  const compute_t du = k * (compute_t(1) + compute_t(3) * c * b * b);
  return a * (compute_t(0.5) * (compute_t(1) + t) + compute_t(0.5) * b * (compute_t(1) - t * t) * du);
}
// b = the slope, broadcast over a's channels.
BINARY(prelu) { return a > compute_t(0) ? a : b * a; }
#else
BINARY(div_trunc) { return int_div(a, b); }
BINARY(floor_divide) {
  compute_t q = int_div(a, b);
  if (b != compute_t(0) && int_rem(a, b) != compute_t(0) && ((a < compute_t(0)) != (b < compute_t(0)))) {
    q -= compute_t(1);
  }
  return q;
}
BINARY(remainder) {
  compute_t r = int_rem(a, b);
  if (r != compute_t(0) && ((r < compute_t(0)) != (b < compute_t(0)))) r += b;
  return r;
}
BINARY(fmod) { return int_rem(a, b); }
BINARY(pow) { return int_pow(a, b); }
BINARY(bitwise_and) { return a & b; }
BINARY(bitwise_or) { return a | b; }
BINARY(bitwise_xor) { return a ^ b; }
// A shift by a negative amount or by the width or more gives 0 (left) or the sign (right), as PyTorch's.
BINARY(bitwise_left_shift) {
  return (b < compute_t(0) || b >= compute_t(COMPUTE_BITS)) ? compute_t(0) : a << b;
}
BINARY(bitwise_right_shift) {
  return (b < compute_t(0) || b >= compute_t(COMPUTE_BITS)) ? (a < compute_t(0) ? compute_t(-1) : compute_t(0))
                                                             : a >> b;
}
#endif

#undef BINARY

// ---- ternary ----
#define TERNARY(name) compute_t ternary_##name(compute_t a, compute_t b, compute_t c, compute_t value)

TERNARY(where) { return truthy(a) ? b : c; }
TERNARY(addcmul) { return a + value * b * c; }
TERNARY(clamp) { return nan_min(nan_max(a, b), c); }
#if COMPUTE_IS_FLOAT
// PyTorch's form: exact at both ends.
TERNARY(lerp) { return abs(c) < compute_t(0.5) ? a + c * (b - a) : b - (b - a) * (compute_t(1) - c); }
TERNARY(addcdiv) { return a + value * m_div(b, c); }
#endif

#undef TERNARY

// ---- dispatch over the op lists ----
// Ops outside a compute class's domain have no case there: the launchers never ask for them.
#if COMPUTE_IS_FLOAT
#define EMBER_DOMAIN_LIST(list, X) list##_LIST_ANY(X) list##_LIST_FLOATING(X)
#else
#define EMBER_DOMAIN_LIST(list, X) list##_LIST_ANY(X) list##_LIST_INTEGRAL(X)
#endif

#define EMBER_UNARY_CASE(code, name) case code: return unary_##name(x, p0, p1, p2);
compute_t unary_op(int op, compute_t x, compute_t p0, compute_t p1, compute_t p2) {
  switch (op) { EMBER_DOMAIN_LIST(UNARY_OP, EMBER_UNARY_CASE) }
  return x;
}

#define EMBER_BINARY_CASE(code, name) case code: return binary_##name(a, b, param);
compute_t binary_op(int op, compute_t a, compute_t b, compute_t param) {
  switch (op) { EMBER_DOMAIN_LIST(BINARY_OP, EMBER_BINARY_CASE) }
  return a;
}

#define EMBER_TERNARY_CASE(code, name) case code: return ternary_##name(a, b, c, value);
compute_t ternary_op(int op, compute_t a, compute_t b, compute_t c, compute_t value) {
  switch (op) { EMBER_DOMAIN_LIST(TERNARY_OP, EMBER_TERNARY_CASE) }
  return a;
}

#endif
