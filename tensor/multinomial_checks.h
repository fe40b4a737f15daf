#pragma once
// torch.multinomial's checks of its probabilities (PyTorch 1.13 on the CPU), on values the host holds:
// ember::multinomial reads a bad input back to name its problem, and WeightedRandomSampler checks its
// weights with them when it is made.
#include <cstdint>
#include <span>
#include <string>

namespace ember::detail {

// PyTorch's message for a row whose probabilities sum to zero or less (an empty row included).
inline constexpr const char* kMultinomialBadSum = "invalid multinomial distribution (sum of probabilities <= 0)";

// The message PyTorch 1.13 throws first for `values` (`rows` rows of `categories`, row-major), or "" when
// they pass. Without replacement it checks the tensor as a whole (no negative, NaN or infinite entry),
// then every row's sum; with replacement its kernel goes row by row, each entry, then the row's sum.
std::string multinomial_problem(std::span<const double> values, int64_t rows, int64_t categories, bool replacement);

}  // namespace ember::detail
