#pragma once
// The reduction ops as states that merge (the same scheme as shaders/reduce/reduce_functions.glsl): each op starts
// from identity(), takes one element through lift(), combines two partial results with merge() in any
// grouping, and turns the final state into its result with finalize(). merge() is associative, and
// where indices decide ties it compares them, so every grouping of the tree gives the same answer up to
// rounding; for a given shape the grouping itself is fixed, so results repeat exactly.
//
// A is the accumulator type: float for float32, float16 and bfloat16 compute, double for float64, and
// int64_t for every integer and bool compute (PyTorch accumulates integers in int64 too).
#include <cstdint>

#include "kernels_cuda/common/device_math.cuh"
#include "runtime/kernels/reduce.h"

namespace ember::cuda {

// Norm's p, classified once on the host.
enum class NormKind : int { Zero, One, Two, Infinity, NegativeInfinity, Other };

// v, w: values; n: a count; index: the reduction index of Max/Min's element.
//   Sum, Prod, Mean, NanSum, NanMean, Norm (1, 2, p): v = running sum (product); n = elements counted
//   Max, Min, Amax, Amin, Argmax, Argmin, Norm (inf, -inf): v = best value, index = its position
//   Var, Std: Welford's (n = count, v = mean, w = sum of squared deviations)
//   LogSumExp: v = largest element m, w = sum of exp(x - m)
//   Norm (0), Any, CountNonzero: n = nonzeros; All: n = zeros
// A state with n == 0 holds no element, except for the counting ops, whose n is their count.
template <class A>
struct ReduceState {
  A v;
  A w;
  int64_t n;
  int64_t index;
};

struct ReduceParams {
  ReduceOp op;
  NormKind norm;
  double param;  // Var, Std: the correction; Norm: p
};

// Every switch over ReduceOp below lists every op (-Werror=switch checks them in reduce.cu).

__host__ __device__ inline bool counts_elements(ReduceOp op, NormKind norm) {
  switch (op) {
    case ReduceOp::All:
    case ReduceOp::Any:
    case ReduceOp::CountNonzero: return false;
    case ReduceOp::Norm: return norm != NormKind::Zero;
    case ReduceOp::Sum:
    case ReduceOp::Prod:
    case ReduceOp::Mean:
    case ReduceOp::NanSum:
    case ReduceOp::NanMean:
    case ReduceOp::Max:
    case ReduceOp::Min:
    case ReduceOp::Amax:
    case ReduceOp::Amin:
    case ReduceOp::Argmax:
    case ReduceOp::Argmin:
    case ReduceOp::Var:
    case ReduceOp::Std:
    case ReduceOp::LogSumExp: return true;
  }
  return true;
}

// Ops that keep the element with the best value: the larger for these, the smaller for the others.
__host__ __device__ inline bool selects_value(ReduceOp op, NormKind norm) {
  switch (op) {
    case ReduceOp::Max:
    case ReduceOp::Min:
    case ReduceOp::Amax:
    case ReduceOp::Amin:
    case ReduceOp::Argmax:
    case ReduceOp::Argmin: return true;
    case ReduceOp::Norm: return norm == NormKind::Infinity || norm == NormKind::NegativeInfinity;
    case ReduceOp::Sum:
    case ReduceOp::Prod:
    case ReduceOp::Mean:
    case ReduceOp::NanSum:
    case ReduceOp::NanMean:
    case ReduceOp::Var:
    case ReduceOp::Std:
    case ReduceOp::LogSumExp:
    case ReduceOp::All:
    case ReduceOp::Any:
    case ReduceOp::CountNonzero: return false;
  }
  return false;
}

__host__ __device__ inline bool selects_largest(ReduceOp op, NormKind norm) {
  return op == ReduceOp::Max || op == ReduceOp::Amax || op == ReduceOp::Argmax ||
         (op == ReduceOp::Norm && norm == NormKind::Infinity);
}

template <class A>
__host__ __device__ inline ReduceState<A> reduce_identity(const ReduceParams& p) {
  ReduceState<A> s;
  s.v = p.op == ReduceOp::Prod ? A(1) : A(0);
  s.w = A(0);
  s.n = 0;
  s.index = 0;
  return s;
}

// The state of the single element x at reduction index `index`.
template <class A>
__host__ __device__ inline ReduceState<A> reduce_lift(const ReduceParams& p, A x, int64_t index) {
  ReduceState<A> s = reduce_identity<A>(p);
  switch (p.op) {
    case ReduceOp::NanSum:
    case ReduceOp::NanMean:
      if (!is_nan(x)) {
        s.v = x;
        s.n = 1;
      }
      return s;
    case ReduceOp::All: s.n = x == A(0) ? 1 : 0; return s;
    case ReduceOp::Any:
    case ReduceOp::CountNonzero: s.n = x != A(0) ? 1 : 0; return s;
    case ReduceOp::LogSumExp:
      s.v = x;
      s.w = A(1);
      s.n = 1;
      return s;
    case ReduceOp::Norm:
      if constexpr (kIsFloat<A>) {
        switch (p.norm) {
          case NormKind::Zero: s.n = x != A(0) ? 1 : 0; return s;
          case NormKind::Two: s.v = x * x; break;
          case NormKind::Other: s.v = m_pow(m_fabs(x), static_cast<A>(p.param)); break;
          case NormKind::One:
          case NormKind::Infinity:
          case NormKind::NegativeInfinity: s.v = m_fabs(x); break;
        }
      }
      s.n = 1;
      s.index = index;
      return s;
    // The sums and products, the selecting ops, and Var and Std (Welford's state of one element).
    case ReduceOp::Sum:
    case ReduceOp::Prod:
    case ReduceOp::Mean:
    case ReduceOp::Max:
    case ReduceOp::Min:
    case ReduceOp::Amax:
    case ReduceOp::Amin:
    case ReduceOp::Argmax:
    case ReduceOp::Argmin:
    case ReduceOp::Var:
    case ReduceOp::Std:
      s.v = x;
      s.n = 1;
      s.index = index;
      // PyTorch's Welford update makes the sum of squared deviations NaN at a NaN or infinite element
      // (inf * (inf - inf)); Chan's merge would keep it 0 for one element and inf for several.
      if constexpr (kIsFloat<A>) {
        if ((p.op == ReduceOp::Var || p.op == ReduceOp::Std) && (is_nan(x) || is_inf(x))) s.w = quiet_nan<A>();
      }
      return s;
  }
  return s;
}

// NaN wins; otherwise the larger (or smaller) value; ties go to the earlier index.
template <class A>
__host__ __device__ inline bool prefers_second(const ReduceParams& p, const ReduceState<A>& first,
                                               const ReduceState<A>& second) {
  const bool first_nan = is_nan(first.v);
  const bool second_nan = is_nan(second.v);
  if (first_nan || second_nan) return first_nan && second_nan ? second.index < first.index : second_nan;
  if (first.v == second.v) return second.index < first.index;
  return selects_largest(p.op, p.norm) ? second.v > first.v : second.v < first.v;
}

template <class A>
__host__ __device__ inline ReduceState<A> reduce_merge(const ReduceParams& p, const ReduceState<A>& x,
                                                       const ReduceState<A>& y) {
  if (!counts_elements(p.op, p.norm)) {
    ReduceState<A> s = x;
    s.n = x.n + y.n;
    return s;
  }
  if (x.n == 0) return y;
  if (y.n == 0) return x;
  if (selects_value(p.op, p.norm)) {
    ReduceState<A> s = prefers_second(p, x, y) ? y : x;
    s.n = x.n + y.n;
    return s;
  }
  ReduceState<A> s = x;
  s.n = x.n + y.n;
  switch (p.op) {
    case ReduceOp::Prod: s.v = wrap_mul(x.v, y.v); return s;
    case ReduceOp::Var:
    case ReduceOp::Std:
      if constexpr (kIsFloat<A>) {
        // Chan et al.'s parallel form of Welford's update.
        const A delta = y.v - x.v;
        const A y_share = static_cast<A>(y.n) / static_cast<A>(s.n);
        s.v = x.v + delta * y_share;
        s.w = x.w + y.w + delta * delta * static_cast<A>(x.n) * y_share;
      }
      return s;
    case ReduceOp::LogSumExp:
      if constexpr (kIsFloat<A>) {
        // The sum of exp is w * exp(v). An infinite or NaN maximum decides alone.
        if (is_nan(x.v) || is_nan(y.v)) {
          s.v = quiet_nan<A>();
        } else {
          s.v = x.v > y.v ? x.v : y.v;
          if (is_inf(s.v)) {
            s.w = A(1);
          } else {
            s.w = x.w * m_exp(x.v - s.v) + y.w * m_exp(y.v - s.v);
          }
        }
      }
      return s;
    case ReduceOp::Sum:
    case ReduceOp::Mean:
    case ReduceOp::NanSum:
    case ReduceOp::NanMean:
    case ReduceOp::Norm: s.v = wrap_add(x.v, y.v); return s;
    // Merged above: the selecting and the counting ops.
    case ReduceOp::Max:
    case ReduceOp::Min:
    case ReduceOp::Amax:
    case ReduceOp::Amin:
    case ReduceOp::Argmax:
    case ReduceOp::Argmin:
    case ReduceOp::All:
    case ReduceOp::Any:
    case ReduceOp::CountNonzero: return s;
  }
  return s;
}

// The result value of a final state (the counting ops' results are their n, see reduce_count).
template <class A>
__host__ __device__ inline A reduce_value(const ReduceParams& p, const ReduceState<A>& s) {
  if constexpr (kIsFloat<A>) {
    switch (p.op) {
      case ReduceOp::Mean:
      case ReduceOp::NanMean: return s.v / static_cast<A>(s.n);  // 0 / 0 is NaN for no elements
      case ReduceOp::Var:
      case ReduceOp::Std: {
        // An infinite element makes the mean infinite or NaN, and the variance is then NaN, as in
        // PyTorch (whose Welford update meets inf - inf); the merges here could leave M2 infinite instead.
        if (is_nan(s.v) || is_inf(s.v)) return quiet_nan<A>();
        // PyTorch divides by max(0, N - correction): 0 / 0 is NaN and M2 / 0 is inf.
        A divisor = static_cast<A>(s.n) - static_cast<A>(p.param);
        if (divisor < A(0)) divisor = A(0);
        const A variance = s.w / divisor;
        return p.op == ReduceOp::Std ? m_sqrt(variance) : variance;
      }
      case ReduceOp::Norm:
        if (p.norm == NormKind::Zero) return static_cast<A>(s.n);
        if (p.norm == NormKind::Two) return m_sqrt(s.v);
        if (p.norm == NormKind::Other) return m_pow(s.v, A(1) / static_cast<A>(p.param));
        return s.v;
      case ReduceOp::LogSumExp:
        if (s.n == 0) return -infinity<A>();
        return is_inf(s.v) || is_nan(s.v) ? s.v : s.v + m_log(s.w);
      case ReduceOp::Sum:
      case ReduceOp::Prod:
      case ReduceOp::NanSum:
      case ReduceOp::Max:
      case ReduceOp::Min:
      case ReduceOp::Amax:
      case ReduceOp::Amin:
      case ReduceOp::Argmax:
      case ReduceOp::Argmin:
      case ReduceOp::All:
      case ReduceOp::Any:
      case ReduceOp::CountNonzero: break;
    }
  }
  if (p.op == ReduceOp::All) return s.n == 0 ? A(1) : A(0);
  if (p.op == ReduceOp::Any) return s.n != 0 ? A(1) : A(0);
  return s.v;
}

}  // namespace ember::cuda
