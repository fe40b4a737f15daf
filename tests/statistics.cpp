#include "tests/statistics.h"

#include <algorithm>
#include <cmath>

namespace ember::test {

double kolmogorov_smirnov(const at::Tensor& a, const at::Tensor& b) {
  const at::Tensor sa = std::get<0>(a.to(at::kDouble).flatten().sort());
  const at::Tensor sb = std::get<0>(b.to(at::kDouble).flatten().sort());
  const double* x = sa.data_ptr<double>();
  const double* y = sb.data_ptr<double>();
  const int64_t n = sa.numel(), m = sb.numel();
  int64_t i = 0, j = 0;
  double largest = 0;
  while (i < n && j < m) {
    const double at_value = std::min(x[i], y[j]);
    while (i < n && x[i] <= at_value) ++i;
    while (j < m && y[j] <= at_value) ++j;
    largest = std::max(largest, std::abs(double(i) / double(n) - double(j) / double(m)));
  }
  return largest;
}

double kolmogorov_smirnov_bound(int64_t n, int64_t m) {
  return 2.70 * std::sqrt(double(n + m) / (double(n) * double(m)));
}

}  // namespace ember::test
