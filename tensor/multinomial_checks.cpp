#include "tensor/multinomial_checks.h"

#include <algorithm>
#include <cmath>

namespace ember::detail {

std::string multinomial_problem(std::span<const double> values, int64_t rows, int64_t categories, bool replacement) {
  if (!replacement &&
      std::any_of(values.begin(), values.end(), [](double p) { return !(p >= 0) || std::isinf(p); })) {
    return "probability tensor contains either `inf`, `nan` or element < 0";
  }
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (const double p : values.subspan(static_cast<size_t>(r * categories), static_cast<size_t>(categories))) {
      // A NaN fails the first check, as in PyTorch's kernel.
      if (!(p >= 0)) return "invalid multinomial distribution (encountering probability entry < 0)";
      if (std::isinf(p)) return "invalid multinomial distribution (encountering probability entry = infinity or NaN)";
      sum += p;
    }
    if (!(sum > 0)) return kMultinomialBadSum;
  }
  return "";
}

}  // namespace ember::detail
