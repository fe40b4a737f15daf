#pragma once
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011), the counter-based
// generator of cuRAND and PyTorch: a 64-bit key turns a 128-bit counter into 128 random bits, so a draw
// depends on (seed, counter) only, never on how threads are laid out.
//
// The convention, shared with the Vulkan shaders (shaders/philox.glsl) so that both backends can draw the
// same bits:
//   key     = (seed & 0xffffffff, seed >> 32)
//   counter = (lo, hi, carry, 0) where lo, hi are the 32-bit words of the 64-bit sum state.offset + i
//             and carry is that sum's carry out of 64 bits; i is the element's row-major position
//   unit float  = (word0 >> 8) * 2^-24, in [0, 1)
//   unit double = ((word0 >> 5) << 26 | word1 >> 6) * 2^-53, in [0, 1)
// How each op uses a block is written beside it in random.cu.
#include <cuda_runtime.h>

#include <cstdint>

namespace ember::cuda {

__host__ __device__ inline uint32_t multiply_high(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
  return __umulhi(a, b);
#else
  return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
#endif
}

__host__ __device__ inline uint4 philox4x32_10(uint4 counter, uint32_t key0, uint32_t key1) {
  for (int round = 0; round < 10; ++round) {
    const uint32_t hi0 = multiply_high(0xD2511F53u, counter.x);
    const uint32_t lo0 = 0xD2511F53u * counter.x;
    const uint32_t hi1 = multiply_high(0xCD9E8D57u, counter.z);
    const uint32_t lo1 = 0xCD9E8D57u * counter.z;
    counter = make_uint4(hi1 ^ counter.y ^ key0, lo1, hi0 ^ counter.w ^ key1, lo0);
    key0 += 0x9E3779B9u;  // the Weyl sequence of the key schedule
    key1 += 0xBB67AE85u;
  }
  return counter;
}

// The block at counter start + index (see the convention above).
__host__ __device__ inline uint4 philox_block(uint64_t seed, uint64_t start, uint64_t index) {
  const uint64_t sum = start + index;
  const uint32_t carry = sum < start ? 1u : 0u;
  const uint4 counter = make_uint4(static_cast<uint32_t>(sum), static_cast<uint32_t>(sum >> 32), carry, 0u);
  return philox4x32_10(counter, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

// A uniform draw in [0, 1) from two words, with the precision of A (float: the first word's top 24 bits).
template <class A>
__host__ __device__ inline A philox_unit(uint32_t first, uint32_t second) {
  if constexpr (sizeof(A) == sizeof(double)) {
    const uint64_t bits53 = (static_cast<uint64_t>(first >> 5) << 26) | static_cast<uint64_t>(second >> 6);
    return static_cast<A>(bits53) * static_cast<A>(1.0 / 9007199254740992.0);
  } else {
    return static_cast<A>(first >> 8) * static_cast<A>(1.0 / 16777216.0);
  }
}

}  // namespace ember::cuda
