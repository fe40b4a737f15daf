#version 450
// Elementwise random draws: element i of a launch piece uses the Philox block at counter
// start + i, where the host's start is the generator offset plus the piece's first row-major position,
// so draws do not depend on workgroups or on how a launch is split. Compiled per compute class
// (COMPUTE_*), with PROBABILITY_TENSOR for Bernoulli with per-element probabilities. Specialised by
// out's dtype, the op and the probabilities' dtype.
//
// low and high are the op's two parameters (random_ops.def): compute_t bits for the floating draws,
// such as Uniform (low, high), Normal (mean, std) and Bernoulli (p, unused); int64 bits for RandInt
// (low, high). Bernoulli and Geometric compute in float or double (random_domain.h) whatever out's dtype.
#include "math.glsl"
#include "philox.glsl"

#include "random_ops.glsl"  // RANDOM_OP_*, generated from runtime/kernels/random_ops.def

layout(constant_id = 0) const uint OUT_DT = DT_F32;
layout(constant_id = 1) const uint OP = RANDOM_OP_UNIFORM;
#ifdef PROBABILITY_TENSOR
layout(constant_id = 2) const uint PROBABILITY_DT = DT_F32;
#endif

#ifdef PROBABILITY_TENSOR
#define NUM_OPERANDS 2
#else
#define NUM_OPERANDS 1
#endif
#define EXTRA_PARAMS                                                                              \
  uint seed_lo; uint seed_hi; uint start_lo; uint start_hi; uint low_lo; uint low_hi; uint high_lo;   \
  uint high_hi;
#include "strided.glsl"

DECLARE_OPERAND(0, out, writeonly)
DEFINE_STORE(out, OUT_DT)
#ifdef PROBABILITY_TENSOR
DECLARE_OPERAND(1, probability, readonly)
DEFINE_LOAD(probability, PROBABILITY_DT)
#endif

#if COMPUTE_IS_FLOAT
compute_t standard_normal(uvec4 block) {
  // Box-Muller; the first uniform is taken from (0, 1] so that its log is finite.
  const compute_t u1 = compute_t(1) - philox_unit(block.xy);
  const compute_t u2 = philox_unit(block.zw);
#if defined(COMPUTE_F64)
  const double two_pi = 6.283185307179586476925286766559lf;
#else
  const float two_pi = 6.283185307179586476925286766559;
#endif
  return sqrt(compute_t(-2) * m_log(u1)) * m_cos(two_pi * u2);
}
#endif

void main() {
  COPY_PUSH_CONSTANTS();
  const compute_t low = scalar_from_bits(uvec2(p.low_lo, p.low_hi));
  const compute_t high = scalar_from_bits(uvec2(p.high_lo, p.high_hi));
  FOR_EACH_ELEMENT(i) {
    uint offsets[NUM_OPERANDS];
    operand_offsets(i, offsets);
    const uvec4 block = philox_block(uvec2(p.seed_lo, p.seed_hi), uvec2(p.start_lo, p.start_hi), i);
    compute_t value = compute_t(0);
    if (OP == RANDOM_OP_RANDINT) {
      // 64 random bits modulo the range: the bias, range / 2^64, is below what any test can see.
      const int64_t first = int64_t(pack64(uvec2(p.low_lo, p.low_hi)));
      const uint64_t range = uint64_t(int64_t(pack64(uvec2(p.high_lo, p.high_hi))) - first);
      const uint64_t draw = range == 0ul ? 0ul : pack64(block.xy) % range;
      value = compute_t(first + int64_t(draw));
    }
#if COMPUTE_IS_FLOAT
    else if (OP == RANDOM_OP_UNIFORM) {
      value = as_stored(OUT_DT, low + philox_unit(block.xy) * (high - low));
      // Rounding can reach high itself; PyTorch's generators return low then, and so does this.
      if (value >= high) value = low;
    } else if (OP == RANDOM_OP_NORMAL) {
      value = low + high * standard_normal(block);
    } else if (OP == RANDOM_OP_BERNOULLI) {
#ifdef PROBABILITY_TENSOR
      const compute_t probability = probability_load(offsets[1]);
#else
      const compute_t probability = low;
#endif
      value = philox_unit(block.xy) < probability ? compute_t(1) : compute_t(0);
    } else if (OP == RANDOM_OP_EXPONENTIAL) {
      value = -m_log1p(-philox_unit(block.xy)) / low;
    } else if (OP == RANDOM_OP_GEOMETRIC) {
      // From 1 - u in (0, 1], whose log is finite; the one draw of exactly 1 would give 0 trials, and
      // counts as 1.
      value = max(ceil(m_log(compute_t(1) - philox_unit(block.xy)) / m_log1p(-low)), compute_t(1));
    } else if (OP == RANDOM_OP_LOG_NORMAL) {
      value = m_exp(low + high * standard_normal(block));
    } else if (OP == RANDOM_OP_CAUCHY) {
#if defined(COMPUTE_F64)
      const double pi = 3.14159265358979323846264338327950lf;
#else
      const float pi = 3.14159265358979323846264338327950;
#endif
      value = low + high * m_tan(pi * (philox_unit(block.xy) - compute_t(0.5)));
    }
#endif
    out_store(offsets[0], value);
  }
}
