// Rows for the random draws. ember's generator is Philox and LibTorch's CPU one is a Mersenne twister,
// so values differ: these rows compare sizes and dtypes, and tests/tensor_random_test.cpp the
// distributions.
#include "tests/op_registry.h"

namespace ember::test {
namespace {

Tensor randperm_like(const Tensor& x) { return randperm(x.numel(), TensorOptions().device(x.device())); }
at::Tensor randperm_like(const at::Tensor& x) { return at::randperm(x.numel(), at::kLong); }

EMBER_OP_ROWS(random_rows) {
  return {
      op("uniform_", [](const auto& x) { return x[0].clone().uniform_(-1, 2); }).with_dtypes(kFloating).sizes_only(),
      op("normal_", [](const auto& x) { return x[0].clone().normal_(1, 3); }).with_dtypes(kFloating).sizes_only(),
      op("bernoulli_", [](const auto& x) { return x[0].clone().bernoulli_(0.3); })
          .with_dtypes(kAllTypes)
          .sizes_only(),
      op("bernoulli of probabilities", [](const auto& x) { return x[0].bernoulli(); })
          .with_dtypes(kFloating)
          .in_range(0, 1)
          .sizes_only(),
      op("random_", [](const auto& x) { return x[0].clone().random_(0, 10); }).with_dtypes(kNumeric).sizes_only(),
      op("exponential_", [](const auto& x) { return x[0].clone().exponential_(2); }).with_dtypes(kFloating).sizes_only(),
      op("geometric_", [](const auto& x) { return x[0].clone().geometric_(0.4); }).with_dtypes(kNumeric).sizes_only(),
      op("log_normal_", [](const auto& x) { return x[0].clone().log_normal_(0, 0.5); }).with_dtypes(kFloating).sizes_only(),
      op("cauchy_", [](const auto& x) { return x[0].clone().cauchy_(1, 2); }).with_dtypes(kFloating).sizes_only(),
      op("randperm", [](const auto& x) { return randperm_like(x[0]); }).sizes_only(),
      op("multinomial", [](const auto& x) { return multinomial(x[0], 3, true); })
          .with_cases({{{5}}, {{4, 7}}})
          .in_range(0.1, 1)
          .sizes_only(),
  };
}

}  // namespace
}  // namespace ember::test
