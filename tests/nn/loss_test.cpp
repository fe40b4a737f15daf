// Loss modules, and what the rows in tests/ops/loss.cpp cannot say: error messages, buffers, and
// gaussian_nll_loss, which LibTorch's C++ API lacks (Python is its oracle).
#include <torch/torch.h>

#include <cmath>

#include "ember.h"
#include "tests/oracle.h"
#include "tests/python_oracle.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;

class LossTest : public BackendTest {
 protected:
  Tensor from(const at::Tensor& t) { return from_torch(t, device); }
};

TEST_P(LossTest, ModulesCallTheirFunctional) {
  const at::Tensor x = random_torch({4, 3}, kFloat32, 1), y = random_torch({4, 3}, kFloat32, 2);
  EXPECT_TENSOR_EQ(nn::MSELoss(ember::kSum)(from(x), from(y)), torch::nn::MSELoss(torch::kSum)(x, y));
  EXPECT_TENSOR_EQ(nn::L1Loss()(from(x), from(y)), torch::nn::L1Loss()(x, y));
  EXPECT_TENSOR_EQ(nn::HuberLoss(nn::HuberLossOptions().delta(0.3))(from(x), from(y)),
                   torch::nn::HuberLoss(torch::nn::HuberLossOptions().delta(0.3))(x, y));
  const at::Tensor logits = random_torch({4, 3}, kFloat32, 3), probabilities = at::rand({4, 3});
  const at::Tensor pos_weight = at::rand({3}) + 0.5;
  nn::BCEWithLogitsLoss ours(nn::BCEWithLogitsLossOptions().pos_weight(from(pos_weight)));
  torch::nn::BCEWithLogitsLoss theirs(torch::nn::BCEWithLogitsLossOptions().pos_weight(pos_weight));
  EXPECT_TENSOR_EQ(ours(from(logits), from(probabilities)), theirs(logits, probabilities));
  // Weights are buffers, as Python registers them: they follow to() and appear in the state dict.
  EXPECT_EQ(ours->state_dict().keys(), (std::vector<std::string>{"pos_weight"}));
  ours->to(kFloat64);
  EXPECT_EQ(ours->pos_weight.dtype(), kFloat64);
  EXPECT_EQ(nn::MSELoss()->state_dict().size(), 0u);
}

TEST_P(LossTest, CrossEntropyAndNllModulesMatchLibTorch) {
  const at::Tensor logits = random_torch({6, 4, 3}, kFloat32, 4);
  const at::Tensor labels = at::tensor({0, 3, 1, 2, 2, 0, 3, 3, 1, 0, -100, 2, 1, 1, 0, 2, 3, 0}, at::kLong).view({6, 3});
  const at::Tensor weight = at::rand({4}) + 0.5;
  nn::CrossEntropyLoss ours(nn::CrossEntropyLossOptions().weight(from(weight)).label_smoothing(0.1));
  torch::nn::CrossEntropyLoss theirs(torch::nn::CrossEntropyLossOptions().weight(weight).label_smoothing(0.1));
  Tensor x = from(logits).requires_grad_(true);
  at::Tensor xt = logits.clone().requires_grad_(true);
  const Tensor loss = ours(x, from(labels));
  const at::Tensor expected = theirs(xt, labels);
  EXPECT_TENSOR_EQ(loss, expected.detach(), 1e-5, 1e-6);
  loss.backward();
  expected.backward();
  EXPECT_TENSOR_EQ(x.grad(), xt.grad(), 1e-5, 1e-6);
  EXPECT_EQ(ours->state_dict().keys(), (std::vector<std::string>{"weight"}));
  EXPECT_EQ(nn::CrossEntropyLoss()->state_dict().size(), 0u);
  // Class probabilities as targets.
  const at::Tensor probabilities = at::softmax(random_torch({6, 4, 3}, kFloat32, 5), 1);
  EXPECT_TENSOR_EQ(nn::CrossEntropyLoss(nn::CrossEntropyLossOptions().reduction(ember::kSum))(from(logits), from(probabilities)),
                   torch::nn::CrossEntropyLoss(torch::nn::CrossEntropyLossOptions().reduction(torch::kSum))(logits, probabilities),
                   1e-5, 1e-5);
  const at::Tensor log_probabilities = at::log_softmax(logits, 1);
  nn::NLLLoss nll(nn::NLLLossOptions().ignore_index(2).reduction(ember::kNone));
  torch::nn::NLLLoss their_nll(torch::nn::NLLLossOptions().ignore_index(2).reduction(torch::kNone));
  EXPECT_TENSOR_EQ(nll(from(log_probabilities), from(labels.clamp_min(0))), their_nll(log_probabilities, labels.clamp_min(0)),
                   1e-6, 1e-6);
  const at::Tensor out_of_range = at::tensor({0, 4}, at::kLong);
  expect_error<Error>([&] { nn::NLLLoss()(from(log_probabilities.select(2, 0).narrow(0, 0, 2)), from(out_of_range)).item<float>(); },
                      "Target 4 is out of bounds.");
}

TEST_P(LossTest, BadInputGetsPyTorchsMessage) {
  const at::Tensor x = at::rand({3, 2}), y = at::rand({3});
  expect_error<Error>([&] { F::binary_cross_entropy(from(x), from(y)); },
                      torch_error([&] { torch::nn::functional::binary_cross_entropy(x, y); }));
  // Probabilities outside [0, 1], NaN included: PyTorch refuses them rather than return a NaN loss.
  for (const double bad : {1.5, -0.25, std::nan("")}) {
    SCOPED_TRACE(bad);
    at::Tensor p = at::rand({3, 2});
    p[1][0] = bad;
    const at::Tensor t = at::rand({3, 2});
    const std::string expected = torch_error([&] { torch::nn::functional::binary_cross_entropy(p, t); });
    ASSERT_FALSE(expected.empty());
    expect_error<Error>([&] { F::binary_cross_entropy(from(p), from(t)); }, expected);
  }
  // Exactly 0 and 1 are probabilities.
  EXPECT_NO_THROW(F::binary_cross_entropy(from(at::tensor({0.0f, 1.0f})), from(at::tensor({0.0f, 1.0f}))));
  const at::Tensor classes = at::tensor({0, 1, 1}, at::kLong);
  expect_error<Error>([&] { F::multi_margin_loss(from(x), from(classes), F::MultiMarginLossFuncOptions().p(3)); },
                      torch_error([&] {
                        torch::nn::functional::multi_margin_loss(x, classes,
                                                                 torch::nn::functional::MultiMarginLossFuncOptions().p(3));
                      }));
}

INSTANTIATE_TEST_SUITE_P(Backends, LossTest, testing::Values("vulkan", "cuda"), backend_test_name);

TEST(LossPythonTest, GaussianNllLossAndReprsMatchPyTorch) {
  // Each case: PyTorch's expression over x, y and var, and ember's.
  struct Case {
    std::string python;
    std::function<Tensor(const Tensor&, const Tensor&, const Tensor&)> ember;
    std::vector<int64_t> var_shape;
  };
  const std::vector<Case> cases = {
      {"F.gaussian_nll_loss(x, y, v)", [](auto& x, auto& y, auto& v) { return F::gaussian_nll_loss(x, y, v); }, {4, 3}},
      {"F.gaussian_nll_loss(x, y, v, full=True, reduction='sum')",
       [](auto& x, auto& y, auto& v) {
         return F::gaussian_nll_loss(x, y, v, F::GaussianNLLLossFuncOptions().full(true).reduction(ember::kSum));
       },
       {4}},
      {"F.gaussian_nll_loss(x, y, v, reduction='none', eps=0.5)",
       [](auto& x, auto& y, auto& v) {
         return F::gaussian_nll_loss(x, y, v, F::GaussianNLLLossFuncOptions().eps(0.5).reduction(ember::kNone));
       },
       {4, 1}},
  };
  std::string script = "import torch.nn.functional as F\n";
  std::vector<Tensor> ours;
  for (size_t i = 0; i < cases.size(); ++i) {
    const at::Tensor x = random_torch({4, 3}, kFloat64, 10 + i), y = random_torch({4, 3}, kFloat64, 20 + i);
    const at::Tensor v = random_torch(cases[i].var_shape, kFloat64, 30 + i, 0.1, 2);
    script += "x = " + python_tensor(x) + "\ny = " + python_tensor(y) + "\nv = " + python_tensor(v) + "\n";
    script += "print(repr(" + cases[i].python + ".flatten().tolist()))\nprint('@@END@@')\n";
    const auto device = default_device();
    ours.push_back(cases[i].ember(from_torch(x, device), from_torch(y, device), from_torch(v, device)));
  }
  const std::vector<std::pair<std::string, std::string>> reprs = {
      {"torch.nn.MSELoss()", nn::MSELoss()->repr()},
      {"torch.nn.BCEWithLogitsLoss()", nn::BCEWithLogitsLoss()->repr()},
      {"torch.nn.TripletMarginLoss()", nn::TripletMarginLoss()->repr()},
      {"torch.nn.CTCLoss()", nn::CTCLoss()->repr()},
  };
  for (const auto& [python, _] : reprs) script += "print(" + python + ")\nprint('@@END@@')\n";
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, script, cases.size() + reprs.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].python);
    const std::vector<double> expected = python_numbers(answers[i]);
    const std::vector<double> got = ours[i].flatten().to_vector<double>();
    ASSERT_EQ(got.size(), expected.size());
    for (size_t j = 0; j < got.size(); ++j) EXPECT_NEAR(got[j], expected[j], 1e-12 * (1 + std::abs(expected[j])));
  }
  for (size_t i = 0; i < reprs.size(); ++i) EXPECT_EQ(reprs[i].second, answers[cases.size() + i]);
  expect_no_validation_messages();
}

}  // namespace
}  // namespace ember::test
