// LBFGS against LibTorch's torch::optim::LBFGS: the same closures stepped by both, with and without the
// strong-Wolfe line search, with a history short enough to wrap; its state and state_dict round trip;
// Python's param group; and the errors, which leave the optimizer as it was.
#include <nlohmann/json.hpp>

#include "tests/optim/optim_oracle.h"
#include "tests/python_oracle.h"

namespace ember::test {
namespace {

namespace eo = ember::optim;
namespace to = torch::optim;

class LBFGSTest : public BackendTest {};

// The function both optimizers minimise, as a closure over each one's parameters.
struct Problem {
  std::vector<at::Tensor> start;  // the parameters' first values
  std::function<Tensor(const std::vector<Tensor>&)> ember_loss;
  std::function<at::Tensor(const std::vector<at::Tensor>&)> torch_loss;
};

// A least-squares fit of a 4x3 weight and a bias to 16 rows.
Problem least_squares(const std::shared_ptr<Device>& device, DType dtype = DType::Float32) {
  const at::Tensor x = random_torch({16, 4}, dtype, 11);
  const at::Tensor y = random_torch({16, 3}, dtype, 12);
  const Tensor ex = from_torch(x, device), ey = from_torch(y, device);
  return {{random_torch({4, 3}, dtype, 13), random_torch({3}, dtype, 14)},
          [ex, ey](const std::vector<Tensor>& p) { return (ex.matmul(p[0]) + p[1] - ey).pow(2).mean(); },
          [x, y](const std::vector<at::Tensor>& p) { return (x.matmul(p[0]) + p[1] - y).pow(2).mean(); }};
}

// The Rosenbrock function from (-1.5, 2), in float64: a curved valley where the line search works.
Problem rosenbrock() {
  return {{torch::tensor({-1.5, 2.0}, torch::kFloat64)},
          [](const std::vector<Tensor>& p) {
            const Tensor a = p[0].narrow(0, 0, 1), b = p[0].narrow(0, 1, 1);
            return ((1.0 - a).pow(2) + 100.0 * (b - a.pow(2)).pow(2)).sum();
          },
          [](const std::vector<at::Tensor>& p) {
            const at::Tensor a = p[0].narrow(0, 0, 1), b = p[0].narrow(0, 1, 1);
            return ((1.0 - a).pow(2) + 100.0 * (b - a.pow(2)).pow(2)).sum();
          }};
}

struct Pair {
  std::vector<Tensor> ember_params;
  std::vector<at::Tensor> torch_params;
  std::unique_ptr<eo::LBFGS> ember;
  std::unique_ptr<to::LBFGS> torch;
};

Pair make_pair_of(const std::shared_ptr<Device>& device, const Problem& problem, const eo::LBFGSOptions& ember_options,
                  const to::LBFGSOptions& torch_options) {
  Pair out;
  for (const at::Tensor& s : problem.start) {
    out.ember_params.push_back(from_torch(s, device).requires_grad_(true));
    out.torch_params.push_back(s.clone().requires_grad_(true));
  }
  out.ember = std::make_unique<eo::LBFGS>(out.ember_params, ember_options);
  out.torch = std::make_unique<to::LBFGS>(out.torch_params, torch_options);
  return out;
}

// One step of each; expects the same returned loss, parameters, counts and step length.
void step_both(Pair& p, const Problem& problem, int step, double rtol, double atol) {
  int ember_calls = 0;
  const Tensor ember_loss = p.ember->step([&] {
    ++ember_calls;
    p.ember->zero_grad();
    Tensor loss = problem.ember_loss(p.ember_params);
    loss.backward();
    return loss;
  });
  int torch_calls = 0;
  const at::Tensor torch_loss = p.torch->step([&] {
    ++torch_calls;
    p.torch->zero_grad();
    at::Tensor loss = problem.torch_loss(p.torch_params);
    loss.backward();
    return loss;
  });
  SCOPED_TRACE("step " + std::to_string(step));
  EXPECT_EQ(ember_calls, torch_calls);
  expect_tensor_eq(ember_loss.detach(), torch_loss.detach(), rtol, atol);
  for (size_t i = 0; i < p.ember_params.size(); ++i) expect_tensor_eq(p.ember_params[i].detach(), p.torch_params[i].detach(), rtol, atol);
  const auto& torch_state =
      static_cast<const to::LBFGSParamState&>(*p.torch->state().at(torch_state_key(p.torch_params[0])));
  const auto state = p.ember->state(p.ember_params[0]);
  EXPECT_EQ(state["func_evals"].item<int64_t>(), torch_state.func_evals());
  EXPECT_EQ(state["n_iter"].item<int64_t>(), torch_state.n_iter());
  EXPECT_NEAR(state["t"].item<double>(), torch_state.t(), std::max(atol, rtol * std::abs(torch_state.t())));
  expect_tensor_eq(state["d"], torch_state.d(), rtol, atol);
  EXPECT_TRUE(state.contains("old_dirs." + std::to_string(torch_state.old_dirs().size() - 1)));
  EXPECT_FALSE(state.contains("old_dirs." + std::to_string(torch_state.old_dirs().size())));
}

TEST_P(LBFGSTest, FixedStepsEqualLibTorchs) {
  const Problem problem = least_squares(device, DType::Float64);
  // A history of 3 over 2 x 4 iterations: the oldest pairs drop out from the fifth iteration on.
  Pair p = make_pair_of(device, problem, eo::LBFGSOptions(0.8).max_iter(4).history_size(3),
                        to::LBFGSOptions(0.8).max_iter(4).history_size(3));
  for (int k = 0; k < 2; ++k) step_both(p, problem, k, 1e-9, 1e-11);
  // In float32 the direction near the minimum is mostly rounding (ember's sums and LibTorch's BLAS differ in
  // their last bits), so one step of four iterations.
  const Problem single = least_squares(device);
  Pair q = make_pair_of(device, single, eo::LBFGSOptions(0.8).max_iter(4).history_size(3),
                        to::LBFGSOptions(0.8).max_iter(4).history_size(3));
  step_both(q, single, 0, 1e-4, 1e-5);
}

TEST_P(LBFGSTest, StrongWolfeEqualsLibTorchs) {
  const Problem ls = least_squares(device);
  Pair a = make_pair_of(device, ls, eo::LBFGSOptions().max_iter(5).line_search_fn("strong_wolfe"),
                        to::LBFGSOptions().max_iter(5).line_search_fn("strong_wolfe"));
  for (int k = 0; k < 2; ++k) step_both(a, ls, k, 1e-4, 1e-5);

  // Float64 keeps the two in step for longer: 25 iterations along Rosenbrock's valley, history 4.
  const Problem rb = rosenbrock();
  Pair b = make_pair_of(device, rb, eo::LBFGSOptions().max_iter(5).history_size(4).line_search_fn("strong_wolfe"),
                        to::LBFGSOptions().max_iter(5).history_size(4).line_search_fn("strong_wolfe"));
  for (int k = 0; k < 5; ++k) step_both(b, rb, k, 1e-9, 1e-11);
}

TEST_P(LBFGSTest, StateDictRoundTripContinuesTheTrajectory) {
  const Problem rb = rosenbrock();
  const auto options = eo::LBFGSOptions().max_iter(4).history_size(3).line_search_fn("strong_wolfe");
  Pair p = make_pair_of(device, rb, options, to::LBFGSOptions().max_iter(4).history_size(3).line_search_fn("strong_wolfe"));
  step_both(p, rb, 0, 1e-9, 1e-11);
  step_both(p, rb, 1, 1e-9, 1e-11);
  const eo::OptimizerStateDict saved = p.ember->state_dict();
  // Only the first parameter holds the state, under Python's names.
  for (const auto& item : saved.tensors) EXPECT_EQ(item.key().rfind("state.0.", 0), 0u) << item.key();
  EXPECT_TRUE(saved.tensors.contains("state.0.old_dirs.2"));

  std::vector<Tensor> copies = {p.ember_params[0].detach().clone().requires_grad_(true)};
  auto resumed = std::make_unique<eo::LBFGS>(copies, eo::LBFGSOptions(0.1));  // the lr comes from the dict
  resumed->load_state_dict(saved);
  EXPECT_EQ(static_cast<const eo::LBFGSOptions&>(resumed->param_groups()[0].options()).lr(), 1.0);
  p.ember = std::move(resumed);
  p.ember_params = copies;
  for (int k = 2; k < 4; ++k) step_both(p, rb, k, 1e-9, 1e-11);
}

// Python's param group for LBFGS: its ints, None and string options.
TEST_P(LBFGSTest, ParamGroupIsPythons) {
  const TensorOptions f32 = TensorOptions().dtype(DType::Float32).device(device);
  std::vector<Tensor> params = {ones({3}, f32).requires_grad_(true), ones({2}, f32).requires_grad_(true)};
  eo::LBFGS plain(params);
  eo::LBFGS searching(params, eo::LBFGSOptions(0.5).max_iter(7).history_size(10).line_search_fn("strong_wolfe"));
  const std::string script = R"(
import torch, json
params = [torch.ones(3, requires_grad=True), torch.ones(2, requires_grad=True)]
print(json.dumps(torch.optim.LBFGS(params).state_dict()['param_groups']))
print('@@END@@')
print(json.dumps(torch.optim.LBFGS(params, lr=0.5, max_iter=7, history_size=10, line_search_fn='strong_wolfe').state_dict()['param_groups']))
print('@@END@@')
)";
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, script, 2u);
  EXPECT_EQ(nlohmann::json::parse(plain.state_dict().param_groups_json), nlohmann::json::parse(answers[0]));
  EXPECT_EQ(nlohmann::json::parse(searching.state_dict().param_groups_json), nlohmann::json::parse(answers[1]));
  // And back: a group Python wrote sets every option.
  eo::OptimizerStateDict from_python;
  from_python.param_groups_json = answers[1];
  plain.load_state_dict(from_python);
  const auto& o = static_cast<const eo::LBFGSOptions&>(plain.param_groups()[0].options());
  EXPECT_EQ(o.lr(), 0.5);
  EXPECT_EQ(o.max_iter(), 7);
  EXPECT_EQ(o.max_eval(), std::optional<int64_t>(8));
  EXPECT_EQ(o.history_size(), 10);
  EXPECT_EQ(o.line_search_fn(), std::optional<std::string>("strong_wolfe"));
}

TEST_P(LBFGSTest, BadUsesGetMessagesAndChangeNothing) {
  const Problem ls = least_squares(device);
  Pair p = make_pair_of(device, ls, eo::LBFGSOptions().max_iter(3), to::LBFGSOptions().max_iter(3));
  step_both(p, ls, 0, 1e-4, 1e-5);
  const eo::OptimizerStateDict good = p.ember->state_dict();

  expect_error<Error>([&] { p.ember->step(); }, "LBFGS requires a closure function");
  expect_error<UnsupportedError>(
      [&] { p.ember->step_unless(zeros({1}, TensorOptions().device(device))); },
      "LBFGS cannot step with GradScaler: its closure re-evaluates the loss, which a scaled step cannot skip "
      "(PyTorch's GradScaler refuses closures too)");
  expect_error<Error>(
      [&] {
        eo::LBFGS two({eo::OptimizerParamGroup({p.ember_params[0]}), eo::OptimizerParamGroup({p.ember_params[1]})});
      },
      "LBFGS doesn't support per-parameter options (parameter groups)");
  bool called = false;
  static_cast<eo::LBFGSOptions&>(p.ember->param_groups()[0].options()).line_search_fn("backtracking");
  expect_error<Error>([&] { p.ember->step([&] { called = true; return Tensor(); }); }, "only 'strong_wolfe' is supported");
  EXPECT_FALSE(called);
  static_cast<eo::LBFGSOptions&>(p.ember->param_groups()[0].options()).line_search_fn(std::nullopt);
  {
    Tensor f64 = zeros({2}, TensorOptions().dtype(DType::Float64).device(device)).requires_grad_(true);
    eo::LBFGS mixed({p.ember_params[0].detach().clone().requires_grad_(true), f64});
    expect_error<Error>([&] { mixed.step([&] { called = true; return Tensor(); }); },
                        "LBFGS: all parameters must be on one device with one dtype; parameter 1 is float64 on " +
                            device->spec() + ", parameter 0 float32 on " + device->spec());
    EXPECT_FALSE(called);
  }

  eo::OptimizerStateDict elsewhere = good;
  elsewhere.tensors.insert("state.1.d", good.tensors["state.0.d"]);
  expect_error<Error>([&] { p.ember->load_state_dict(elsewhere); },
                      "load_state_dict: LBFGS keeps its state under the first parameter, not parameter 1 of group 0");
  eo::OptimizerStateDict no_count;
  no_count.param_groups_json = good.param_groups_json;
  for (const auto& item : good.tensors) {
    if (item.key() != "state.0.n_iter") no_count.tensors.insert(item.key(), item.value());
  }
  expect_error<Error>([&] { p.ember->load_state_dict(no_count); }, "load_state_dict: LBFGS's state lacks 'n_iter'");
  size_t pairs = 0;
  while (good.tensors.contains("state.0.old_dirs." + std::to_string(pairs))) ++pairs;
  ASSERT_GT(pairs, 0u);
  eo::OptimizerStateDict gap = good;
  gap.tensors.insert("state.0.ro.7", good.tensors["state.0.ro.0"]);
  expect_error<Error>([&] { p.ember->load_state_dict(gap); },
                      "load_state_dict: LBFGS's state: old_dirs, old_stps and ro must number the same entries from 0; "
                      "old_dirs has " + std::to_string(pairs) + ", ro has " + std::to_string(pairs + 1));
  eo::OptimizerStateDict short_d = good;
  short_d.tensors["state.0.d"] = zeros({4}, TensorOptions().device(device));
  expect_error<Error>([&] { p.ember->load_state_dict(short_d); },
                      "load_state_dict: LBFGS's state: 'd' has 4 elements, expected 15");
  eo::OptimizerStateDict stranger = good;
  stranger.tensors.insert("state.0.exp_avg", good.tensors["state.0.d"]);
  expect_error<Error>([&] { p.ember->load_state_dict(stranger); },
                      "load_state_dict: LBFGS's state has 'exp_avg', which LBFGS does not keep");
  // Nothing changed: the next step is still LibTorch's.
  step_both(p, ls, 1, 1e-4, 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Backends, LBFGSTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
