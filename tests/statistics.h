#pragma once
// Statistics for tests of random draws against LibTorch's.
#include <ATen/ATen.h>

namespace ember::test {

// The two-sample Kolmogorov-Smirnov statistic of two 1-d samples: the largest gap between their
// empirical distribution functions. Equal values count together, so discrete samples compare too.
double kolmogorov_smirnov(const at::Tensor& a, const at::Tensor& b);

// The statistic's bound at a significance of 1e-6 (c = sqrt(-ln(1e-6 / 2) / 2) = 2.70) for samples of
// sizes n and m: a seeded run that passes keeps passing, and a wrong distribution fails.
double kolmogorov_smirnov_bound(int64_t n, int64_t m);

}  // namespace ember::test
