// The reduction ops as states that merge: each op keeps (a, b, c), starts from identity(), takes one
// element through lift(), combines two partial results with merge() in any grouping, and turns the
// final state into its result with finalize_value(). Because merge() is associative (and order-free
// where indices decide ties), the workgroup tree and the passes over partial states give the same
// answers as any other grouping, up to rounding.
//
// The including shader defines compute_t (typed_operands.glsl) and the specialization constant OP.
#ifndef EMBER_REDUCE_OPS_GLSL
#define EMBER_REDUCE_OPS_GLSL

#include "math.glsl"

#include "reduce_kernel_ops.glsl"  // REDUCE_KERNEL_OP_*, generated from reduce_kernel_ops.def

// a, b: values in compute_t; c: a count, or for Max/Min the element's index + 1 (0: no element yet).
//   Sum, Prod, Mean, NanSum, Norm1/2/p: a = running sum (product)
//   NanMean: a = sum of the non-NaN elements, c = their count
//   Max, Min: a = best value, c = its index + 1; Amax, Amin, NormInf, NormNegInf: a = best value
//   Var, Std: Welford's (c = count, a = mean, b = sum of squared deviations)
//   LogSumExp: a = largest element m, b = sum of exp(x - m)
//   Norm0, All, Any, CountNonzero: c = count of nonzeros (All: of zeros)
struct State {
  compute_t a;
  compute_t b;
  uint c;
};

#if COMPUTE_IS_FLOAT
#define POSITIVE_INFINITY compute_t(uintBitsToFloat(0x7f800000u))
#define LOWEST_VALUE (-POSITIVE_INFINITY)
#define HIGHEST_VALUE POSITIVE_INFINITY
#else
#if defined(COMPUTE_I64)
#define LOWEST_VALUE int64_t(0x8000000000000000ul)
#define HIGHEST_VALUE int64_t(0x7ffffffffffffffful)
#else
#define LOWEST_VALUE int(0x80000000u)
#define HIGHEST_VALUE int(0x7fffffffu)
#endif
#endif

State identity() {
  State s;
  s.a = compute_t(0);
  s.b = compute_t(0);
  s.c = 0u;
  if (OP == REDUCE_KERNEL_OP_PROD) s.a = compute_t(1);
  if (OP == REDUCE_KERNEL_OP_AMAX) s.a = LOWEST_VALUE;
  if (OP == REDUCE_KERNEL_OP_AMIN) s.a = HIGHEST_VALUE;
#if COMPUTE_IS_FLOAT
  if (OP == REDUCE_KERNEL_OP_NORM_NEG_INF) s.a = POSITIVE_INFINITY;
  if (OP == REDUCE_KERNEL_OP_LOGSUMEXP) s.a = -POSITIVE_INFINITY;
#endif
  return s;
}

// The state of the single element x at reduction index `index`.
State lift(compute_t x, uint index, compute_t param) {
  State s = identity();
  if (OP == REDUCE_KERNEL_OP_NANSUM || OP == REDUCE_KERNEL_OP_NANMEAN) {
    if (!m_isnan(x)) {
      s.a = x;
      s.c = 1u;
    }
  } else if (OP == REDUCE_KERNEL_OP_MAX || OP == REDUCE_KERNEL_OP_MIN) {
    s.a = x;
    s.c = index + 1u;
  } else if (OP == REDUCE_KERNEL_OP_VAR || OP == REDUCE_KERNEL_OP_STD) {
    s.a = x;
    s.c = 1u;
#if COMPUTE_IS_FLOAT
    // PyTorch's Welford update makes the sum of squared deviations NaN at a NaN or infinite element
    // (inf * (inf - inf)); Chan's merge below would keep it 0 for one element and inf for several.
    if (isnan(x) || isinf(x)) s.b = mc_nan();
#endif
  } else if (OP == REDUCE_KERNEL_OP_NORM0 || OP == REDUCE_KERNEL_OP_ANY || OP == REDUCE_KERNEL_OP_COUNT_NONZERO) {
    s.c = x != compute_t(0) ? 1u : 0u;
  } else if (OP == REDUCE_KERNEL_OP_ALL) {
    s.c = x == compute_t(0) ? 1u : 0u;
  } else if (OP == REDUCE_KERNEL_OP_NORM1 || OP == REDUCE_KERNEL_OP_NORM_INF || OP == REDUCE_KERNEL_OP_NORM_NEG_INF) {
    s.a = abs(x);
  } else if (OP == REDUCE_KERNEL_OP_NORM2) {
    s.a = x * x;
  } else if (OP == REDUCE_KERNEL_OP_LOGSUMEXP) {
    s.a = x;
    s.b = compute_t(1);
  } else {
#if COMPUTE_IS_FLOAT
    if (OP == REDUCE_KERNEL_OP_NORM_P) {
      s.a = m_pow(abs(x), param);
      return s;
    }
#endif
    s.a = x;
  }
  return s;
}

// NaN wins; otherwise the larger (Max) or smaller (Min) value; ties go to the earlier index.
bool prefers_second(State first, State second) {
  if (second.c == 0u) return false;
  if (first.c == 0u) return true;
  const bool first_nan = m_isnan(first.a);
  const bool second_nan = m_isnan(second.a);
  if (first_nan || second_nan) return first_nan && second_nan ? second.c < first.c : second_nan;
  if (first.a == second.a) return second.c < first.c;
  return OP == REDUCE_KERNEL_OP_MAX ? second.a > first.a : second.a < first.a;
}

State merge(State x, State y) {
  State s = x;
  if (OP == REDUCE_KERNEL_OP_SUM || OP == REDUCE_KERNEL_OP_MEAN || OP == REDUCE_KERNEL_OP_NORM1 || OP == REDUCE_KERNEL_OP_NORM2 || OP == REDUCE_KERNEL_OP_NORM_P) {
    s.a = x.a + y.a;
  } else if (OP == REDUCE_KERNEL_OP_NANSUM || OP == REDUCE_KERNEL_OP_NANMEAN) {
    s.a = x.a + y.a;
    s.c = x.c + y.c;
  } else if (OP == REDUCE_KERNEL_OP_PROD) {
    s.a = x.a * y.a;
  } else if (OP == REDUCE_KERNEL_OP_MAX || OP == REDUCE_KERNEL_OP_MIN) {
    if (prefers_second(x, y)) s = y;
  } else if (OP == REDUCE_KERNEL_OP_AMAX || OP == REDUCE_KERNEL_OP_NORM_INF) {
    s.a = nan_max(x.a, y.a);
  } else if (OP == REDUCE_KERNEL_OP_AMIN || OP == REDUCE_KERNEL_OP_NORM_NEG_INF) {
    s.a = nan_min(x.a, y.a);
  } else if (OP == REDUCE_KERNEL_OP_VAR || OP == REDUCE_KERNEL_OP_STD) {
    // Chan et al.'s parallel form of Welford's update.
    if (x.c == 0u) return y;
    if (y.c == 0u) return x;
    s.c = x.c + y.c;
    const compute_t n = compute_t(s.c);
    const compute_t delta = y.a - x.a;
    const compute_t y_share = compute_t(y.c) / n;
    s.a = x.a + delta * y_share;
    s.b = x.b + y.b + delta * delta * compute_t(x.c) * y_share;
  } else if (OP == REDUCE_KERNEL_OP_LOGSUMEXP) {
#if COMPUTE_IS_FLOAT
    // Sum of exp(x) = b * exp(a). Infinite maxima decide alone; -inf everywhere stays -inf.
    if (m_isnan(x.a) || m_isnan(y.a)) {
      s.a = x.a + y.a;
    } else {
      s.a = max(x.a, y.a);
      if (isinf(s.a)) {
        s.b = compute_t(1);
        if (s.a < compute_t(0)) s.b = compute_t(0);
      } else {
        s.b = x.b * m_exp(x.a - s.a) + y.b * m_exp(y.a - s.a);
      }
    }
#endif
  } else {  // Norm0, All, Any, CountNonzero
    s.c = x.c + y.c;
  }
  return s;
}

// The result value of a final state; `param` as the launcher passes it (Mean: the element count).
compute_t finalize_value(State s, compute_t param) {
#if COMPUTE_IS_FLOAT
  if (OP == REDUCE_KERNEL_OP_MEAN) return s.a / param;
  if (OP == REDUCE_KERNEL_OP_NANMEAN) return s.a / compute_t(s.c);
  if (OP == REDUCE_KERNEL_OP_VAR || OP == REDUCE_KERNEL_OP_STD) {
    // PyTorch divides by max(0, N - correction): 0 / 0 is NaN and M2 / 0 is inf.
    const compute_t variance = s.b / max(compute_t(0), compute_t(s.c) - param);
    return OP == REDUCE_KERNEL_OP_STD ? sqrt(variance) : variance;
  }
  if (OP == REDUCE_KERNEL_OP_NORM2) return sqrt(s.a);
  if (OP == REDUCE_KERNEL_OP_NORM_P) return m_pow(s.a, compute_t(1) / param);
  if (OP == REDUCE_KERNEL_OP_LOGSUMEXP) return isinf(s.a) || m_isnan(s.a) ? s.a : s.a + m_log(s.b);
#endif
  return s.a;
}

// Ops whose result is a count, stored from finalize_count() so that it is exact even where compute_t
// could not hold it.
const bool RESULT_IS_COUNT = OP == REDUCE_KERNEL_OP_NORM0 || OP == REDUCE_KERNEL_OP_ANY || OP == REDUCE_KERNEL_OP_COUNT_NONZERO || OP == REDUCE_KERNEL_OP_ALL;

uint finalize_count(State s) {
  if (OP == REDUCE_KERNEL_OP_ALL) return s.c == 0u ? 1u : 0u;
  return s.c;
}

#endif
