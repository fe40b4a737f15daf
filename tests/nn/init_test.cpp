// nn::init against LibTorch's torch::nn::init: deterministic initialisers give LibTorch's values, random
// ones keep PyTorch's bounds and moments (the generators differ, so values cannot match).
#include <torch/torch.h>

#include <cmath>

#include "ember.h"
#include "tests/oracle.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

namespace init = ember::nn::init;

class InitTest : public BackendTest {
 protected:
  Tensor make(IntArrayRef sizes) { return empty(sizes, TensorOptions().device(device)); }

  // Mean and variance of the values, with their ranges.
  struct Moments {
    double mean = 0, variance = 0, low = 0, high = 0;
  };
  static Moments moments(const Tensor& t) {
    const std::vector<double> v = t.flatten().to_vector<double>();
    Moments m{0, 0, v.front(), v.front()};
    for (double x : v) {
      m.mean += x;
      m.low = std::min(m.low, x);
      m.high = std::max(m.high, x);
    }
    m.mean /= double(v.size());
    for (double x : v) m.variance += (x - m.mean) * (x - m.mean);
    m.variance /= double(v.size());
    return m;
  }
};

TEST_P(InitTest, GainsAndFansMatchLibTorch) {
  EXPECT_DOUBLE_EQ(init::calculate_gain(ember::kLinear), torch::nn::init::calculate_gain(torch::kLinear));
  EXPECT_DOUBLE_EQ(init::calculate_gain(ember::kConv2D), torch::nn::init::calculate_gain(torch::kConv2D));
  EXPECT_DOUBLE_EQ(init::calculate_gain(ember::kSigmoid), torch::nn::init::calculate_gain(torch::kSigmoid));
  EXPECT_DOUBLE_EQ(init::calculate_gain(ember::kTanh), torch::nn::init::calculate_gain(torch::kTanh));
  EXPECT_DOUBLE_EQ(init::calculate_gain(ember::kReLU), torch::nn::init::calculate_gain(torch::kReLU));
  EXPECT_DOUBLE_EQ(init::calculate_gain(ember::kLeakyReLU), torch::nn::init::calculate_gain(torch::kLeakyReLU));
  EXPECT_DOUBLE_EQ(init::calculate_gain(ember::kLeakyReLU, 0.2), torch::nn::init::calculate_gain(torch::kLeakyReLU, 0.2));
  EXPECT_DOUBLE_EQ(init::calculate_gain(ember::kSELU), 0.75);  // Python's value; LibTorch 1.13 lacks selu
  for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{{5, 3}, {8, 4, 3, 3}, {2, 6, 5}}) {
    const auto [fan_in, fan_out] = init::_calculate_fan_in_and_fan_out(make(shape));
    const auto [torch_in, torch_out] = torch::nn::init::_calculate_fan_in_and_fan_out(at::empty(shape));
    EXPECT_EQ(fan_in, torch_in);
    EXPECT_EQ(fan_out, torch_out);
  }
  expect_error<Error>([&] { init::_calculate_fan_in_and_fan_out(make({4})); },
                      "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
}

TEST_P(InitTest, DeterministicInitialisersGiveLibTorchsValues) {
  EXPECT_TENSOR_EQ(init::eye_(make({3, 5})), torch::nn::init::eye_(at::empty({3, 5})));
  EXPECT_TENSOR_EQ(init::constant_(make({2, 3}), 0.25), torch::nn::init::constant_(at::empty({2, 3}), 0.25));
  EXPECT_TENSOR_EQ(init::ones_(make({4})), torch::nn::init::ones_(at::empty({4})));
  EXPECT_TENSOR_EQ(init::zeros_(make({4})), torch::nn::init::zeros_(at::empty({4})));
  for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{{4, 4, 3}, {6, 3, 3, 3}, {4, 2, 3, 3, 3}}) {
    EXPECT_TENSOR_EQ(init::dirac_(make(shape)), torch::nn::init::dirac_(at::empty(shape)));
  }
  // LibTorch 1.13's dirac_ has no groups: three groups of two output channels each are three dirac_s.
  const at::Tensor grouped = at::cat({torch::nn::init::dirac_(at::empty({2, 2, 3, 3})), torch::nn::init::dirac_(at::empty({2, 2, 3, 3})),
                                      torch::nn::init::dirac_(at::empty({2, 2, 3, 3}))});
  EXPECT_TENSOR_EQ(init::dirac_(make({6, 2, 3, 3}), 3), grouped);
  expect_error<Error>([&] { init::eye_(make({2, 2, 2})); }, "Only tensors with 2 dimensions are supported");
}

TEST_P(InitTest, RandomInitialisersFollowPyTorchsRules) {
  const int64_t fan_in = 300, fan_out = 200;
  {
    const double bound = std::sqrt(6.0 / double(fan_in + fan_out));
    const Moments m = moments(init::xavier_uniform_(make({fan_out, fan_in})));
    EXPECT_GE(m.low, -bound);
    EXPECT_LE(m.high, bound);
    EXPECT_NEAR(m.variance, bound * bound / 3, 0.03 * bound * bound / 3);
  }
  {
    const double std = 1.5 * std::sqrt(2.0 / double(fan_in + fan_out));
    const Moments m = moments(init::xavier_normal_(make({fan_out, fan_in}), 1.5));
    EXPECT_NEAR(std::sqrt(m.variance), std, 0.02 * std);
  }
  {
    const double bound = std::sqrt(3.0) * std::sqrt(2.0) / std::sqrt(double(fan_out));
    const Moments m = moments(init::kaiming_uniform_(make({fan_out, fan_in}), 0, ember::kFanOut, ember::kReLU));
    EXPECT_GE(m.low, -bound);
    EXPECT_LE(m.high, bound);
    EXPECT_NEAR(m.variance, bound * bound / 3, 0.03 * bound * bound / 3);
  }
  {
    const double std = init::calculate_gain(ember::kLeakyReLU, 0.1) / std::sqrt(double(fan_in));
    const Moments m = moments(init::kaiming_normal_(make({fan_out, fan_in}), 0.1));
    EXPECT_NEAR(std::sqrt(m.variance), std, 0.02 * std);
  }
  {
    const Moments m = moments(init::trunc_normal_(make({200, 300}), 1.0, 2.0, -1.0, 2.5));
    EXPECT_GE(m.low, -1.0);
    EXPECT_LE(m.high, 2.5);
    // The truncated normal's mean: mu + sigma (phi(alpha) - phi(beta)) / (Phi(beta) - Phi(alpha)).
    auto phi = [](double x) { return std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI); };
    auto cdf = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
    const double alpha = (-1.0 - 1.0) / 2.0, beta = (2.5 - 1.0) / 2.0;
    EXPECT_NEAR(m.mean, 1.0 + 2.0 * (phi(alpha) - phi(beta)) / (cdf(beta) - cdf(alpha)), 0.02);
  }
  {
    const Moments m = moments(init::uniform_(make({100, 100}), -2, 3));
    EXPECT_GE(m.low, -2);
    EXPECT_LE(m.high, 3);
    EXPECT_NEAR(m.mean, 0.5, 0.05);
  }
}

TEST_P(InitTest, OrthogonalRowsOrColumnsAreOrthonormal) {
  for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{{6, 4}, {4, 6}, {5, 5}, {3, 2, 2}}) {
    SCOPED_TRACE(to_string(shape));
    const Tensor w = init::orthogonal_(make(shape), 2.0).reshape({shape[0], -1}).to(kFloat64);
    const bool wide = w.size(0) < w.size(1);
    const Tensor gram = wide ? w.matmul(w.t()) : w.t().matmul(w);
    const int64_t n = gram.size(0);
    EXPECT_TRUE(gram.allclose(eye(n, TensorOptions().dtype(kFloat64).device(device)) * 4.0, 1e-5, 1e-5));
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, InitTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
