// local_response_norm and channel_shuffle with their modules: values and gradients against LibTorch
// (torch::nn::functional::local_response_norm, at::channel_shuffle), PyTorch's messages, and Python's reprs.
#include <torch/torch.h>

#include "ember.h"
#include "tests/oracle.h"
#include "tests/python_oracle.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;

class ChannelNormTest : public BackendTest {
 protected:
  Tensor from(const at::Tensor& t) { return from_torch(t, device); }
};

TEST_P(ChannelNormTest, LocalResponseNormMatchesLibTorch) {
  struct Case {
    std::vector<int64_t> shape;
    int64_t size;
    double alpha, beta, k;
  };
  // 3, 4 and 5 dims; odd and even windows, one wider than the channels.
  const std::vector<Case> cases = {{{2, 5, 7}, 3, 1e-4, 0.75, 1.0},
                                   {{3, 6, 4, 5}, 2, 0.3, 0.5, 2.0},
                                   {{2, 4, 3, 2, 3}, 5, 0.1, 1.25, 0.5},
                                   {{1, 3, 4, 4}, 7, 1.0, 0.75, 1.0}};
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::PrintToString(c.shape) + " size " + std::to_string(c.size));
    at::Tensor xt = random_torch(c.shape, kFloat64, 1).requires_grad_(true);
    Tensor x = from(xt.detach()).requires_grad_(true);
    const at::Tensor expected = torch::nn::functional::local_response_norm(
        xt, torch::nn::functional::LocalResponseNormFuncOptions(c.size).alpha(c.alpha).beta(c.beta).k(c.k));
    const Tensor y =
        F::local_response_norm(x, F::LocalResponseNormFuncOptions(c.size).alpha(c.alpha).beta(c.beta).k(c.k));
    EXPECT_TENSOR_EQ(y, expected.detach(), 1e-12, 1e-12);
    EXPECT_EQ(y.grad_fn()->name(), expected.grad_fn()->name());
    const at::Tensor g = random_torch(c.shape, kFloat64, 2);
    expected.backward(g);
    y.backward(from(g));
    EXPECT_TENSOR_EQ(x.grad(), xt.grad(), 1e-12, 1e-12);
  }
  // The module, float32.
  const at::Tensor images = random_torch({2, 8, 5, 5}, kFloat32, 3);
  EXPECT_TENSOR_EQ(nn::LocalResponseNorm(nn::LocalResponseNormOptions(3).alpha(0.2))(from(images)),
                   torch::nn::LocalResponseNorm(torch::nn::LocalResponseNormOptions(3).alpha(0.2))(images), 1e-6, 1e-6);
  // Empty inputs come back as they are; too few dims get LibTorch's message.
  const Tensor empty = from(at::ones({0, 3, 2}));
  EXPECT_TRUE(F::local_response_norm(empty, 2).is_same(empty));
  const at::Tensor flat = at::ones({2, 3});
  expect_error<Error>([&] { F::local_response_norm(from(flat), 2); },
                      torch_error([&] { torch::nn::functional::local_response_norm(flat, 2); }));
}

TEST_P(ChannelNormTest, ChannelShuffleMatchesLibTorch) {
  for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{{2, 6, 3}, {1, 12, 2, 3}, {0, 4, 2}}) {
    for (const int64_t groups : {1, 2, 3}) {
      if (shape[1] % groups != 0) continue;
      SCOPED_TRACE(testing::PrintToString(shape) + " groups " + std::to_string(groups));
      const at::Tensor x = random_torch(shape, kFloat32, 4);
      EXPECT_TENSOR_EQ(F::channel_shuffle(from(x), groups), at::channel_shuffle(x, groups));
    }
  }
  // Its gradient, which PyTorch 1.13 lacks, is the inverse shuffle: the gradient of the composition
  // PyTorch 2 uses.
  at::Tensor xt = random_torch({2, 6, 2, 2}, kFloat64, 5).requires_grad_(true);
  Tensor x = from(xt.detach()).requires_grad_(true);
  const at::Tensor g = random_torch({2, 6, 2, 2}, kFloat64, 6);
  xt.reshape({2, 3, 2, 2, 2}).transpose(1, 2).reshape({2, 6, 2, 2}).backward(g);
  nn::ChannelShuffle(3)(x).backward(from(g));
  EXPECT_TENSOR_EQ(x.grad(), xt.grad());
  // PyTorch's messages.
  for (const auto& [sizes, groups] : std::vector<std::pair<std::vector<int64_t>, int64_t>>{
           {{4, 3}, 2}, {{1, 3, 2}, 2}, {{1, 4, 2}, 0}, {{1, 4, 2}, -2}}) {
    const at::Tensor bad = at::ones(sizes);
    expect_error<Error>([&] { F::channel_shuffle(from(bad), groups); },
                        torch_error([&] { at::channel_shuffle(bad, groups); }));
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, ChannelNormTest, testing::Values("vulkan", "cuda"), backend_test_name);

TEST(ChannelNormPythonTest, ReprsMatchPyTorch) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"torch.nn.LocalResponseNorm(2)", nn::LocalResponseNorm(2)->repr()},
      {"torch.nn.LocalResponseNorm(5, alpha=0.25, beta=2.0, k=0.5)",
       nn::LocalResponseNorm(nn::LocalResponseNormOptions(5).alpha(0.25).beta(2).k(0.5))->repr()},
      {"torch.nn.ChannelShuffle(4)", nn::ChannelShuffle(4)->repr()},
  };
  if (const std::string why = expect_python_prints(cases); !why.empty()) GTEST_SKIP() << why;
}

}  // namespace
}  // namespace ember::test
