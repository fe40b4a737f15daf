// The activations beyond what their registry rows say (tests/ops/elementwise.cpp, tests/ops/activation.cpp):
// gradcheck and gradgradcheck in float64 away from the kinks, the in-place forms' nodes and errors, rrelu's
// random slopes, and bad input refused with LibTorch 1.13's message.
#include <torch/nn/functional/activation.h>

#include "autograd/gradcheck.h"
#include "nn/functional/activation.h"
#include "tests/autograd_oracle.h"
#include "tests/oracle.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;
using autograd::tensor_list;

class ActivationTest : public BackendTest {
 protected:
  TensorOptions on(DType dtype) const { return TensorOptions().dtype(dtype).device(device); }

  // Values at least 0.1 from every kink of the activations below (0, +-0.5, +-1, +-1.5, +-3, 6), so
  // finite differences see one branch.
  Tensor away_from_kinks(bool requires_grad = true) const {
    Tensor x = ember::tensor({{-4.3, -3.4, -2.7, -1.9}, {-1.3, -0.8, -0.3, -0.1}, {0.2, 0.4, 0.7, 1.2},
                              {1.7, 2.6, 3.3, 4.1}},
                             on(kFloat64));
    return requires_grad ? x.requires_grad_(true) : x;
  }

  void expect_same_error(const std::function<void()>& ember_call, const std::function<void()>& torch_call) {
    const std::string message = torch_error(torch_call);
    expect_error<Error>(ember_call, message.substr(0, message.find('\n')));
  }
};

TEST_P(ActivationTest, GradientsPassGradcheckInFloat64) {
  if (!device->supports(kFloat64)) GTEST_SKIP() << "the device has no float64";
  using Fn = std::function<Tensor(const Tensor&)>;
  // Second order too where PyTorch has it beyond zero.
  const std::vector<std::tuple<const char*, Fn, bool>> unary = {
      {"elu", [](const Tensor& x) { return ember::elu(x, 0.7, 1.3, 0.8); }, true},
      {"selu", [](const Tensor& x) { return ember::selu(x); }, true},
      {"celu", [](const Tensor& x) { return ember::celu(x, 1.5); }, true},
      {"hardtanh", [](const Tensor& x) { return ember::hardtanh(x, -1.5, 3.0); }, false},
      {"relu6", [](const Tensor& x) { return ember::relu6(x); }, false},
      {"hardsigmoid", [](const Tensor& x) { return ember::hardsigmoid(x); }, false},
      {"hardswish", [](const Tensor& x) { return ember::hardswish(x); }, true},
      {"hardshrink", [](const Tensor& x) { return ember::hardshrink(x, 0.5); }, false},
      {"softshrink", [](const Tensor& x) { return ember::softshrink(x, 0.5); }, false},
      {"softplus", [](const Tensor& x) { return ember::softplus(x, 1.5, 2.0); }, true},
      {"log_sigmoid", [](const Tensor& x) { return ember::log_sigmoid(x); }, true},
      {"mish", [](const Tensor& x) { return ember::mish(x); }, true},
      {"rrelu eval", [](const Tensor& x) { return ember::rrelu(x, 0.1, 0.3, false); }, false},
      {"softsign", [](const Tensor& x) { return F::softsign(x); }, true},
      {"tanhshrink", [](const Tensor& x) { return F::tanhshrink(x); }, true},
      {"glu", [](const Tensor& x) { return ember::glu(x, 1); }, true},
      {"glu dim 0", [](const Tensor& x) { return ember::glu(x, 0); }, true},
  };
  for (const auto& [name, f, second_order] : unary) {
    SCOPED_TRACE(name);
    const autograd::DifferentiableFn fn = [f = f](const tensor_list& in) { return tensor_list{f(in[0])}; };
    EXPECT_TRUE(autograd::gradcheck(fn, {away_from_kinks()}));
    if (second_order) {
      EXPECT_TRUE(autograd::gradgradcheck(fn, {away_from_kinks()}));
    }
  }
  // prelu: both inputs, and the mixed second-order terms.
  const autograd::DifferentiableFn prelu = [](const tensor_list& in) { return tensor_list{ember::prelu(in[0], in[1])}; };
  const Tensor weight = ember::tensor({0.3, -0.2, 0.6, 1.4}, on(kFloat64)).requires_grad_(true);
  EXPECT_TRUE(autograd::gradcheck(prelu, {away_from_kinks(), weight}));
  EXPECT_TRUE(autograd::gradgradcheck(prelu, {away_from_kinks(), weight}));
  const Tensor one = ember::tensor({0.4}, on(kFloat64)).requires_grad_(true);
  EXPECT_TRUE(autograd::gradgradcheck(prelu, {away_from_kinks(), one}));
  // rrelu in training: the draw is fixed by the generator, so every call of fn sees the same slopes.
  const autograd::DifferentiableFn rrelu = [](const tensor_list& in) {
    Generator generator(42);
    return tensor_list{ember::rrelu(in[0], 0.1, 0.3, true, &generator)};
  };
  EXPECT_TRUE(autograd::gradcheck(rrelu, {away_from_kinks()}));
}

TEST_P(ActivationTest, InPlaceFormsRecordPyTorchsNodes) {
  const at::Tensor values = random_torch({5, 4}, kFloat32, 3);
  const auto recorded = [&](const std::function<Tensor&(Tensor&)>& f) {
    Tensor leaf = from_torch(values, device).requires_grad_(true);
    Tensor y = leaf * 1;
    return grad_fn_name(f(y));
  };
  EXPECT_EQ(recorded([](Tensor& y) -> Tensor& { return ember::elu_(y, 0.5); }), "EluBackward1");
  EXPECT_EQ(recorded([](Tensor& y) -> Tensor& { return ember::selu_(y); }), "EluBackward1");
  EXPECT_EQ(recorded([](Tensor& y) -> Tensor& { return ember::celu_(y, 2.0); }), "CeluBackward1");
  EXPECT_EQ(recorded([](Tensor& y) -> Tensor& { return ember::hardtanh_(y, -0.5, 0.5); }), "HardtanhBackward0");
  EXPECT_EQ(recorded([](Tensor& y) -> Tensor& { return ember::relu6_(y); }), "HardtanhBackward0");
  EXPECT_EQ(recorded([](Tensor& y) -> Tensor& { return ember::hardsigmoid_(y); }), "HardsigmoidBackward0");
  EXPECT_EQ(recorded([](Tensor& y) -> Tensor& { return ember::hardswish_(y); }), "HardswishBackward0");
  EXPECT_EQ(recorded([](Tensor& y) -> Tensor& { return ember::mish_(y); }), "MishBackward0");
  EXPECT_EQ(recorded([](Tensor& y) -> Tensor& { return ember::rrelu_(y, 0.1, 0.3, true); }),
            "RreluWithNoiseBackward1");
  EXPECT_EQ(recorded([](Tensor& y) -> Tensor& { return ember::rrelu_(y); }), "RreluWithNoiseBackward1");
  EXPECT_EQ(recorded([](Tensor& y) -> Tensor& { return ember::leaky_relu_(y, 0.1); }), "LeakyReluBackward1");
  EXPECT_EQ(recorded([](Tensor& y) -> Tensor& { return ember::threshold_(y, 0.1, 2.0); }), "ThresholdBackward1");
  // Without autograd the forms write in place, with the out-of-place values.
  Tensor x = from_torch(values, device);
  const Tensor expected = ember::elu(x, 0.5);
  ember::elu_(x, 0.5);
  EXPECT_TRUE(ember::allclose(x, expected));
}

// The in-place forms keep their result, from which a negative slope's branch cannot be told.
TEST_P(ActivationTest, InPlaceFormsWithANegativeSlopeRefuseBackward) {
  using InPlace = std::function<void(Tensor&)>;
  using TorchInPlace = std::function<void(at::Tensor&)>;
  const std::vector<std::pair<InPlace, TorchInPlace>> forms = {
      {[](Tensor& y) { ember::elu_(y, -1.0); }, [](at::Tensor& y) { at::elu_(y, -1.0); }},
      {[](Tensor& y) { ember::celu_(y, -1.0); }, [](at::Tensor& y) { at::celu_(y, -1.0); }},
      {[](Tensor& y) { ember::leaky_relu_(y, -0.1); }, [](at::Tensor& y) { at::leaky_relu_(y, -0.1); }},
      {[](Tensor& y) { ember::rrelu_(y, -0.3, -0.1); }, [](at::Tensor& y) { at::rrelu_(y, -0.3, -0.1); }},
  };
  for (const auto& [ours, theirs] : forms) {
    Tensor leaf = from_torch(random_torch({6}, kFloat32, 4), device).requires_grad_(true);
    Tensor y = leaf * 1;
    ours(y);
    expect_same_error([&] { y.sum().backward(); },
                      [&] {
                        at::Tensor t = torch::randn({6}).requires_grad_(true);
                        at::Tensor u = t * 1;
                        theirs(u);
                        u.sum().backward();
                      });
  }
  // In training rrelu_ keeps its noise, and any slopes work.
  Tensor leaf = from_torch(random_torch({6}, kFloat32, 4), device).requires_grad_(true);
  Tensor y = leaf * 1;
  ember::rrelu_(y, -0.3, -0.1, true);
  y.sum().backward();
  EXPECT_TRUE(leaf.grad().defined());
  // The leaf itself cannot be written in place.
  expect_same_error([&] { ember::selu_(leaf); },
                    [&] {
                      at::Tensor t = torch::randn({6}).requires_grad_(true);
                      at::selu_(t);
                    });
}

TEST_P(ActivationTest, RreluTrainingDrawsFromTheGenerator) {
  const Tensor x = from_torch(random_torch({1000}, kFloat32, 8), device);
  Generator a(7), b(7);
  const Tensor first = ember::rrelu(x, 0.2, 0.6, true, &a);
  const Tensor same = ember::rrelu(x, 0.2, 0.6, true, &b);
  EXPECT_TRUE(ember::equal(first, same));
  const Tensor next = ember::rrelu(x, 0.2, 0.6, true, &a);
  EXPECT_FALSE(ember::equal(first, next));
  // In place, the same slopes from the same seed.
  Generator c(7);
  Tensor copy = x.clone();
  ember::rrelu_(copy, 0.2, 0.6, true, &c);
  EXPECT_TRUE(ember::equal(copy, first));
  // lower == upper: every slope is that value, as leaky_relu.
  EXPECT_TRUE(ember::allclose(ember::rrelu(x, 0.25, 0.25, true), ember::leaky_relu(x, 0.25)));
}

TEST_P(ActivationTest, BadInputGetsLibTorchsMessages) {
  const Tensor x = from_torch(random_torch({2, 3, 4}, kFloat32, 1), device);
  const at::Tensor tx = random_torch({2, 3, 4}, kFloat32, 1);
  const Tensor ints = ember::tensor({1, 2}, on(kInt64));
  const at::Tensor tints = at::tensor({1, 2}, at::kLong);
  // prelu: the weight's rank, the channel count, zero-dim inputs, dtypes.
  expect_same_error([&] { ember::prelu(x, ember::ones({3, 1}, on(kFloat32))); },
                    [&] { at::prelu(tx, at::ones({3, 1})); });
  expect_same_error([&] { ember::prelu(x, ember::ones({4}, on(kFloat32))); }, [&] { at::prelu(tx, at::ones({4})); });
  expect_same_error([&] { ember::prelu(ember::ones({}, on(kFloat32)), ember::ones({3}, on(kFloat32))); },
                    [&] { at::prelu(at::ones({}), at::ones({3})); });
  expect_same_error([&] { ember::prelu(ember::ones({3}, on(kFloat32)), ember::ones({3}, on(kFloat32))); },
                    [&] { at::prelu(at::ones({3}), at::ones({3})); });
  expect_same_error([&] { ember::prelu(ints, ember::ones({1}, on(kFloat32))); },
                    [&] { at::prelu(tints, at::ones({1})); });
  expect_same_error([&] { ember::prelu(ints, ember::ones({1}, on(kInt64))); },
                    [&] { at::prelu(tints, at::ones({1}, at::kLong)); });
  // glu: scalars, odd halves, dims out of range, dtypes; F::glu's own check first.
  expect_same_error([&] { ember::glu(ember::ones({}, on(kFloat32))); }, [&] { at::glu(at::ones({})); });
  expect_same_error([&] { F::glu(ember::ones({}, on(kFloat32))); },
                    [&] { torch::nn::functional::glu(at::ones({})); });
  expect_same_error([&] { F::glu(x, 1); }, [&] { torch::nn::functional::glu(tx, 1); });
  expect_same_error([&] { ember::glu(x, 3); }, [&] { at::glu(tx, 3); });
  expect_same_error([&] { ember::glu(ints); }, [&] { at::glu(tints); });
  // Bounds and parameters.
  expect_same_error([&] { ember::softshrink(x, -0.5); }, [&] { at::softshrink(tx, -0.5); });
  expect_same_error([&] { ember::rrelu(x, 0.5, 0.1); }, [&] { at::rrelu(tx, 0.5, 0.1); });
  expect_same_error([&] { ember::rrelu(x, 0.5, 0.1, true); }, [&] { at::rrelu(tx, 0.5, 0.1, true); });
  expect_same_error([&] { ember::hardtanh(ember::ones({2}, on(kBool))); },
                    [&] { at::hardtanh(at::ones({2}, at::kBool)); });
  expect_same_error([&] { ember::hardtanh(ember::ones({2}, on(kUInt8)), -1, 1); },
                    [&] { at::hardtanh(at::ones({2}, at::kByte), -1, 1); });
  // Floating kernels refuse integers by their kernel's name.
  expect_same_error([&] { ember::elu(ints); }, [&] { at::elu(tints); });
  expect_same_error([&] { ember::selu(ints); }, [&] { at::selu(tints); });
  expect_same_error([&] { ember::celu(ints); }, [&] { at::celu(tints); });
  expect_same_error([&] { ember::hardsigmoid(ints); }, [&] { at::hardsigmoid(tints); });
  expect_same_error([&] { ember::hardswish(ints); }, [&] { at::hardswish(tints); });
  expect_same_error([&] { ember::hardshrink(ints); }, [&] { at::hardshrink(tints); });
  expect_same_error([&] { ember::softshrink(ints); }, [&] { at::softshrink(tints); });
  expect_same_error([&] { ember::softplus(ints); }, [&] { at::softplus(tints); });
  expect_same_error([&] { ember::log_sigmoid(ints); }, [&] { at::log_sigmoid(tints); });
  expect_same_error([&] { ember::mish(ints); }, [&] { at::mish(tints); });
  expect_same_error([&] { ember::rrelu(ints); }, [&] { at::rrelu(tints); });
  expect_same_error([&] { ember::rrelu(ints, 0.1, 0.3, true); }, [&] { at::rrelu(tints, 0.1, 0.3, true); });
  // Nothing made before an error is harmed.
  EXPECT_TENSOR_EQ(x, tx);
}

INSTANTIATE_TEST_SUITE_P(Backends, ActivationTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
