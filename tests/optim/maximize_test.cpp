// maximize, which LibTorch 1.13 lacks, against Python's torch.optim over 20 steps.
#include <cmath>
#include <sstream>

#include "tests/optim/optim_oracle.h"
#include "tests/python_oracle.h"

namespace ember::test {
namespace {

namespace eo = ember::optim;

class OptimizerMaximizeTest : public BackendTest {};

// sin(a i + b) for i < n, rounded to float32 once: Python builds the same values.
std::vector<float> wave(int64_t n, double a, double b) {
  std::vector<float> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = static_cast<float>(std::sin(a * static_cast<double>(i) + b));
  return out;
}

struct Case {
  std::string python;  // a constructor of torch.optim applied to `p`
  std::function<std::unique_ptr<eo::Optimizer>(const std::vector<Tensor>&)> ember;
};

TEST_P(OptimizerMaximizeTest, TrajectoriesEqualPythons) {
  const std::vector<Case> cases = {
      {"torch.optim.SGD(p, lr=0.05, momentum=0.9, weight_decay=0.1, maximize=True)",
       [](const auto& p) { return std::make_unique<eo::SGD>(p, eo::SGDOptions(0.05).momentum(0.9).weight_decay(0.1).maximize(true)); }},
      {"torch.optim.Adam(p, lr=0.01, weight_decay=0.1, amsgrad=True, maximize=True)",
       [](const auto& p) { return std::make_unique<eo::Adam>(p, eo::AdamOptions(0.01).weight_decay(0.1).amsgrad(true).maximize(true)); }},
      {"torch.optim.AdamW(p, lr=0.01, maximize=True)",
       [](const auto& p) { return std::make_unique<eo::AdamW>(p, eo::AdamWOptions(0.01).maximize(true)); }},
      {"torch.optim.RMSprop(p, lr=0.01, momentum=0.5, centered=True, weight_decay=0.01, maximize=True)",
       [](const auto& p) {
         return std::make_unique<eo::RMSprop>(p, eo::RMSpropOptions(0.01).momentum(0.5).centered(true).weight_decay(0.01).maximize(true));
       }},
      {"torch.optim.Adagrad(p, lr=0.1, lr_decay=0.01, weight_decay=0.1, maximize=True)",
       [](const auto& p) { return std::make_unique<eo::Adagrad>(p, eo::AdagradOptions(0.1).lr_decay(0.01).weight_decay(0.1).maximize(true)); }},
  };
  std::string script = R"(
import math
def wave(n, a, b):
    return torch.tensor([math.sin(a * i + b) for i in range(n)], dtype=torch.float32)
def run(make):
    p = [wave(35, 0.37, 0.1).reshape(5, 7).requires_grad_(), wave(13, 0.71, 0.3).requires_grad_()]
    opt = make(p)
    for k in range(20):
        for j, q in enumerate(p):
            q.grad = wave(q.numel(), 0.11 * (k + 1) + 0.05 * j, 0.3 * k).reshape(q.shape) + 0.5 * q.detach()
        opt.step()
    print(' '.join(repr(float(x)) for q in p for x in q.detach().flatten()))
    print('@@END@@')
)";
  for (const Case& c : cases) script += "run(lambda p: " + c.python + ")\n";
  std::string unavailable;
  const std::vector<std::string> answers = python_answers(script, unavailable);
  if (!unavailable.empty()) GTEST_SKIP() << unavailable;
  ASSERT_EQ(answers.size(), cases.size()) << (answers.empty() ? "" : answers.back());

  const TensorOptions f32 = TensorOptions().dtype(DType::Float32).device(device);
  for (size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE(cases[c].python);
    std::vector<float> w0 = wave(35, 0.37, 0.1), w1 = wave(13, 0.71, 0.3);
    std::vector<Tensor> p = {from_blob(w0.data(), {5, 7}, f32).requires_grad_(true),
                             from_blob(w1.data(), {13}, f32).requires_grad_(true)};
    std::unique_ptr<eo::Optimizer> opt = cases[c].ember(p);
    for (int k = 0; k < 20; ++k) {
      for (size_t j = 0; j < p.size(); ++j) {
        std::vector<float> g = wave(p[j].numel(), 0.11 * (k + 1) + 0.05 * static_cast<double>(j), 0.3 * k);
        p[j].mutable_grad() = from_blob(g.data(), p[j].sizes(), f32) + p[j].detach() * 0.5;
      }
      opt->step();
    }
    std::vector<double> expected;
    std::istringstream in(answers[c]);
    for (double x; in >> x;) expected.push_back(x);
    std::vector<float> actual = p[0].to_vector<float>();
    for (float x : p[1].to_vector<float>()) actual.push_back(x);
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i) {
      EXPECT_NEAR(actual[i], expected[i], 1e-5 + 2e-5 * std::abs(expected[i])) << "element " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, OptimizerMaximizeTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
