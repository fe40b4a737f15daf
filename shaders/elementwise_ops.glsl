// The elementwise ops on compute_t. Op codes follow the order of ember's UnaryOp, BinaryOp and
// TernaryOp enums (runtime/kernels.h); bool results are 1 or 0 and become bool when stored.
#ifndef EMBER_ELEMENTWISE_OPS_GLSL
#define EMBER_ELEMENTWISE_OPS_GLSL

#include "math.glsl"

#if COMPUTE_IS_FLOAT
bool m_isnan(compute_t x) { return isnan(x); }
bool m_isinf(compute_t x) { return isinf(x); }
#else
bool m_isnan(compute_t x) { return false; }
bool m_isinf(compute_t x) { return false; }
#endif

// NaN counts as true, as bool(nan) does in PyTorch.
bool truthy(compute_t x) { return !(x == compute_t(0)); }
compute_t from_bool(bool b) { return b ? compute_t(1) : compute_t(0); }

compute_t nan_max(compute_t a, compute_t b) { return m_isnan(a) ? a : (m_isnan(b) ? b : max(a, b)); }
compute_t nan_min(compute_t a, compute_t b) { return m_isnan(a) ? a : (m_isnan(b) ? b : min(a, b)); }

#if COMPUTE_IS_FLOAT
// C's fmod: the result has a's sign.
compute_t c_fmod(compute_t a, compute_t b) { return a - b * trunc(a / b); }
bool sign_bit(compute_t x) {
#if defined(COMPUTE_F64)
  return (unpackDouble2x32(x).y >> 31) != 0u;
#else
  return (floatBitsToUint(x) >> 31) != 0u;
#endif
}
compute_t sigmoid(compute_t x) { return compute_t(1) / (compute_t(1) + m_exp(-x)); }
#endif

// Integer division and remainder with C's truncation, defined for a zero divisor (which PyTorch rejects
// on the host for scalars): the quotient is 0 and the remainder a.
compute_t int_div(compute_t a, compute_t b) { return b == compute_t(0) ? compute_t(0) : a / b; }
compute_t int_rem(compute_t a, compute_t b) { return a - int_div(a, b) * b; }

// ---- unary ----
#define U_CAST 0
#define U_NEG 1
#define U_ABS 2
#define U_SIGN 3
#define U_RECIPROCAL 4
#define U_SQUARE 5
#define U_EXP 6
#define U_EXP2 7
#define U_LOG 8
#define U_LOG2 9
#define U_LOG10 10
#define U_LOG1P 11
#define U_EXPM1 12
#define U_SQRT 13
#define U_RSQRT 14
#define U_SIN 15
#define U_COS 16
#define U_TAN 17
#define U_ASIN 18
#define U_ACOS 19
#define U_ATAN 20
#define U_SINH 21
#define U_COSH 22
#define U_TANH 23
#define U_SIGMOID 24
#define U_RELU 25
#define U_GELU 26
#define U_GELU_TANH 27
#define U_SILU 28
#define U_ERF 29
#define U_ERFC 30
#define U_FLOOR 31
#define U_CEIL 32
#define U_ROUND 33
#define U_TRUNC 34
#define U_FRAC 35
#define U_ISNAN 36
#define U_ISINF 37
#define U_ISPOSINF 38
#define U_ISNEGINF 39
#define U_ISFINITE 40
#define U_LOGICAL_NOT 41
#define U_BITWISE_NOT 42
#define U_NAN_TO_NUM 43
#define U_CLAMP 44
#define U_CLAMP_MIN 45
#define U_CLAMP_MAX 46
#define U_LEAKY_RELU 47
#define U_THRESHOLD 48

compute_t unary_op(int op, compute_t x, compute_t p0, compute_t p1, compute_t p2) {
  switch (op) {
    case U_CAST: return x;
    case U_NEG: return -x;
    case U_ABS: return abs(x);
    case U_SIGN: return from_bool(x > compute_t(0)) - from_bool(x < compute_t(0));
    case U_SQUARE: return x * x;
    case U_RELU: return x <= compute_t(0) ? compute_t(0) : x;
    case U_ISNAN: return from_bool(m_isnan(x));
    case U_ISINF: return from_bool(m_isinf(x));
    case U_ISPOSINF: return from_bool(m_isinf(x) && x > compute_t(0));
    case U_ISNEGINF: return from_bool(m_isinf(x) && x < compute_t(0));
    case U_ISFINITE: return from_bool(!m_isinf(x) && !m_isnan(x));
    case U_LOGICAL_NOT: return from_bool(!truthy(x));
    case U_CLAMP: return m_isnan(x) ? x : min(max(x, p0), p1);
    case U_CLAMP_MIN: return m_isnan(x) ? x : max(x, p0);
    case U_CLAMP_MAX: return m_isnan(x) ? x : min(x, p0);
    case U_LEAKY_RELU: return x > compute_t(0) ? x : x * p0;
    case U_THRESHOLD: return x <= p0 ? p1 : x;
#if COMPUTE_IS_FLOAT
    case U_RECIPROCAL: return compute_t(1) / x;
    case U_EXP: return m_exp(x);
    case U_EXP2: return m_exp2(x);
    case U_LOG: return m_log(x);
    case U_LOG2: return m_log2(x);
    case U_LOG10: return m_log10(x);
    case U_LOG1P: return m_log1p(x);
    case U_EXPM1: return m_expm1(x);
    case U_SQRT: return sqrt(x);
    case U_RSQRT: return compute_t(1) / sqrt(x);
    case U_SIN: return m_sin(x);
    case U_COS: return m_cos(x);
    case U_TAN: return m_tan(x);
    case U_ASIN: return m_asin(x);
    case U_ACOS: return m_acos(x);
    case U_ATAN: return m_atan(x);
    case U_SINH: return m_sinh(x);
    case U_COSH: return m_cosh(x);
    case U_TANH: return m_tanh(x);
    case U_SIGMOID: return sigmoid(x);
    case U_GELU: return compute_t(0.5) * x * (compute_t(1) + m_erf(x * compute_t(0.70710678118654752440)));
    case U_GELU_TANH: {
      const compute_t inner = compute_t(0.79788456080286535588) * (x + compute_t(0.044715) * x * x * x);
      return compute_t(0.5) * x * (compute_t(1) + m_tanh(inner));
    }
    case U_SILU: return x * sigmoid(x);
    case U_ERF: return m_erf(x);
    case U_ERFC: return m_erfc(x);
    case U_FLOOR: return floor(x);
    case U_CEIL: return ceil(x);
    case U_ROUND: return roundEven(x);
    case U_TRUNC: return trunc(x);
    case U_FRAC: return x - trunc(x);
    case U_NAN_TO_NUM:
      return m_isnan(x) ? p0 : (m_isinf(x) ? (x > compute_t(0) ? p1 : p2) : x);
#else
    case U_BITWISE_NOT: return ~x;
#endif
  }
  return x;
}

// ---- binary ----
#define B_ADD 0
#define B_SUB 1
#define B_MUL 2
#define B_DIV 3
#define B_DIV_TRUNC 4
#define B_DIV_FLOOR 5
#define B_REMAINDER 6
#define B_FMOD 7
#define B_POW 8
#define B_ATAN2 9
#define B_MAXIMUM 10
#define B_MINIMUM 11
#define B_HYPOT 12
#define B_COPYSIGN 13
#define B_EQ 14
#define B_NE 15
#define B_LT 16
#define B_LE 17
#define B_GT 18
#define B_GE 19
#define B_LOGICAL_AND 20
#define B_LOGICAL_OR 21
#define B_LOGICAL_XOR 22
#define B_BITWISE_AND 23
#define B_BITWISE_OR 24
#define B_BITWISE_XOR 25
#define B_LEFT_SHIFT 26
#define B_RIGHT_SHIFT 27
#define B_TANH_BACKWARD 28
#define B_SIGMOID_BACKWARD 29
#define B_THRESHOLD_BACKWARD 30

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

compute_t binary_op(int op, compute_t a, compute_t b, compute_t alpha) {
  switch (op) {
    case B_ADD: return a + alpha * b;
    case B_SUB: return a - alpha * b;
    case B_MUL: return a * b;
    case B_MAXIMUM: return nan_max(a, b);
    case B_MINIMUM: return nan_min(a, b);
    case B_EQ: return from_bool(a == b);
    case B_NE: return from_bool(!(a == b));
    case B_LT: return from_bool(a < b);
    case B_LE: return from_bool(a <= b);
    case B_GT: return from_bool(a > b);
    case B_GE: return from_bool(a >= b);
    case B_LOGICAL_AND: return from_bool(truthy(a) && truthy(b));
    case B_LOGICAL_OR: return from_bool(truthy(a) || truthy(b));
    case B_LOGICAL_XOR: return from_bool(truthy(a) != truthy(b));
#if COMPUTE_IS_FLOAT
    case B_DIV: return a / b;
    case B_DIV_TRUNC: return trunc(a / b);
    case B_DIV_FLOOR: {
      // PyTorch's floor division for floats: exact for representable quotients near integers.
      if (b == compute_t(0)) return a / b;
      const compute_t mod = c_fmod(a, b);
      compute_t div = (a - mod) / b;
      if (mod != compute_t(0) && (b < compute_t(0)) != (mod < compute_t(0))) div -= compute_t(1);
      if (div == compute_t(0)) return sign_bit(a / b) ? -compute_t(0) : compute_t(0);
      compute_t floored = floor(div);
      if (div - floored > compute_t(0.5)) floored += compute_t(1);
      return floored;
    }
    case B_REMAINDER: {
      compute_t mod = c_fmod(a, b);
      if (mod != compute_t(0) && (b < compute_t(0)) != (mod < compute_t(0))) mod += b;
      return mod;
    }
    case B_FMOD: return c_fmod(a, b);
    case B_POW: return m_pow(a, b);
    case B_ATAN2: return m_atan2(a, b);
    case B_HYPOT: return sqrt(a * a + b * b);
    case B_COPYSIGN: return sign_bit(b) ? -abs(a) : abs(a);
    case B_TANH_BACKWARD: return a * (compute_t(1) - b * b);
    case B_SIGMOID_BACKWARD: return a * b * (compute_t(1) - b);
    case B_THRESHOLD_BACKWARD: return b <= alpha ? compute_t(0) : a;  // NaN keeps the gradient
#else
    case B_DIV_TRUNC: return int_div(a, b);
    case B_DIV_FLOOR: {
      compute_t q = int_div(a, b);
      if (b != compute_t(0) && int_rem(a, b) != compute_t(0) && ((a < compute_t(0)) != (b < compute_t(0)))) {
        q -= compute_t(1);
      }
      return q;
    }
    case B_REMAINDER: {
      compute_t r = int_rem(a, b);
      if (r != compute_t(0) && ((r < compute_t(0)) != (b < compute_t(0)))) r += b;
      return r;
    }
    case B_FMOD: return int_rem(a, b);
    case B_POW: return int_pow(a, b);
    case B_BITWISE_AND: return a & b;
    case B_BITWISE_OR: return a | b;
    case B_BITWISE_XOR: return a ^ b;
    case B_LEFT_SHIFT: return (b < compute_t(0) || b >= compute_t(COMPUTE_BITS)) ? compute_t(0) : a << b;
    case B_RIGHT_SHIFT:
      return (b < compute_t(0) || b >= compute_t(COMPUTE_BITS))
                 ? (a < compute_t(0) ? compute_t(-1) : compute_t(0))
                 : a >> b;
#endif
  }
  return a;
}

// ---- ternary ----
#define T_WHERE 0
#define T_LERP 1
#define T_ADDCMUL 2
#define T_ADDCDIV 3
#define T_CLAMP 4

compute_t ternary_op(int op, compute_t a, compute_t b, compute_t c, compute_t alpha) {
  switch (op) {
    case T_WHERE: return truthy(a) ? b : c;
    case T_ADDCMUL: return a + alpha * b * c;
    case T_CLAMP: return nan_min(nan_max(a, b), c);
#if COMPUTE_IS_FLOAT
    case T_LERP:
      // PyTorch's form: exact at both ends.
      return abs(c) < compute_t(0.5) ? a + c * (b - a) : b - (b - a) * (compute_t(1) - c);
    case T_ADDCDIV: return a + alpha * (b / c);
#endif
  }
  return a;
}

#endif
