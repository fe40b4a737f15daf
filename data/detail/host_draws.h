#pragma once
// ember::randperm's permutations and ember::randint's draws, computed on the host: RandomSampler draws its
// order here, so that an epoch starts without reading a device tensor back (which would wait for all
// queued work), and a seed gives the same order as ember::randperm(n, {}, &generator) or
// ember::randint(n, {count}, {}, &generator) does on any device.
#include <cstdint>
#include <vector>

#include "runtime/kernels/random.h"

namespace ember::data::detail {

// P(0), ..., P(n - 1) of the permutation shaders/random/randperm.comp computes from `state`.
std::vector<int64_t> randperm_on_host(int64_t n, PhiloxState state);

// Draw `index` of randint(0, high) from `state` (int64), as shaders/random/random.comp computes it.
int64_t randint_on_host(int64_t high, PhiloxState state, uint64_t index);

// Draw `index` of a uniform double in [0, 1) from `state`: the block's first 53 bits over 2^53.
double uniform_on_host(PhiloxState state, uint64_t index);

}  // namespace ember::data::detail
