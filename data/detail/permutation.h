#pragma once
// ember::randperm's permutation, computed on the host: RandomSampler draws its order here, so that an
// epoch starts without reading a device tensor back (which would wait for all queued work), and a seed
// gives the same order as ember::randperm(n, {}, &generator) does on any device.
#include <cstdint>
#include <vector>

#include "runtime/kernels/random.h"

namespace ember::data::detail {

// P(0), ..., P(n - 1) of the permutation shaders/random/randperm.comp computes from `state`.
std::vector<int64_t> randperm_on_host(int64_t n, PhiloxState state);

}  // namespace ember::data::detail
