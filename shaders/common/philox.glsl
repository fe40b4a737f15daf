// Philox4x32-10, the counter-based generator of Salmon et al. ("Parallel random numbers: as easy as
// 1, 2, 3", SC 2011), as PyTorch's at::philox_engine and cuRAND use it: a 64-bit key (the seed) turns a
// 128-bit counter into 128 random bits. Draws depend on (seed, counter) only, never on how invocations
// are laid out. Needs no extension: 32x32 products come from umulExtended.
#ifndef EMBER_PHILOX_GLSL
#define EMBER_PHILOX_GLSL

uvec4 philox4x32_10(uvec4 counter, uvec2 key) {
  for (int round = 0; round < 10; ++round) {
    uint hi0, lo0, hi1, lo1;
    umulExtended(0xD2511F53u, counter.x, hi0, lo0);
    umulExtended(0xCD9E8D57u, counter.z, hi1, lo1);
    counter = uvec4(hi1 ^ counter.y ^ key.x, lo1, hi0 ^ counter.w ^ key.y, lo0);
    key += uvec2(0x9E3779B9u, 0xBB67AE85u);  // the Weyl sequence of the key schedule
  }
  return counter;
}

// The block at 128-bit counter (start + index), with start given as 32-bit words (lo, hi) and the seed
// as (lo, hi). A carry out of the low 64 bits moves into the third word, as at::philox_engine does.
uvec4 philox_block(uvec2 seed, uvec2 start, uint index) {
  uint carry;
  const uint lo = uaddCarry(start.x, index, carry);
  uint carry_hi;
  const uint hi = uaddCarry(start.y, carry, carry_hi);
  return philox4x32_10(uvec4(lo, hi, carry_hi, 0u), seed);
}

// Uniform floats in [0, 1) from the top bits of random words: 24 bits for float, 53 for double.
float philox_unit_float(uint bits) { return float(bits >> 8) * (1.0 / 16777216.0); }

#if defined(compute_t) && COMPUTE_IS_FLOAT
// A uniform draw in [0, 1) with compute_t's precision (typed_operands.glsl, included first).
compute_t philox_unit(uvec2 words) {
#if defined(COMPUTE_F64)
  const uint64_t bits53 = (uint64_t(words.x >> 5) << 26) | uint64_t(words.y >> 6);
  return double(bits53) * (1.0lf / 9007199254740992.0lf);
#else
  return philox_unit_float(words.x);
#endif
}
#endif

#endif
