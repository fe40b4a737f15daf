// The optimizers' state_dict: Python's layout (checked against Python's own), a round trip that continues
// the same trajectory as LibTorch, and loads that fail without changing anything.
#include <nlohmann/json.hpp>

#include "tests/optim/optim_oracle.h"
#include "tests/python_oracle.h"

namespace ember::test {
namespace {

namespace eo = ember::optim;
namespace to = torch::optim;

class OptimizerStateDictTest : public BackendTest {};

// Copies of `params` (values and layout) as new leaves.
std::vector<Tensor> copies(const std::vector<Tensor>& params) {
  std::vector<Tensor> out;
  for (const Tensor& p : params) {
    Tensor c = empty_strided(p.sizes(), p.strides(), TensorOptions().dtype(p.dtype()).device(p.device()));
    c.copy_(p.detach());
    c.requires_grad_(true);
    out.push_back(c);
  }
  return out;
}

// Steps 10 times, moves the state into a fresh optimizer over copies of the parameters, and expects the
// next 10 steps equal to LibTorch's uninterrupted trajectory.
template <class EmberOpt>
void expect_round_trip(const std::shared_ptr<Device>& device, const EmberOptimizerFactory& make_ember,
                       const TorchOptimizerFactory& make_torch) {
  Trajectory t = expect_same_trajectory(device, make_ember, make_torch, 10);
  const eo::OptimizerStateDict saved = t.ember->state_dict();
  std::vector<Tensor> params = copies(t.ember_params);
  std::unique_ptr<eo::Optimizer> resumed = make_ember(params);
  resumed->load_state_dict(saved);
  t.ember = std::move(resumed);
  t.ember_params = params;
  continue_trajectory(t, 10, 10);
}

TEST_P(OptimizerStateDictTest, RoundTripContinuesTheTrajectory) {
  expect_round_trip<eo::Adam>(
      device, [](const std::vector<Tensor>& p) { return std::make_unique<eo::Adam>(p, eo::AdamOptions(1e-2).amsgrad(true)); },
      [](const std::vector<at::Tensor>& p) { return std::make_unique<to::Adam>(p, to::AdamOptions(1e-2).amsgrad(true)); });
  expect_round_trip<eo::SGD>(
      device,
      [](const std::vector<Tensor>& p) { return std::make_unique<eo::SGD>(p, eo::SGDOptions(0.05).momentum(0.9).dampening(0.2)); },
      [](const std::vector<at::Tensor>& p) { return std::make_unique<to::SGD>(p, to::SGDOptions(0.05).momentum(0.9).dampening(0.2)); });
  expect_round_trip<eo::RMSprop>(
      device,
      [](const std::vector<Tensor>& p) {
        return std::make_unique<eo::RMSprop>(p, eo::RMSpropOptions(1e-2).momentum(0.5).centered(true));
      },
      [](const std::vector<at::Tensor>& p) {
        return std::make_unique<to::RMSprop>(p, to::RMSpropOptions(1e-2).momentum(0.5).centered(true));
      });
  expect_round_trip<eo::Adagrad>(
      device, [](const std::vector<Tensor>& p) { return std::make_unique<eo::Adagrad>(p, eo::AdagradOptions(0.1).lr_decay(0.01)); },
      [](const std::vector<at::Tensor>& p) { return std::make_unique<to::Adagrad>(p, to::AdagradOptions(0.1).lr_decay(0.01)); });
  expect_round_trip<eo::AdamW>(
      device, [](const std::vector<Tensor>& p) { return std::make_unique<eo::AdamW>(p, eo::AdamWOptions(1e-2)); },
      [](const std::vector<at::Tensor>& p) { return std::make_unique<to::AdamW>(p, to::AdamWOptions(1e-2)); });
}

// The state's tensors equal LibTorch's after some steps (a parameter skipped on odd steps has its own count).
TEST_P(OptimizerStateDictTest, StateEqualsLibTorchs) {
  Trajectory t = expect_same_trajectory(
      device, [](const std::vector<Tensor>& p) { return std::make_unique<eo::Adam>(p, eo::AdamOptions(1e-2).amsgrad(true)); },
      [](const std::vector<at::Tensor>& p) { return std::make_unique<to::Adam>(p, to::AdamOptions(1e-2).amsgrad(true)); }, 5);
  for (size_t i = 0; i < t.torch_params.size(); ++i) {
    const auto& state = static_cast<const to::AdamParamState&>(
        *t.torch->state().at(torch_state_key(t.torch_params[i])));
    const OrderedDict<std::string, Tensor> ours = t.ember->state(t.ember_params[i]);
    std::vector<std::string> keys;
    for (const auto& item : ours) keys.push_back(item.key());
    EXPECT_EQ(keys, (std::vector<std::string>{"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}));
    EXPECT_EQ(ours["step"].item<float>(), static_cast<float>(state.step())) << "parameter " << i;
    EXPECT_TENSOR_EQ(ours["exp_avg"], state.exp_avg());
    EXPECT_TENSOR_EQ(ours["exp_avg_sq"], state.exp_avg_sq());
    EXPECT_TENSOR_EQ(ours["max_exp_avg_sq"], state.max_exp_avg_sq());
  }
}

// Python's param_groups and state keys, for two groups (one with its own options) after two steps.
TEST_P(OptimizerStateDictTest, LayoutIsPythons) {
  const TensorOptions f32 = TensorOptions().dtype(DType::Float32).device(device);
  std::vector<Tensor> a = {ones({3}, f32).requires_grad_(true), ones({2, 2}, f32).requires_grad_(true)};
  std::vector<Tensor> b = {ones({4}, f32).requires_grad_(true)};
  eo::Adam opt({eo::OptimizerParamGroup(a),
                eo::OptimizerParamGroup(b, std::make_unique<eo::AdamOptions>(eo::AdamOptions(0.5).betas({0.8, 0.9}).amsgrad(true).weight_decay(0.25)))},
               eo::AdamOptions(1e-2).weight_decay(0.25));
  eo::StepLR scheduler(opt, 3);  // adds initial_lr to each group, as Python's does
  for (int k = 0; k < 2; ++k) {
    a[0].mutable_grad() = ones({3}, f32);
    b[0].mutable_grad() = ones({4}, f32);  // a[1] has no gradient: no state
    opt.step();
  }
  const eo::OptimizerStateDict sd = opt.state_dict();
  std::string keys;
  for (const auto& item : sd.tensors) keys += item.key() + " ";

  const std::string script = R"(
import torch, json
a = [torch.ones(3, requires_grad=True), torch.ones(2, 2, requires_grad=True)]
b = [torch.ones(4, requires_grad=True)]
opt = torch.optim.Adam([{'params': a}, {'params': b, 'lr': 0.5, 'betas': (0.8, 0.9), 'amsgrad': True}], lr=1e-2, weight_decay=0.25)
scheduler = torch.optim.lr_scheduler.StepLR(opt, 3)
for k in range(2):
    a[0].grad = torch.ones(3)
    b[0].grad = torch.ones(4)
    opt.step()
sd = opt.state_dict()
print(json.dumps(sd['param_groups']))
print('@@END@@')
print(' '.join('state.%d.%s' % (i, k) for i in sorted(sd['state']) for k in sd['state'][i]) + ' ')
print('@@END@@')
)";
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, script, 2u);
  // Compared as JSON values (a LibTorch group's options are complete; Python's group takes the defaults'
  // weight_decay, given here): the same keys and values, whatever their order.
  EXPECT_EQ(nlohmann::json::parse(sd.param_groups_json), nlohmann::json::parse(answers[0]))
      << sd.param_groups_json << "\n" << answers[0];
  EXPECT_EQ(keys, answers[1]);
}

TEST_P(OptimizerStateDictTest, BadLoadsChangeNothing) {
  Trajectory t = expect_same_trajectory(
      device, [](const std::vector<Tensor>& p) { return std::make_unique<eo::Adam>(p, eo::AdamOptions(1e-2)); },
      [](const std::vector<at::Tensor>& p) { return std::make_unique<to::Adam>(p, to::AdamOptions(1e-2)); }, 3);
  const eo::OptimizerStateDict good = t.ember->state_dict();
  nlohmann::json groups = nlohmann::json::parse(good.param_groups_json);

  auto with_groups = [&](const nlohmann::json& g) {
    eo::OptimizerStateDict sd = good;
    sd.param_groups_json = g.dump();
    return sd;
  };
  nlohmann::json two = groups;
  two.push_back(groups[0]);
  nlohmann::json short_group = groups;
  short_group[0]["params"].erase(short_group[0]["params"].size() - 1);
  nlohmann::json wrong_type = groups;
  wrong_type[0]["betas"] = {0.9};
  eo::OptimizerStateDict wrong_size = good;
  wrong_size.tensors["state.0.exp_avg"] = zeros({3}, TensorOptions().device(device));
  eo::OptimizerStateDict missing;
  missing.param_groups_json = good.param_groups_json;
  for (const auto& item : good.tensors) {
    if (item.key() != "state.3.exp_avg_sq") missing.tensors.insert(item.key(), item.value());
  }
  eo::OptimizerStateDict stranger = good;
  stranger.tensors.insert("state.9.exp_avg", zeros({3}, TensorOptions().device(device)));

  expect_error<Error>([&] { t.ember->load_state_dict(with_groups(two)); },
                      "loaded state dict has a different number of parameter groups");
  expect_error<Error>([&] { t.ember->load_state_dict(with_groups(short_group)); },
                      "loaded state dict contains a parameter group that doesn't match the size of optimizer's group");
  expect_error<Error>([&] { t.ember->load_state_dict(with_groups(wrong_type)); },
                      "load_state_dict: param group option 'betas' must be a pair of numbers");
  expect_error<Error>([&] { t.ember->load_state_dict(wrong_size); },
                      "load_state_dict: the state of parameter 0 of group 0: 'exp_avg' has 3 elements, expected 35");
  expect_error<Error>([&] { t.ember->load_state_dict(missing); },
                      "load_state_dict: the state of parameter 3 of group 0 lacks 'exp_avg_sq'");
  expect_error<Error>([&] { t.ember->load_state_dict(stranger); },
                      "load_state_dict: 'state.9.exp_avg' is the state of parameter 9, which no param group lists");
  expect_error<Error>(
      [&] {
        eo::OptimizerStateDict sd = good;
        sd.param_groups_json = "[{";
        t.ember->load_state_dict(sd);
      },
      "load_state_dict: param_groups_json is not valid JSON: [json.exception.parse_error.101] parse error at line 1, "
      "column 3: syntax error while parsing object key - unexpected end of input; expected string literal");
  // A hostile file's state nested a million levels deep: refused before parsing (printing or copying the
  // parsed value would recurse a million times); and an option whose value is an object is named by type.
  expect_error<Error>(
      [&] {
        eo::OptimizerStateDict sd = good;
        sd.param_groups_json = std::string(1000000, '[') + std::string(1000000, ']');
        t.ember->load_state_dict(sd);
      },
      "load_state_dict: param_groups_json nests 1000000 levels deep, more than the 64 any optimizer's state needs");
  nlohmann::json object_option = groups;
  object_option[0]["eps"] = nlohmann::json::parse(std::string(60, '[') + "{}" + std::string(60, ']'));
  expect_error<Error>([&] { t.ember->load_state_dict(with_groups(object_option)); },
                      "load_state_dict: param group option 'eps' holds a non-number");
  object_option[0]["eps"] = {{"a", 1}};
  expect_error<Error>([&] { t.ember->load_state_dict(with_groups(object_option)); },
                      "load_state_dict: param group option 'eps' has an unsupported value of type object");
  // Nothing changed: the trajectory goes on as LibTorch's.
  continue_trajectory(t, 3, 5);
}

INSTANTIATE_TEST_SUITE_P(Backends, OptimizerStateDictTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
