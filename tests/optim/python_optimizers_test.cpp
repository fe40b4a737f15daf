// What LibTorch 1.13 lacks, against Python's torch.optim: every optimizer's `maximize`, and Adamax, Adadelta,
// RAdam, Rprop, NAdam and ASGD (20 steps of parameter trajectories for several option sets, the state_dict's param
// groups and state keys, a state_dict round trip, and the messages for bad options). NAdam runs Python's
// multi-tensor path (foreach=True), whose formula PyTorch 2 kept (optim/nadam.h).
#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/optim/optim_oracle.h"
#include "tests/python_oracle.h"

namespace ember::test {
namespace {

namespace eo = ember::optim;

class PythonOptimizersTest : public BackendTest {};

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

// Adamax, Adadelta, RAdam, Rprop, NAdam and ASGD.
const std::vector<Case>& python_only_cases() {
  static const std::vector<Case> all = {
      {"torch.optim.Adamax(p)", [](const auto& p) { return std::make_unique<eo::Adamax>(p); }},
      {"torch.optim.Adamax(p, lr=0.01, betas=(0.8, 0.99), eps=1e-3, weight_decay=0.1, maximize=True)",
       [](const auto& p) {
         return std::make_unique<eo::Adamax>(
             p, eo::AdamaxOptions(0.01).betas({0.8, 0.99}).eps(1e-3).weight_decay(0.1).maximize(true));
       }},
      {"torch.optim.Adadelta(p)", [](const auto& p) { return std::make_unique<eo::Adadelta>(p); }},
      {"torch.optim.Adadelta(p, lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1, maximize=True)",
       [](const auto& p) {
         return std::make_unique<eo::Adadelta>(
             p, eo::AdadeltaOptions(0.5).rho(0.8).eps(1e-4).weight_decay(0.1).maximize(true));
       }},
      // rho_t passes 5 at step 6: steps 1 to 5 take the plain bias-corrected step, the rest the rectified one.
      {"torch.optim.RAdam(p, lr=0.01)", [](const auto& p) { return std::make_unique<eo::RAdam>(p, eo::RAdamOptions(0.01)); }},
      {"torch.optim.RAdam(p, lr=0.02, betas=(0.8, 0.9), eps=1e-6, weight_decay=0.1)",
       [](const auto& p) {
         return std::make_unique<eo::RAdam>(p, eo::RAdamOptions(0.02).betas({0.8, 0.9}).eps(1e-6).weight_decay(0.1));
       }},
      // The gradients change sign between steps, so step sizes grow, shrink and reach both bounds.
      {"torch.optim.Rprop(p)", [](const auto& p) { return std::make_unique<eo::Rprop>(p); }},
      {"torch.optim.Rprop(p, lr=0.05, etas=(0.3, 1.5), step_sizes=(0.01, 0.2), maximize=True)",
       [](const auto& p) {
         return std::make_unique<eo::Rprop>(
             p, eo::RpropOptions(0.05).etas({0.3, 1.5}).step_sizes({0.01, 0.2}).maximize(true));
       }},
      {"torch.optim.NAdam(p, foreach=True)", [](const auto& p) { return std::make_unique<eo::NAdam>(p); }},
      {"torch.optim.NAdam(p, lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1, momentum_decay=0.05, "
       "foreach=True)",
       [](const auto& p) {
         return std::make_unique<eo::NAdam>(
             p, eo::NAdamOptions(0.01).betas({0.8, 0.99}).eps(1e-6).weight_decay(0.1).momentum_decay(0.05));
       }},
      {"torch.optim.ASGD(p)", [](const auto& p) { return std::make_unique<eo::ASGD>(p); }},
      // eta decays by a visible amount per step, and averaging starts after step 3.
      {"torch.optim.ASGD(p, lr=0.05, lambd=0.05, alpha=0.5, t0=3, weight_decay=0.1, maximize=True)",
       [](const auto& p) {
         return std::make_unique<eo::ASGD>(
             p, eo::ASGDOptions(0.05).lambd(0.05).alpha(0.5).t0(3).weight_decay(0.1).maximize(true));
       }},
  };
  return all;
}

// `python` without its foreach=True: the param groups then hold foreach None, as ember's do.
std::string default_path(std::string python) {
  const std::string foreach = ", foreach=True";
  if (const size_t at = python.find(foreach); at != std::string::npos) python.erase(at, foreach.size());
  return python;
}

// These, and every optimizer's maximize.
const std::vector<Case>& trajectory_cases() {
  static const std::vector<Case> all = [] {
    std::vector<Case> cases = {
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
    cases.insert(cases.end(), python_only_cases().begin(), python_only_cases().end());
    return cases;
  }();
  return all;
}

// A matrix, a vector and one longer than a workgroup's tile of the Vulkan kernel (8192 elements), each
// with a ragged end, so that whole blocks, single elements and several workgroups are all stepped.
const std::vector<std::vector<int64_t>> kShapes = {{5, 7}, {13}, {9001}};

TEST_P(PythonOptimizersTest, TrajectoriesEqualPythons) {
  std::string script = R"(
import math
def wave(n, a, b):
    return torch.tensor([math.sin(a * i + b) for i in range(n)], dtype=torch.float32)
def run(make):
    p = [wave(35, 0.37, 0.1).reshape(5, 7).requires_grad_(), wave(13, 0.71, 0.3).requires_grad_(),
         wave(9001, 0.013, 0.2).requires_grad_()]
    opt = make(p)
    for k in range(20):
        for j, q in enumerate(p):
            q.grad = wave(q.numel(), 0.11 * (k + 1) + 0.05 * j, 0.3 * k).reshape(q.shape) + 0.5 * q.detach()
        opt.step()
    print(' '.join(repr(float(x)) for q in p for x in q.detach().flatten()))
    print('@@END@@')
)";
  for (const Case& c : trajectory_cases()) script += "run(lambda p: " + c.python + ")\n";
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, script, trajectory_cases().size());

  const TensorOptions f32 = TensorOptions().dtype(DType::Float32).device(device);
  const std::vector<std::pair<double, double>> starts = {{0.37, 0.1}, {0.71, 0.3}, {0.013, 0.2}};
  for (size_t c = 0; c < trajectory_cases().size(); ++c) {
    SCOPED_TRACE(trajectory_cases()[c].python);
    std::vector<Tensor> p;
    for (size_t j = 0; j < kShapes.size(); ++j) {
      const int64_t n = kShapes[j].size() == 2 ? kShapes[j][0] * kShapes[j][1] : kShapes[j][0];
      std::vector<float> values = wave(n, starts[j].first, starts[j].second);
      p.push_back(from_blob(values.data(), kShapes[j], f32).clone().requires_grad_(true));
    }
    std::unique_ptr<eo::Optimizer> opt = trajectory_cases()[c].ember(p);
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
    std::vector<float> actual;
    for (const Tensor& q : p) {
      for (float x : q.to_vector<float>()) actual.push_back(x);
    }
    ASSERT_EQ(actual.size(), expected.size());
    int reported = 0;
    for (size_t i = 0; i < actual.size() && reported < 10; ++i) {
      if (std::abs(actual[i] - expected[i]) > 1e-5 + 2e-5 * std::abs(expected[i])) {
        ADD_FAILURE() << "element " << i << ": " << actual[i] << " against Python's " << expected[i];
        ++reported;
      }
    }
  }
}

// After two steps (parameter 1 without a gradient, so without state), the param groups equal Python's as
// JSON values and the state holds Python's keys in Python's order.
TEST_P(PythonOptimizersTest, StateDictsMatchPythons) {
  std::string script = R"(
import json
def run(make):
    p = [torch.ones(3, requires_grad=True), torch.ones(2, 2, requires_grad=True)]
    opt = make(p)
    for k in range(2):
        p[0].grad = torch.full((3,), 0.5)
        opt.step()
    sd = opt.state_dict()
    print(json.dumps(sd['param_groups']))
    print('@@END@@')
    print(' '.join('state.%d.%s' % (i, k) for i in sorted(sd['state']) for k in sd['state'][i]) + ' ')
    print('@@END@@')
)";
  for (const Case& c : python_only_cases()) script += "run(lambda p: " + default_path(c.python) + ")\n";
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, script, 2 * python_only_cases().size());
  const TensorOptions f32 = TensorOptions().dtype(DType::Float32).device(device);
  for (size_t c = 0; c < python_only_cases().size(); ++c) {
    SCOPED_TRACE(python_only_cases()[c].python);
    std::vector<Tensor> p = {ones({3}, f32).requires_grad_(true), ones({2, 2}, f32).requires_grad_(true)};
    std::unique_ptr<eo::Optimizer> opt = python_only_cases()[c].ember(p);
    for (int k = 0; k < 2; ++k) {
      p[0].mutable_grad() = full({3}, 0.5, f32);
      opt->step();
    }
    const eo::OptimizerStateDict sd = opt->state_dict();
    EXPECT_EQ(nlohmann::json::parse(sd.param_groups_json), nlohmann::json::parse(answers[2 * c]))
        << sd.param_groups_json << "\n" << answers[2 * c];
    std::string keys;
    for (const auto& item : sd.tensors) keys += item.key() + " ";
    EXPECT_EQ(keys, answers[2 * c + 1]);
  }
}

// A state_dict round trip into a fresh optimizer continues the trajectory of the one that wrote it.
TEST_P(PythonOptimizersTest, StateDictRoundTripContinues) {
  const TensorOptions f32 = TensorOptions().dtype(DType::Float32).device(device);
  for (const Case& c : python_only_cases()) {
    SCOPED_TRACE(c.python);
    auto gradient = [&](const Tensor& q, int k) { return (q.detach() * 0.5 + 0.1 * k).sin(); };
    std::vector<Tensor> straight = {linspace(-1, 1, 37, f32).requires_grad_(true)};
    std::vector<Tensor> resumed = {straight[0].detach().clone().requires_grad_(true)};
    std::unique_ptr<eo::Optimizer> a = c.ember(straight);
    std::unique_ptr<eo::Optimizer> b = c.ember(resumed);
    for (int k = 0; k < 7; ++k) {
      straight[0].mutable_grad() = gradient(straight[0], k);
      a->step();
      if (k == 3) {
        std::unique_ptr<eo::Optimizer> fresh = c.ember(resumed);
        fresh->load_state_dict(b->state_dict());
        b = std::move(fresh);
      }
      resumed[0].mutable_grad() = gradient(resumed[0], k);
      b->step();
    }
    EXPECT_TRUE(straight[0].equal(resumed[0])) << straight[0] << resumed[0];
  }
}

// A NaN gradient stays in Adamax's infinity norm (torch.amax keeps it), so the element's exp_inf is NaN on
// the next steps too, where a plain max could return the other operand and let the element recover.
TEST_P(PythonOptimizersTest, AdamaxKeepsANaNInItsInfinityNorm) {
  const std::vector<std::vector<float>> grads = {{0.5f, NAN, -1, 0.25f, 2}, {0.25f, 1, 2, NAN, -3}, {1, 2, 3, 4, 5}};
  const std::string script = R"(
nan = float('nan')
p = torch.tensor([1., 2., 3., 4., 5.], requires_grad=True)
opt = torch.optim.Adamax([p])
for g in [[0.5, nan, -1, 0.25, 2], [0.25, 1, 2, nan, -3], [1, 2, 3, 4, 5]]:
    p.grad = torch.tensor(g, dtype=torch.float32)
    opt.step()
for t in [p.detach(), opt.state[p]['exp_avg'], opt.state[p]['exp_inf']]:
    print(' '.join(repr(float(x)) for x in t))
    print('@@END@@')
)";
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, script, 3);
  const TensorOptions f32 = TensorOptions().dtype(DType::Float32).device(device);
  std::vector<Tensor> p = {tensor({1.f, 2.f, 3.f, 4.f, 5.f}, f32).requires_grad_(true)};
  eo::Adamax opt(p);
  for (const std::vector<float>& g : grads) {
    p[0].mutable_grad() = tensor(g, f32);
    opt.step();
  }
  const OrderedDict<std::string, Tensor> state = opt.state(p[0]);
  const std::vector<Tensor> actual = {p[0].detach(), state["exp_avg"], state["exp_inf"]};
  for (size_t i = 0; i < actual.size(); ++i) {
    std::vector<double> expected;
    std::istringstream in(answers[i]);
    for (std::string word; in >> word;) expected.push_back(std::stod(word));
    const std::vector<float> values = actual[i].to_vector<float>();
    ASSERT_EQ(values.size(), expected.size());
    for (size_t j = 0; j < values.size(); ++j) {
      if (std::isnan(expected[j])) {
        EXPECT_TRUE(std::isnan(values[j])) << "tensor " << i << " element " << j << ": " << values[j];
      } else {
        EXPECT_NEAR(values[j], expected[j], 1e-6 * (1 + std::abs(expected[j]))) << "tensor " << i << " element " << j;
      }
    }
  }
}

// Python writes Rprop's etas into a tensor of the parameter's dtype and zeroes the gradient where the
// factor equals etaminus there. An etaminus that rounds to 1 (float32 0.99999999, bfloat16 0.999) then
// zeroes every gradient whose sign product is 0, the first step's included, so the parameter never moves.
TEST_P(PythonOptimizersTest, RpropRoundsItsEtasToTheParametersDtype) {
  struct Run {
    DType dtype;
    double etaminus;
    std::string python;  // run(dtype, etaminus)
  };
  const std::vector<Run> runs = {{kFloat32, 0.99999999, "run(torch.float32, 0.99999999)"},
                                 {kBFloat16, 0.999, "run(torch.bfloat16, 0.999)"},
                                 {kBFloat16, 0.3, "run(torch.bfloat16, 0.3)"}};
  std::string script = R"(
def run(dtype, etaminus):
    p = torch.tensor([-0.404, -0.623, 3., 0.5], dtype=dtype, requires_grad=True)
    opt = torch.optim.Rprop([p], lr=0.1, etas=(etaminus, 1.5))
    for k in range(3):
        p.grad = torch.tensor([0.5, -1., (-1) ** k, 0.25 * k], dtype=dtype)
        opt.step()
    for t in [p.detach(), opt.state[p]['step_size']]:
        print(' '.join(repr(float(x)) for x in t))
        print('@@END@@')
)";
  for (const Run& run : runs) script += run.python + "\n";
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, script, 2 * runs.size());
  for (size_t r = 0; r < runs.size(); ++r) {
    SCOPED_TRACE(runs[r].python);
    const TensorOptions options = TensorOptions().dtype(runs[r].dtype).device(device);
    std::vector<Tensor> p = {tensor({-0.404f, -0.623f, 3.f, 0.5f}).to(options).requires_grad_(true)};
    eo::Rprop opt(p, eo::RpropOptions(0.1).etas({runs[r].etaminus, 1.5}));
    for (int k = 0; k < 3; ++k) {
      p[0].mutable_grad() = tensor({0.5f, -1.f, k % 2 == 0 ? 1.f : -1.f, 0.25f * static_cast<float>(k)}).to(options);
      opt.step();
    }
    const std::vector<Tensor> actual = {p[0].detach(), opt.state(p[0])["step_size"]};
    for (size_t i = 0; i < actual.size(); ++i) {
      std::vector<double> expected;
      std::istringstream in(answers[2 * r + i]);
      for (double x; in >> x;) expected.push_back(x);
      const std::vector<double> values = actual[i].to_vector<double>();
      ASSERT_EQ(values.size(), expected.size());
      // The step size is rounded to the dtype before the parameter moves by it, as in Python, so bfloat16
      // runs agree to the bit too: moving the first element by the unrounded size of its third step lands
      // one bfloat16 ulp away in the last run.
      for (size_t j = 0; j < values.size(); ++j) {
        EXPECT_NEAR(values[j], expected[j], 1e-6 * std::abs(expected[j]))
            << (i == 0 ? "the parameter" : "step_size") << " element " << j;
      }
    }
  }
}

// NAdam's step scalars, `step` and the float32 product of the momentum caches, equal Python's after steps
// whose momentum_decay makes each cache differ.
TEST_P(PythonOptimizersTest, NAdamKeepsPythonsProductOfMomentumCaches) {
  const std::string script = R"(
p = torch.tensor([1., -2., 3.], requires_grad=True)
opt = torch.optim.NAdam([p], lr=0.01, momentum_decay=0.3, foreach=True)
for k in range(6):
    p.grad = torch.tensor([0.5, -1., 0.25 * k])
    opt.step()
print(repr(float(opt.state[p]['step'])), repr(float(opt.state[p]['mu_product'])))
print('@@END@@')
)";
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, script, 1);
  const TensorOptions f32 = TensorOptions().dtype(kFloat32).device(device);
  std::vector<Tensor> p = {tensor({1.f, -2.f, 3.f}, f32).requires_grad_(true)};
  eo::NAdam opt(p, eo::NAdamOptions(0.01).momentum_decay(0.3));
  for (int k = 0; k < 6; ++k) {
    p[0].mutable_grad() = tensor({0.5f, -1.f, 0.25f * static_cast<float>(k)}, f32);
    opt.step();
  }
  std::istringstream in(answers[0]);
  double step = 0, mu_product = 0;
  in >> step >> mu_product;
  const OrderedDict<std::string, Tensor> state = opt.state(p[0]);
  EXPECT_EQ(state["step"].item<float>(), step);
  // ember computes each cache in float32, Python in float64: a few float32 roundings apart.
  EXPECT_NEAR(state["mu_product"].item<float>(), mu_product, 2e-6 * std::abs(mu_product));
}

// ASGD's average `ax` and its step scalars, `step`, `eta` and `mu`, equal Python's after steps that decay
// eta and average from step 3 on, for float32 and float64 parameters (eta and mu are float32 in both).
TEST_P(PythonOptimizersTest, ASGDAveragesAsPython) {
  const std::string script = R"(
def run(dtype):
    p = torch.tensor([1., -2., 3., 0.5], dtype=dtype, requires_grad=True)
    opt = torch.optim.ASGD([p], lr=0.1, lambd=0.05, alpha=0.6, t0=2, weight_decay=0.1)
    for k in range(8):
        p.grad = torch.tensor([0.5, -1., 0.25 * k, -0.125 * k * k], dtype=dtype)
        opt.step()
    s = opt.state[p]
    for t in [p.detach(), s['ax'], torch.stack([s['step'], s['eta'], s['mu']])]:
        print(' '.join(repr(float(x)) for x in t))
        print('@@END@@')
run(torch.float32)
run(torch.float64)
)";
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, script, 6);
  const std::vector<DType> dtypes = {kFloat32, kFloat64};
  for (size_t r = 0; r < dtypes.size(); ++r) {
    SCOPED_TRACE(dtype_name(dtypes[r]));
    const TensorOptions options = TensorOptions().dtype(dtypes[r]).device(device);
    std::vector<Tensor> p = {tensor({1.f, -2.f, 3.f, 0.5f}).to(options).requires_grad_(true)};
    eo::ASGD opt(p, eo::ASGDOptions(0.1).lambd(0.05).alpha(0.6).t0(2).weight_decay(0.1));
    for (int k = 0; k < 8; ++k) {
      const float kf = static_cast<float>(k);
      p[0].mutable_grad() = tensor({0.5f, -1.f, 0.25f * kf, -0.125f * kf * kf}).to(options);
      opt.step();
    }
    const OrderedDict<std::string, Tensor> state = opt.state(p[0]);
    const std::vector<Tensor> actual = {p[0].detach(), state["ax"], stack({state["step"], state["eta"], state["mu"]})};
    for (size_t i = 0; i < actual.size(); ++i) {
      std::vector<double> expected;
      std::istringstream in(answers[3 * r + i]);
      for (double x; in >> x;) expected.push_back(x);
      const std::vector<double> values = actual[i].to_vector<double>();
      ASSERT_EQ(values.size(), expected.size());
      // Python computes 1 - lambd eta and the next eta in float64, the float32 kernel in float32.
      const double tolerance = dtypes[r] == kFloat64 && i < 2 ? 1e-12 : 1e-6;
      for (size_t j = 0; j < values.size(); ++j) {
        EXPECT_NEAR(values[j], expected[j], tolerance * std::abs(expected[j])) << "tensor " << i << " element " << j;
      }
    }
  }
}

TEST_P(PythonOptimizersTest, BadOptionsGetPythonsMessages) {
  const std::vector<Tensor> p = {ones({2}, TensorOptions().device(device)).requires_grad_(true)};
  const std::vector<std::pair<std::string, std::function<void()>>> bad = {
      {"torch.optim.Adamax(p, lr=-1)", [&] { eo::Adamax(p, eo::AdamaxOptions(-1)); }},
      {"torch.optim.Adamax(p, betas=(1, 0.9))", [&] { eo::Adamax(p, eo::AdamaxOptions().betas({1.0, 0.9})); }},
      {"torch.optim.RAdam(p, eps=-0.001)", [&] { eo::RAdam(p, eo::RAdamOptions().eps(-1e-3)); }},
      {"torch.optim.RAdam(p, betas=(0.9, -0.5))", [&] { eo::RAdam(p, eo::RAdamOptions().betas({0.9, -0.5})); }},
      {"torch.optim.Adadelta(p, rho=1.5)", [&] { eo::Adadelta(p, eo::AdadeltaOptions().rho(1.5)); }},
      {"torch.optim.Adadelta(p, weight_decay=-2)", [&] { eo::Adadelta(p, eo::AdadeltaOptions().weight_decay(-2)); }},
      {"torch.optim.Rprop(p, lr=-0.5)", [&] { eo::Rprop(p, eo::RpropOptions(-0.5)); }},
      {"torch.optim.Rprop(p, etas=(1.5, 2))", [&] { eo::Rprop(p, eo::RpropOptions().etas({1.5, 2.0})); }},
      {"torch.optim.Rprop(p, etas=(0.5, 0.9))", [&] { eo::Rprop(p, eo::RpropOptions().etas({0.5, 0.9})); }},
      {"torch.optim.NAdam(p, lr=-1)", [&] { eo::NAdam(p, eo::NAdamOptions(-1)); }},
      {"torch.optim.NAdam(p, momentum_decay=-0.5)", [&] { eo::NAdam(p, eo::NAdamOptions().momentum_decay(-0.5)); }},
      {"torch.optim.ASGD(p, lr=-1)", [&] { eo::ASGD(p, eo::ASGDOptions(-1)); }},
      {"torch.optim.ASGD(p, weight_decay=-0.5)", [&] { eo::ASGD(p, eo::ASGDOptions().weight_decay(-0.5)); }},
  };
  std::string script = "p = [torch.ones(2, requires_grad=True)]\n";
  for (const auto& [python, _] : bad) {
    script += "try:\n  " + python + "\n  print('no error')\nexcept ValueError as e:\n  print(e)\nprint('@@END@@')\n";
  }
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, script, bad.size());
  for (size_t i = 0; i < bad.size(); ++i) {
    SCOPED_TRACE(bad[i].first);
    expect_error<Error>(bad[i].second, answers[i]);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, PythonOptimizersTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
