// The same Feistel network, integer draws and Philox4x32-10 blocks as shaders/random/randperm.comp,
// shaders/random/random.comp and shaders/common/philox.glsl; tests/data/sampler_test.cpp checks that both
// give the same order.
#include "data/detail/host_draws.h"

#include <algorithm>
#include <array>
#include <bit>

#include "runtime/error.h"

namespace ember::data::detail {

namespace {

using Block = std::array<uint32_t, 4>;

Block philox4x32_10(Block counter, uint32_t key_lo, uint32_t key_hi) {
  for (int round = 0; round < 10; ++round) {
    const uint64_t product0 = uint64_t{0xD2511F53u} * counter[0];
    const uint64_t product1 = uint64_t{0xCD9E8D57u} * counter[2];
    const auto hi0 = static_cast<uint32_t>(product0 >> 32), lo0 = static_cast<uint32_t>(product0);
    const auto hi1 = static_cast<uint32_t>(product1 >> 32), lo1 = static_cast<uint32_t>(product1);
    counter = {hi1 ^ counter[1] ^ key_lo, lo1, hi0 ^ counter[3] ^ key_hi, lo0};
    key_lo += 0x9E3779B9u;
    key_hi += 0xBB67AE85u;
  }
  return counter;
}

// The block at 128-bit counter start + index, a carry out of the low 64 bits going to the third word.
Block philox_block(PhiloxState state, uint64_t index) {
  const uint64_t low = state.offset + index;
  const uint32_t carry = low < state.offset ? 1u : 0u;
  return philox4x32_10({static_cast<uint32_t>(low), static_cast<uint32_t>(low >> 32), carry, 0u},
                       static_cast<uint32_t>(state.seed), static_cast<uint32_t>(state.seed >> 32));
}

}  // namespace

std::vector<int64_t> randperm_on_host(int64_t n, PhiloxState state) {
  if (n < 0) throw Error("randperm_on_host: n must be non-negative, got " + std::to_string(n));
  if (n <= 1) return std::vector<int64_t>(static_cast<size_t>(n), 0);
  if (static_cast<uint64_t>(n) > 0xFFFFFFFFull) {
    throw UnsupportedError("randperm of more than 2^32 - 1 elements");
  }
  // The fewest even number of bits that holds n - 1, as the shader's launcher chooses.
  uint32_t bits = std::max<uint32_t>(2, std::bit_width(static_cast<uint64_t>(n - 1)));
  bits += bits % 2;
  const uint32_t half = bits / 2;
  const uint32_t mask = (1u << half) - 1u;
  // Each round reads the block at offset + right, right < 2^half: compute those blocks once.
  std::vector<Block> blocks(size_t{1} << half);
  for (uint32_t r = 0; r < blocks.size(); ++r) blocks[r] = philox_block(state, r);
  auto feistel = [&](uint32_t x) {
    uint32_t left = x >> half, right = x & mask;
    for (int round = 0; round < 6; ++round) {
      const uint32_t word = blocks[right][round / 2];
      const uint32_t f = (round % 2 == 0 ? word : word >> 16) & mask;
      const uint32_t next_right = left ^ f;
      left = right;
      right = next_right;
    }
    return (left << half) | right;
  };
  std::vector<int64_t> out(static_cast<size_t>(n));
  const auto limit = static_cast<uint32_t>(n);
  for (uint32_t i = 0; i < limit; ++i) {
    uint32_t value = feistel(i);
    while (value >= limit) value = feistel(value);  // cycle walking, as the shader does
    out[i] = value;
  }
  return out;
}

int64_t randint_on_host(int64_t high, PhiloxState state, uint64_t index) {
  if (high <= 0) throw Error("randint_on_host: high must be positive, got " + std::to_string(high));
  const Block block = philox_block(state, index);
  const uint64_t bits = uint64_t{block[0]} | (uint64_t{block[1]} << 32);
  return static_cast<int64_t>(bits % static_cast<uint64_t>(high));
}

double uniform_on_host(PhiloxState state, uint64_t index) {
  const Block block = philox_block(state, index);
  const uint64_t bits = (uint64_t{block[0]} | (uint64_t{block[1]} << 32)) >> 11;
  return static_cast<double>(bits) * 0x1.0p-53;
}

}  // namespace ember::data::detail
