#version 450
// out[i] = P(i) for a random permutation P of 0..n-1 keyed by (seed, offset), out contiguous int64.
// P is a balanced Feistel network on 2 * half_bits bits (the fewest even count with 2^bits >= n, so the
// domain is below 4n), restricted to 0..n-1 by cycle walking: P is applied again until the value falls
// below n, which is a bijection of 0..n-1 because the network is one of the whole domain. Round r of
// the network maps the right half R through the r-th 16 bits of the Philox block at counter
// offset + R; R < 2^half_bits <= n, so a permutation of n elements reads only the n blocks that its
// offset advance reserves. Six rounds: Luby and Rackoff's bound wants four for a pseudorandom
// permutation.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "philox.glsl"
#define NUM_OPERANDS 1
#define EXTRA_PARAMS                                                                  \
  uint n; uint half_bits; uint base; uint seed_lo; uint seed_hi; uint start_lo; uint start_hi;
#include "strided.glsl"

layout(set = 0, binding = 0) writeonly buffer Out { int64_t out_data[]; };

const int kRounds = 6;

uint feistel(uint x) {
  const uint mask = (1u << p.half_bits) - 1u;
  uint left = x >> p.half_bits;
  uint right = x & mask;
  for (int round = 0; round < kRounds; ++round) {
    const uvec4 block = philox_block(uvec2(p.seed_lo, p.seed_hi), uvec2(p.start_lo, p.start_hi), right);
    const uint word = block[round / 2];
    const uint f = (round % 2 == 0 ? word : word >> 16) & mask;
    const uint next_right = left ^ f;
    left = right;
    right = next_right;
  }
  return (left << p.half_bits) | right;
}

void main() {
  COPY_PUSH_CONSTANTS();
  FOR_EACH_ELEMENT(i) {
    uint offsets[1];
    operand_offsets(i, offsets);
    uint value = feistel(p.base + i);
    while (value >= p.n) value = feistel(value);
    out_data[offsets[0]] = int64_t(value);
  }
}
