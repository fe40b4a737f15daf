// Bad options and parameters get LibTorch's errors, word for word.
#include "tests/optim/optim_oracle.h"

namespace ember::test {
namespace {

namespace eo = ember::optim;
namespace to = torch::optim;

class OptimizerBadInputTest : public BackendTest {};

TEST_P(OptimizerBadInputTest, OptionsGetLibTorchsMessages) {
  const Tensor p = ones({3}, TensorOptions().device(device)).requires_grad_(true);
  const at::Tensor q = at::ones({3}).requires_grad_(true);
  struct Case {
    std::function<void()> ember;
    std::function<void()> torch;
  };
  const std::vector<Case> cases = {
      {[&] { eo::SGD({p}, eo::SGDOptions(-0.1)); }, [&] { to::SGD({q}, to::SGDOptions(-0.1)); }},
      {[&] { eo::SGD({p}, eo::SGDOptions(0.1).momentum(-1)); }, [&] { to::SGD({q}, to::SGDOptions(0.1).momentum(-1)); }},
      {[&] { eo::SGD({p}, eo::SGDOptions(0.1).weight_decay(-0.5)); },
       [&] { to::SGD({q}, to::SGDOptions(0.1).weight_decay(-0.5)); }},
      {[&] { eo::SGD({p}, eo::SGDOptions(0.1).nesterov(true)); }, [&] { to::SGD({q}, to::SGDOptions(0.1).nesterov(true)); }},
      {[&] { eo::SGD({p}, eo::SGDOptions(0.1).momentum(0.9).dampening(0.1).nesterov(true)); },
       [&] { to::SGD({q}, to::SGDOptions(0.1).momentum(0.9).dampening(0.1).nesterov(true)); }},
      {[&] { eo::Adam({p}, eo::AdamOptions(-1e-3)); }, [&] { to::Adam({q}, to::AdamOptions(-1e-3)); }},
      {[&] { eo::Adam({p}, eo::AdamOptions().eps(-1e-8)); }, [&] { to::Adam({q}, to::AdamOptions().eps(-1e-8)); }},
      {[&] { eo::Adam({p}, eo::AdamOptions().betas({1.0, 0.999})); },
       [&] { to::Adam({q}, to::AdamOptions().betas({1.0, 0.999})); }},
      {[&] { eo::Adam({p}, eo::AdamOptions().betas({0.9, -0.25})); },
       [&] { to::Adam({q}, to::AdamOptions().betas({0.9, -0.25})); }},
      {[&] { eo::Adam({p}, eo::AdamOptions().weight_decay(-1)); }, [&] { to::Adam({q}, to::AdamOptions().weight_decay(-1)); }},
      {[&] { eo::AdamW({p}, eo::AdamWOptions(-2.5)); }, [&] { to::AdamW({q}, to::AdamWOptions(-2.5)); }},
      {[&] { eo::RMSprop({p}, eo::RMSpropOptions().alpha(-0.99)); }, [&] { to::RMSprop({q}, to::RMSpropOptions().alpha(-0.99)); }},
      {[&] { eo::RMSprop({p}, eo::RMSpropOptions().momentum(-0.5)); },
       [&] { to::RMSprop({q}, to::RMSpropOptions().momentum(-0.5)); }},
      {[&] { eo::Adagrad({p}, eo::AdagradOptions().lr_decay(-1)); }, [&] { to::Adagrad({q}, to::AdagradOptions().lr_decay(-1)); }},
      {[&] { eo::Adagrad({p}, eo::AdagradOptions().initial_accumulator_value(-0.1)); },
       [&] { to::Adagrad({q}, to::AdagradOptions().initial_accumulator_value(-0.1)); }},
      {[&] { eo::Adagrad({p}, eo::AdagradOptions().eps(-1e-10)); }, [&] { to::Adagrad({q}, to::AdagradOptions().eps(-1e-10)); }},
      // A non-leaf parameter.
      {[&] { eo::SGD({p * 2}, eo::SGDOptions(0.1)); }, [&] { to::SGD({q * 2}, to::SGDOptions(0.1)); }},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const std::string expected = torch_error(cases[i].torch);
    ASSERT_FALSE(expected.empty());
    expect_error<Error>(cases[i].ember, expected);
  }
  // A parameter in two groups: LibTorch 1.13 accepts it (its check looks at state that is still empty);
  // Python refuses with this message.
  expect_error<Error>([&] { eo::SGD({eo::OptimizerParamGroup({p}), eo::OptimizerParamGroup({p})}, eo::SGDOptions(0.1)); },
                      "some parameters appear in more than one parameter group");
  // A parameter listed twice in one group: Python warns that this will become an error and steps it twice
  // with one state, which the fused step cannot; ember refuses it, and add_parameters checks as
  // add_param_group does.
  expect_error<Error>([&] { eo::Adam({p, p}, eo::AdamOptions(0.1)); },
                      "optimizer contains a parameter group with duplicate parameters: params 0 and 1 are the same tensor");
  const Tensor r = ones({2}, TensorOptions().device(device)).requires_grad_(true);
  eo::SGD sgd({eo::OptimizerParamGroup({p}), eo::OptimizerParamGroup({r})}, eo::SGDOptions(0.1));
  expect_error<Error>([&] { sgd.add_parameters({p}); },
                      "optimizer contains a parameter group with duplicate parameters: params 0 and 1 are the same tensor");
  expect_error<Error>([&] { sgd.add_parameters({r}); }, "some parameters appear in more than one parameter group");
  expect_error<Error>([&] { sgd.add_parameters({Tensor()}); },
                      "optimizer can only optimize Tensors, but one of the params is undefined");
  expect_error<Error>([&] { sgd.add_parameters({r * 2}); }, "can't optimize a non-leaf Tensor");
  EXPECT_EQ(sgd.param_groups()[0].params().size(), 1u);  // the refused calls added nothing
  // The same tensor twice across add_param_group and a new one.
  const Tensor s = ones({2}, TensorOptions().device(device)).requires_grad_(true);
  sgd.add_parameters({s});
  EXPECT_EQ(sgd.param_groups()[0].params().size(), 2u);
  expect_error<Error>([&] { sgd.add_param_group(eo::OptimizerParamGroup({s})); },
                      "some parameters appear in more than one parameter group");
}

TEST_P(OptimizerBadInputTest, GradientsThatDoNotFit) {
  const TensorOptions f32 = TensorOptions().dtype(DType::Float32).device(device);
  Tensor p = ones({3}, f32).requires_grad_(true);
  eo::SGD opt({p}, eo::SGDOptions(0.1));
  p.mutable_grad() = ones({4}, f32);
  expect_error<Error>([&] { opt.step(); },
                      "optimizer step: the gradient of a parameter of sizes [3] has sizes [4] and dtype float32, "
                      "expected the parameter's");
  // Nothing moved.
  EXPECT_EQ(p.to_vector<float>(), (std::vector<float>{1, 1, 1}));
}

INSTANTIATE_TEST_SUITE_P(Backends, OptimizerBadInputTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
