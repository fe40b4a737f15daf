// The activation modules against LibTorch's torch::nn modules of the same options (forward values, and
// gradients where a module has a parameter), their reprs against Python 1.13's (the expected strings are
// what `print(torch.nn.ELU())` and the like print), PReLU's parameter and RReLU's train/eval behaviour.
#include <torch/torch.h>

#include <sstream>

#include "ember.h"
#include "tests/autograd_oracle.h"
#include "tests/oracle.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

class ActivationModuleTest : public BackendTest {
 protected:
  // `ours` and `theirs` on the same input values; with `inplace`, ours must also have written its
  // result into the input.
  template <class Ours, class Theirs>
  void expect_same_forward(Ours& ours, Theirs& theirs, const at::Tensor& x, bool inplace = false) {
    ours->to(device);
    Tensor input = from_torch(x, device);
    const at::Tensor expected = theirs(x.clone());
    const Tensor actual = ours(input);
    EXPECT_TENSOR_EQ(actual, expected);
    if (inplace) {
      EXPECT_TRUE(actual.is_same(input));
      EXPECT_TENSOR_EQ(input, expected);
    }
  }
  at::Tensor input(std::vector<int64_t> shape, uint64_t seed = 5) { return random_torch(shape, kFloat32, seed); }
};

TEST_P(ActivationModuleTest, ForwardMatchesLibTorch) {
  const at::Tensor x = input({4, 6, 5});
  {
    nn::ELU ours(nn::ELUOptions().alpha(0.5));
    torch::nn::ELU theirs(torch::nn::ELUOptions().alpha(0.5));
    expect_same_forward(ours, theirs, x);
  }
  {
    nn::SELU ours;
    torch::nn::SELU theirs;
    expect_same_forward(ours, theirs, x);
  }
  {
    nn::CELU ours(nn::CELUOptions().alpha(2.0));
    torch::nn::CELU theirs(torch::nn::CELUOptions().alpha(2.0));
    expect_same_forward(ours, theirs, x);
  }
  {
    nn::GLU ours(1);
    torch::nn::GLU theirs(1);
    expect_same_forward(ours, theirs, x);
    nn::GLU last;
    torch::nn::GLU their_last;
    expect_same_forward(last, their_last, input({3, 8}));
  }
  {
    nn::GELU ours(nn::GELUOptions().approximate("tanh"));
    torch::nn::GELU theirs(torch::nn::GELUOptions().approximate("tanh"));
    expect_same_forward(ours, theirs, x);
    nn::GELU exact;
    torch::nn::GELU their_exact;
    expect_same_forward(exact, their_exact, x);
  }
  {
    nn::Hardshrink ours(0.3);
    torch::nn::Hardshrink theirs(0.3);
    expect_same_forward(ours, theirs, x);
  }
  {
    nn::Hardtanh ours(nn::HardtanhOptions().min_val(-2).max_val(1.5));
    torch::nn::Hardtanh theirs(torch::nn::HardtanhOptions().min_val(-2).max_val(1.5));
    expect_same_forward(ours, theirs, x);
  }
  {
    nn::LeakyReLU ours(nn::LeakyReLUOptions().negative_slope(0.2));
    torch::nn::LeakyReLU theirs(torch::nn::LeakyReLUOptions().negative_slope(0.2));
    expect_same_forward(ours, theirs, x);
  }
  {
    nn::LogSigmoid ours;
    torch::nn::LogSigmoid theirs;
    expect_same_forward(ours, theirs, x);
  }
  {
    nn::ReLU ours;
    torch::nn::ReLU theirs;
    expect_same_forward(ours, theirs, x);
  }
  {
    nn::ReLU6 ours;
    torch::nn::ReLU6 theirs;
    expect_same_forward(ours, theirs, x * 3);
  }
  {
    nn::SiLU ours;
    torch::nn::SiLU theirs;
    expect_same_forward(ours, theirs, x);
  }
  {
    nn::Mish ours;
    torch::nn::Mish theirs;
    expect_same_forward(ours, theirs, x);
  }
  {
    nn::Sigmoid ours;
    torch::nn::Sigmoid theirs;
    expect_same_forward(ours, theirs, x);
  }
  {
    nn::Tanh ours;
    torch::nn::Tanh theirs;
    expect_same_forward(ours, theirs, x);
  }
  {
    nn::Softmax ours(1);
    torch::nn::Softmax theirs(1);
    expect_same_forward(ours, theirs, x);
  }
  {
    nn::Softmin ours(-1);
    torch::nn::Softmin theirs(-1);
    expect_same_forward(ours, theirs, x);
  }
  {
    nn::LogSoftmax ours(0);
    torch::nn::LogSoftmax theirs(0);
    expect_same_forward(ours, theirs, x);
  }
  {
    nn::Softmax2d ours;
    torch::nn::Softmax2d theirs;
    expect_same_forward(ours, theirs, input({2, 3, 4, 5}));
    expect_same_forward(ours, theirs, x);
  }
  {
    nn::Softplus ours(nn::SoftplusOptions().beta(2).threshold(3));
    torch::nn::Softplus theirs(torch::nn::SoftplusOptions().beta(2).threshold(3));
    expect_same_forward(ours, theirs, x);
  }
  {
    nn::Softshrink ours(0.3);
    torch::nn::Softshrink theirs(0.3);
    expect_same_forward(ours, theirs, x);
  }
  {
    nn::Softsign ours;
    torch::nn::Softsign theirs;
    expect_same_forward(ours, theirs, x);
  }
  {
    nn::Tanhshrink ours;
    torch::nn::Tanhshrink theirs;
    expect_same_forward(ours, theirs, x);
  }
  {
    nn::Threshold ours(0.1, 20);
    torch::nn::Threshold theirs(0.1, 20);
    expect_same_forward(ours, theirs, x);
  }
  {
    // LibTorch 1.13 has no Hardsigmoid or Hardswish module: their functions are the oracle.
    nn::Hardsigmoid ours;
    EXPECT_TENSOR_EQ(ours(from_torch(x, device)), at::hardsigmoid(x));
    nn::Hardswish swish;
    EXPECT_TENSOR_EQ(swish(from_torch(x, device)), at::hardswish(x));
  }
}

TEST_P(ActivationModuleTest, ModulesComposeInSequential) {
  torch::nn::Sequential theirs(torch::nn::Linear(5, 8), torch::nn::ReLU(true), torch::nn::GLU(1),
                               torch::nn::PReLU(torch::nn::PReLUOptions().num_parameters(4)), torch::nn::Softmax(1));
  nn::Sequential ours(nn::Linear(5, 8), nn::ReLU(true), nn::GLU(1), nn::PReLU(nn::PReLUOptions().num_parameters(4)),
                      nn::Softmax(1));
  ours->to(device);
  {
    autograd::NoGradGuard no_grad;
    for (const auto& p : theirs->named_parameters()) {
      ours->named_parameters()[p.key()].copy_(from_torch(p.value().detach(), device));
    }
  }
  const at::Tensor x = input({6, 5});
  EXPECT_TENSOR_EQ(ours->forward(from_torch(x, device)), theirs->forward(x).detach());
}

TEST_P(ActivationModuleTest, InplaceModulesWriteTheirInput) {
  const at::Tensor x = input({3, 7});
  {
    nn::ReLU ours(true);
    torch::nn::ReLU theirs(true);
    expect_same_forward(ours, theirs, x, true);
  }
  {
    nn::ReLU6 ours(true);
    torch::nn::ReLU6 theirs(true);
    expect_same_forward(ours, theirs, x * 3, true);
  }
  {
    nn::ELU ours(nn::ELUOptions().inplace(true));
    torch::nn::ELU theirs(torch::nn::ELUOptions().inplace(true));
    expect_same_forward(ours, theirs, x, true);
  }
  {
    nn::SELU ours(true);
    torch::nn::SELU theirs(true);
    expect_same_forward(ours, theirs, x, true);
  }
  {
    nn::CELU ours(nn::CELUOptions().alpha(0.5).inplace(true));
    torch::nn::CELU theirs(torch::nn::CELUOptions().alpha(0.5).inplace(true));
    expect_same_forward(ours, theirs, x, true);
  }
  {
    nn::Hardtanh ours(nn::HardtanhOptions().inplace(true));
    torch::nn::Hardtanh theirs(torch::nn::HardtanhOptions().inplace(true));
    expect_same_forward(ours, theirs, x, true);
  }
  {
    nn::LeakyReLU ours(nn::LeakyReLUOptions().inplace(true));
    torch::nn::LeakyReLU theirs(torch::nn::LeakyReLUOptions().inplace(true));
    expect_same_forward(ours, theirs, x, true);
  }
  {
    nn::Threshold ours(nn::ThresholdOptions(0.5, -1).inplace(true));
    torch::nn::Threshold theirs(torch::nn::ThresholdOptions(0.5, -1).inplace(true));
    expect_same_forward(ours, theirs, x, true);
  }
  {
    nn::RReLU ours(nn::RReLUOptions().inplace(true));
    torch::nn::RReLU theirs(torch::nn::RReLUOptions().inplace(true));
    ours->eval();
    theirs->eval();
    expect_same_forward(ours, theirs, x, true);
  }
}

template <class M>
std::string repr_of(const M& module) {
  return module->repr();
}

TEST(ActivationModuleReprTest, MatchesPython) {
  // Each expected string is what Python 1.13 prints for the module built with the same arguments.
  EXPECT_EQ(repr_of(nn::ELU()), "ELU(alpha=1.0)");
  EXPECT_EQ(repr_of(nn::ELU(nn::ELUOptions().alpha(0.5).inplace(true))), "ELU(alpha=0.5, inplace=True)");
  EXPECT_EQ(repr_of(nn::SELU()), "SELU()");
  EXPECT_EQ(repr_of(nn::SELU(true)), "SELU(inplace=True)");
  EXPECT_EQ(repr_of(nn::CELU()), "CELU(alpha=1.0)");
  EXPECT_EQ(repr_of(nn::CELU(nn::CELUOptions().alpha(2.0).inplace(true))), "CELU(alpha=2.0, inplace=True)");
  EXPECT_EQ(repr_of(nn::GLU()), "GLU(dim=-1)");
  EXPECT_EQ(repr_of(nn::GLU(1)), "GLU(dim=1)");
  EXPECT_EQ(repr_of(nn::GELU()), "GELU(approximate='none')");
  EXPECT_EQ(repr_of(nn::GELU(nn::GELUOptions().approximate("tanh"))), "GELU(approximate='tanh')");
  EXPECT_EQ(repr_of(nn::Hardshrink()), "Hardshrink(0.5)");
  EXPECT_EQ(repr_of(nn::Hardshrink(0.3)), "Hardshrink(0.3)");
  EXPECT_EQ(repr_of(nn::Hardtanh()), "Hardtanh(min_val=-1.0, max_val=1.0)");
  EXPECT_EQ(repr_of(nn::Hardtanh(nn::HardtanhOptions().min_val(-2.5).max_val(3.5).inplace(true))),
            "Hardtanh(min_val=-2.5, max_val=3.5, inplace=True)");
  EXPECT_EQ(repr_of(nn::LeakyReLU()), "LeakyReLU(negative_slope=0.01)");
  EXPECT_EQ(repr_of(nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2).inplace(true))),
            "LeakyReLU(negative_slope=0.2, inplace=True)");
  EXPECT_EQ(repr_of(nn::LogSigmoid()), "LogSigmoid()");
  EXPECT_EQ(repr_of(nn::PReLU()), "PReLU(num_parameters=1)");
  EXPECT_EQ(repr_of(nn::PReLU(nn::PReLUOptions().num_parameters(3).init(0.1))), "PReLU(num_parameters=3)");
  EXPECT_EQ(repr_of(nn::ReLU()), "ReLU()");
  EXPECT_EQ(repr_of(nn::ReLU(true)), "ReLU(inplace=True)");
  EXPECT_EQ(repr_of(nn::ReLU6()), "ReLU6()");
  EXPECT_EQ(repr_of(nn::ReLU6(true)), "ReLU6(inplace=True)");
  EXPECT_EQ(repr_of(nn::RReLU()), "RReLU(lower=0.125, upper=0.3333333333333333)");
  EXPECT_EQ(repr_of(nn::RReLU(nn::RReLUOptions().lower(0.1).upper(0.3).inplace(true))),
            "RReLU(lower=0.1, upper=0.3, inplace=True)");
  EXPECT_EQ(repr_of(nn::SiLU()), "SiLU()");
  EXPECT_EQ(repr_of(nn::Mish()), "Mish()");
  EXPECT_EQ(repr_of(nn::Sigmoid()), "Sigmoid()");
  EXPECT_EQ(repr_of(nn::Tanh()), "Tanh()");
  EXPECT_EQ(repr_of(nn::Softmax(1)), "Softmax(dim=1)");
  EXPECT_EQ(repr_of(nn::Softmin(0)), "Softmin(dim=0)");
  EXPECT_EQ(repr_of(nn::LogSoftmax(-1)), "LogSoftmax(dim=-1)");
  EXPECT_EQ(repr_of(nn::Softmax2d()), "Softmax2d()");
  EXPECT_EQ(repr_of(nn::Softplus()), "Softplus(beta=1, threshold=20)");
  EXPECT_EQ(repr_of(nn::Softplus(nn::SoftplusOptions().beta(2).threshold(10))), "Softplus(beta=2, threshold=10)");
  EXPECT_EQ(repr_of(nn::Softplus(nn::SoftplusOptions().beta(0.5).threshold(1.5))),
            "Softplus(beta=0.5, threshold=1.5)");
  EXPECT_EQ(repr_of(nn::Softshrink()), "Softshrink(0.5)");
  EXPECT_EQ(repr_of(nn::Softsign()), "Softsign()");
  EXPECT_EQ(repr_of(nn::Tanhshrink()), "Tanhshrink()");
  EXPECT_EQ(repr_of(nn::Threshold(0.1, 20)), "Threshold(threshold=0.1, value=20)");
  EXPECT_EQ(repr_of(nn::Threshold(nn::ThresholdOptions(1, 2.5).inplace(true))),
            "Threshold(threshold=1, value=2.5, inplace=True)");
  EXPECT_EQ(repr_of(nn::Hardsigmoid()), "Hardsigmoid()");
  EXPECT_EQ(repr_of(nn::Hardswish()), "Hardswish()");
  // Nested, as Python prints a Sequential of them.
  nn::Sequential seq(nn::Linear(4, 3), nn::ReLU(), nn::Softmax(1));
  EXPECT_EQ(seq->repr(),
            "Sequential(\n  (0): Linear(in_features=4, out_features=3, bias=True)\n  (1): ReLU()\n"
            "  (2): Softmax(dim=1)\n)");
}

TEST_P(ActivationModuleTest, PReLUHasOneLearnedSlopePerChannelInitialisedToInit) {
  nn::PReLU ours(nn::PReLUOptions().num_parameters(3).init(0.1));
  ASSERT_EQ(ours->named_parameters().size(), 1u);
  EXPECT_TRUE(ours->named_parameters().contains("weight"));
  EXPECT_EQ(ours->weight.sizes(), (std::vector<int64_t>{3}));
  EXPECT_TRUE(ours->weight.requires_grad());
  EXPECT_EQ(ours->weight.to_vector<float>(), (std::vector<float>{0.1f, 0.1f, 0.1f}));
  nn::PReLU one;
  EXPECT_EQ(one->weight.to_vector<float>(), (std::vector<float>{0.25f}));
}

TEST_P(ActivationModuleTest, PReLUGradientsMatchLibTorch) {
  for (int64_t parameters : {1, 3}) {
    SCOPED_TRACE(parameters);
    torch::nn::PReLU theirs(torch::nn::PReLUOptions().num_parameters(parameters).init(0.2));
    nn::PReLU ours(nn::PReLUOptions().num_parameters(parameters).init(0.2));
    ours->to(device);
    const at::Tensor x = input({4, 3, 5}, 17);
    at::Tensor tx = x.clone().requires_grad_(true);
    Tensor ex = from_torch(x, device).requires_grad_(true);
    const at::Tensor g = random_torch({4, 3, 5}, kFloat32, 19);
    at::Tensor ty = theirs(tx);
    Tensor ey = ours(ex);
    EXPECT_TENSOR_EQ(ey, ty.detach());
    ty.backward(g);
    ey.backward(from_torch(g, device));
    EXPECT_TENSOR_EQ(ex.grad(), tx.grad());
    EXPECT_TENSOR_EQ(ours->weight.grad(), theirs->weight.grad());
    // A clone owns its slope.
    auto copy = std::dynamic_pointer_cast<nn::PReLUImpl>(ours->clone());
    {
      autograd::NoGradGuard no_grad;
      copy->weight.fill_(0.5);
    }
    EXPECT_TENSOR_EQ(ours->weight, theirs->weight.detach());
  }
}

TEST_P(ActivationModuleTest, RReLUDrawsSlopesInTrainingAndUsesTheirMeanInEval) {
  const double lower = 0.1, upper = 0.4;
  nn::RReLU ours(nn::RReLUOptions().lower(lower).upper(upper));
  ASSERT_TRUE(ours->is_training());
  const at::Tensor x = input({64, 64}, 23);
  const Tensor ex = from_torch(x, device).requires_grad_(true);
  const Tensor y = ours(ex);
  EXPECT_EQ(grad_fn_name(y), "RreluWithNoiseBackward0");
  // Where x > 0 the output is x; elsewhere x times a slope in [lower, upper), spread over the range.
  const at::Tensor out = to_torch(y.detach());
  const at::Tensor positive = x.gt(0);
  EXPECT_TRUE(at::equal(out.masked_select(positive), x.masked_select(positive)));
  const at::Tensor slopes = out.masked_select(x.lt(0)) / x.masked_select(x.lt(0));
  ASSERT_GT(slopes.numel(), 1000);
  EXPECT_GE(slopes.min().item<double>(), lower - 1e-6);
  EXPECT_LT(slopes.max().item<double>(), upper + 1e-6);
  EXPECT_NEAR(slopes.mean().item<double>(), (lower + upper) / 2, 0.01);
  EXPECT_NEAR(slopes.std().item<double>(), (upper - lower) / std::sqrt(12.0), 0.01);
  // The gradient is the slope each element was given.
  y.sum().backward();
  const at::Tensor grad = to_torch(ex.grad());
  EXPECT_TRUE(at::allclose(grad.masked_select(x.lt(0)), slopes));
  EXPECT_TRUE(at::equal(grad.masked_select(positive), at::ones_like(x).masked_select(positive)));
  // Two calls draw different slopes.
  const at::Tensor again = to_torch(ours(from_torch(x, device)));
  EXPECT_FALSE(at::equal(again, out));
  // Eval: leaky relu with the mean slope, as LibTorch's module in eval.
  ours->eval();
  torch::nn::RReLU theirs(torch::nn::RReLUOptions().lower(lower).upper(upper));
  theirs->eval();
  EXPECT_TENSOR_EQ(ours(from_torch(x, device)), theirs(x));
}

TEST_P(ActivationModuleTest, BadOptionsAndInputsGetLibTorchMessages) {
  expect_error<Error>([] { (void)nn::Hardtanh(nn::HardtanhOptions().min_val(1).max_val(1)); },
                      "max_val must be greater than min_val");
  nn::Softmax2d softmax2d;
  expect_error<Error>([&] { softmax2d(from_torch(input({3, 4}), device)); },
                      "Softmax2d requires a 3D or 4D tensor as input");
  nn::PReLU prelu(nn::PReLUOptions().num_parameters(2));
  prelu->to(device);
  expect_error<Error>([&] { prelu(from_torch(input({2, 3, 4}), device)); },
                      "Mismatch of parameter numbers and input channel size. Found parameter numbers = 2 and "
                      "channel size = 3.");
  nn::GLU glu(1);
  expect_error<Error>([&] { glu(from_torch(input({2, 3}), device)); },
                      "Halving dimension must be even, but dimension 1 is size 3");
}

INSTANTIATE_TEST_SUITE_P(Backends, ActivationModuleTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
