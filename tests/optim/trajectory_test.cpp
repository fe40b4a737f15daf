// Each optimizer's parameter trajectory over 20 steps equals LibTorch's torch::optim, for several option
// sets and for param groups with options of their own.
#include "tests/optim/optim_oracle.h"

namespace ember::test {
namespace {

namespace eo = ember::optim;
namespace to = torch::optim;

class OptimizerTrajectoryTest : public BackendTest {};

// Both optimizers of one kind over their parameters, built with the same options.
template <class EmberOpt, class TorchOpt, class EmberOptions, class TorchOptions>
void expect_trajectory(const std::shared_ptr<Device>& device, EmberOptions ember_options, TorchOptions torch_options,
                       double rtol = -1, double atol = -1) {
  expect_same_trajectory(
      device, [&](const std::vector<Tensor>& p) { return std::make_unique<EmberOpt>(p, ember_options); },
      [&](const std::vector<at::Tensor>& p) { return std::make_unique<TorchOpt>(p, torch_options); }, 20, at::kFloat,
      rtol, atol);
}

TEST_P(OptimizerTrajectoryTest, SGD) {
  expect_trajectory<eo::SGD, to::SGD>(device, eo::SGDOptions(0.1), to::SGDOptions(0.1));
  expect_trajectory<eo::SGD, to::SGD>(device, eo::SGDOptions(0.05).weight_decay(0.1), to::SGDOptions(0.05).weight_decay(0.1));
  expect_trajectory<eo::SGD, to::SGD>(device, eo::SGDOptions(0.05).momentum(0.9), to::SGDOptions(0.05).momentum(0.9));
  expect_trajectory<eo::SGD, to::SGD>(device, eo::SGDOptions(0.05).momentum(0.9).nesterov(true),
                                      to::SGDOptions(0.05).momentum(0.9).nesterov(true));
  expect_trajectory<eo::SGD, to::SGD>(device, eo::SGDOptions(0.02).momentum(0.8).dampening(0.3).weight_decay(0.01),
                                      to::SGDOptions(0.02).momentum(0.8).dampening(0.3).weight_decay(0.01));
}

TEST_P(OptimizerTrajectoryTest, Adam) {
  expect_trajectory<eo::Adam, to::Adam>(device, eo::AdamOptions(1e-2), to::AdamOptions(1e-2));
  expect_trajectory<eo::Adam, to::Adam>(device, eo::AdamOptions(1e-2).weight_decay(0.1),
                                        to::AdamOptions(1e-2).weight_decay(0.1));
  expect_trajectory<eo::Adam, to::Adam>(device, eo::AdamOptions(1e-2).amsgrad(true), to::AdamOptions(1e-2).amsgrad(true));
  expect_trajectory<eo::Adam, to::Adam>(
      device, eo::AdamOptions(3e-2).betas({0.8, 0.99}).eps(1e-6).weight_decay(0.01).amsgrad(true),
      to::AdamOptions(3e-2).betas({0.8, 0.99}).eps(1e-6).weight_decay(0.01).amsgrad(true));
}

TEST_P(OptimizerTrajectoryTest, AdamW) {
  expect_trajectory<eo::AdamW, to::AdamW>(device, eo::AdamWOptions(1e-2), to::AdamWOptions(1e-2));
  expect_trajectory<eo::AdamW, to::AdamW>(device, eo::AdamWOptions(1e-2).weight_decay(0.1).amsgrad(true),
                                          to::AdamWOptions(1e-2).weight_decay(0.1).amsgrad(true));
}

TEST_P(OptimizerTrajectoryTest, RMSprop) {
  expect_trajectory<eo::RMSprop, to::RMSprop>(device, eo::RMSpropOptions(1e-2), to::RMSpropOptions(1e-2));
  expect_trajectory<eo::RMSprop, to::RMSprop>(device, eo::RMSpropOptions(1e-2).momentum(0.9),
                                              to::RMSpropOptions(1e-2).momentum(0.9));
  expect_trajectory<eo::RMSprop, to::RMSprop>(device, eo::RMSpropOptions(1e-2).centered(true).alpha(0.9),
                                              to::RMSpropOptions(1e-2).centered(true).alpha(0.9));
  expect_trajectory<eo::RMSprop, to::RMSprop>(
      device, eo::RMSpropOptions(5e-3).centered(true).momentum(0.5).weight_decay(0.01).eps(1e-6),
      to::RMSpropOptions(5e-3).centered(true).momentum(0.5).weight_decay(0.01).eps(1e-6));
}

TEST_P(OptimizerTrajectoryTest, Adagrad) {
  expect_trajectory<eo::Adagrad, to::Adagrad>(device, eo::AdagradOptions(0.1), to::AdagradOptions(0.1));
  expect_trajectory<eo::Adagrad, to::Adagrad>(device, eo::AdagradOptions(0.1).lr_decay(0.1).weight_decay(0.01),
                                              to::AdagradOptions(0.1).lr_decay(0.1).weight_decay(0.01));
  expect_trajectory<eo::Adagrad, to::Adagrad>(device, eo::AdagradOptions(0.05).initial_accumulator_value(0.5).eps(1e-5),
                                              to::AdagradOptions(0.05).initial_accumulator_value(0.5).eps(1e-5));
}

// Groups with options of their own: parameters 0 and 1 with the defaults, the others with their group's.
TEST_P(OptimizerTrajectoryTest, ParamGroups) {
  auto split = [](const auto& p, auto make_group) {
    using T = std::decay_t<decltype(p[0])>;
    return std::vector{make_group(std::vector<T>{p[0], p[1]}, false), make_group(std::vector<T>{p[2], p[3], p[4]}, true)};
  };
  expect_same_trajectory(
      device,
      [&](const std::vector<Tensor>& p) {
        auto groups = split(p, [](std::vector<Tensor> ps, bool own) {
          return own ? eo::OptimizerParamGroup(ps, std::make_unique<eo::AdamOptions>(eo::AdamOptions(3e-2).weight_decay(0.1).amsgrad(true)))
                     : eo::OptimizerParamGroup(ps);
        });
        return std::make_unique<eo::Adam>(groups, eo::AdamOptions(1e-2));
      },
      [&](const std::vector<at::Tensor>& p) {
        auto groups = split(p, [](std::vector<at::Tensor> ps, bool own) {
          return own ? to::OptimizerParamGroup(ps, std::make_unique<to::AdamOptions>(to::AdamOptions(3e-2).weight_decay(0.1).amsgrad(true)))
                     : to::OptimizerParamGroup(ps);
        });
        return std::make_unique<to::Adam>(groups, to::AdamOptions(1e-2));
      });
  expect_same_trajectory(
      device,
      [&](const std::vector<Tensor>& p) {
        auto groups = split(p, [](std::vector<Tensor> ps, bool own) {
          return own ? eo::OptimizerParamGroup(ps, std::make_unique<eo::SGDOptions>(eo::SGDOptions(0.01).momentum(0.9).nesterov(true)))
                     : eo::OptimizerParamGroup(ps);
        });
        return std::make_unique<eo::SGD>(groups, eo::SGDOptions(0.1));
      },
      [&](const std::vector<at::Tensor>& p) {
        auto groups = split(p, [](std::vector<at::Tensor> ps, bool own) {
          return own ? to::OptimizerParamGroup(ps, std::make_unique<to::SGDOptions>(to::SGDOptions(0.01).momentum(0.9).nesterov(true)))
                     : to::OptimizerParamGroup(ps);
        });
        return std::make_unique<to::SGD>(groups, to::SGDOptions(0.1));
      });
}

// Parameters and gradients that are views starting inside a block of four elements, so that the fused
// step cannot move them as whole words (optim.comp's element path), follow LibTorch's trajectory too.
TEST_P(OptimizerTrajectoryTest, ViewsAtOddOffsets) {
  // Each tensor of `values` in one flat tensor, `gap` elements after the one before, as views of it.
  auto views_of = [&](const std::vector<at::Tensor>& values, int64_t gap) {
    std::vector<at::Tensor> pieces;
    for (const at::Tensor& v : values) {
      pieces.push_back(at::full({gap}, -7.0f));
      pieces.push_back(v.contiguous().flatten());
    }
    const Tensor flat = from_torch(at::cat(pieces), device);
    std::vector<Tensor> views;
    int64_t offset = 0;
    for (const at::Tensor& v : values) {
      offset += gap;
      views.push_back(flat.narrow(0, offset, v.numel()).view(v.sizes().vec()));
      offset += v.numel();
    }
    return views;
  };
  auto run = [&](auto make_ember, auto make_torch) {
    Trajectory t;
    for (const at::Tensor& p : trajectory_parameters()) t.torch_params.push_back(p.contiguous().requires_grad_(true));
    t.ember_params = views_of(t.torch_params, 1);
    for (Tensor& p : t.ember_params) p.requires_grad_(true);
    t.ember = make_ember(t.ember_params);
    t.torch = make_torch(t.torch_params);
    for (int k = 0; k < 5; ++k) {
      std::vector<at::Tensor> grads;
      for (size_t i = 0; i < t.torch_params.size(); ++i) grads.push_back(trajectory_gradient(t.torch_params[i], i, k));
      const std::vector<Tensor> ember_grads = views_of(grads, 3);
      for (size_t i = 0; i < t.torch_params.size(); ++i) {
        t.torch_params[i].mutable_grad() = grads[i];
        t.ember_params[i].mutable_grad() = ember_grads[i];
      }
      t.torch->step();
      t.ember->step();
      expect_equal_params(t, k);
      if (HasFailure()) return;
    }
  };
  run([](const std::vector<Tensor>& p) { return std::make_unique<eo::Adam>(p, eo::AdamOptions(1e-2).amsgrad(true)); },
      [](const std::vector<at::Tensor>& p) { return std::make_unique<to::Adam>(p, to::AdamOptions(1e-2).amsgrad(true)); });
  run([](const std::vector<Tensor>& p) { return std::make_unique<eo::SGD>(p, eo::SGDOptions(0.05).momentum(0.9)); },
      [](const std::vector<at::Tensor>& p) { return std::make_unique<to::SGD>(p, to::SGDOptions(0.05).momentum(0.9)); });
}

// A learning rate changed on the host between steps (as a scheduler does) takes effect at the next step.
TEST_P(OptimizerTrajectoryTest, LearningRateChangesBetweenSteps) {
  Trajectory t = expect_same_trajectory(
      device, [](const std::vector<Tensor>& p) { return std::make_unique<eo::Adam>(p, eo::AdamOptions(1e-2)); },
      [](const std::vector<at::Tensor>& p) { return std::make_unique<to::Adam>(p, to::AdamOptions(1e-2)); }, 5);
  for (int k = 0; k < 3; ++k) {
    const double lr = 1e-2 * (k + 2);
    t.ember->param_groups()[0].options().set_lr(lr);
    static_cast<to::AdamOptions&>(t.torch->param_groups()[0].options()).lr(lr);
    continue_trajectory(t, 5 + k, 1);
  }
}

// zero_grad(false) zeroes each gradient in place, as LibTorch 1.13's zero_grad(): a tensor that shares
// the gradient sees the zeros, and the next backward accumulates into the same storage. zero_grad()
// drops the gradients.
TEST_P(OptimizerTrajectoryTest, ZeroGradInPlaceOrDropped) {
  const at::Tensor start = at::arange(1, 7, at::kFloat).reshape({2, 3});
  Tensor w = from_torch(start, device).requires_grad_(true);
  at::Tensor tw = start.clone().requires_grad_(true);
  eo::SGD opt(std::vector<Tensor>{w}, eo::SGDOptions(0.1));
  to::SGD torch_opt(std::vector<at::Tensor>{tw}, to::SGDOptions(0.1));
  (w * w).sum().backward();
  (tw * tw).sum().backward();
  const Tensor shared = w.grad();
  opt.zero_grad(false);
  torch_opt.zero_grad();
  EXPECT_TENSOR_EQ(shared, at::zeros({2, 3}));
  (w * 3).sum().backward();
  (tw * 3).sum().backward();
  EXPECT_TENSOR_EQ(shared, tw.grad());  // the gradient accumulated where `shared` looks
  opt.step();
  torch_opt.step();
  EXPECT_TENSOR_EQ(w, tw.detach());
  opt.zero_grad();
  EXPECT_FALSE(w.grad().defined());
}

INSTANTIATE_TEST_SUITE_P(Backends, OptimizerTrajectoryTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
