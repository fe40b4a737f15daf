// Dropout beyond its registry rows (tests/ops/dropout.cpp): the fraction dropped and the scale of what
// is kept, per element and per channel; eval, p = 0 and p = 1; reproducibility from the seed and fresh
// masks from one call to the next; the gradient applying the forward's mask; in place; alpha dropout's
// mean and variance; node names; PyTorch's messages.
#include <torch/nn/functional/dropout.h>

#include <cmath>

#include "nn/functional/dropout.h"
#include "tests/autograd_oracle.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;
namespace TF = torch::nn::functional;

class DropoutTest : public BackendTest {
 protected:
  // Values away from zero, so that a zero in the output is a dropped element.
  Tensor nonzero_input(at::IntArrayRef sizes, uint64_t seed, DType dtype = DType::Float32) {
    return from_torch(random_torch(sizes, dtype, seed, 1, 2), device);
  }
};

// The fraction of zeros in `t`, on the host.
double zero_fraction(const Tensor& t) {
  const at::Tensor values = to_torch(t);
  return values.eq(0).to(at::kDouble).mean().item<double>();
}

TEST_P(DropoutTest, DropsAFractionPAndScalesTheRest) {
  for (const DType dtype : {DType::Float32, DType::Float16, DType::BFloat16, DType::Float64}) {
    if (!device->supports(dtype)) continue;
    for (const double p : {0.1, 0.5, 0.9}) {
      SCOPED_TRACE(std::string(dtype_name(dtype)) + " p " + std::to_string(p));
      // 100003 elements: the standard deviation of the fraction is below 0.0016.
      const Tensor x = nonzero_input({100003}, 1, dtype);
      const Tensor y = F::dropout(x, F::DropoutFuncOptions().p(p));
      EXPECT_NEAR(zero_fraction(y), p, 0.01);
      const at::Tensor xs = to_torch(x).to(at::kDouble), ys = to_torch(y).to(at::kDouble);
      const at::Tensor kept = ys.ne(0);
      // Kept values are x times the scale 1 / (1 - p) (in the compute type, as PyTorch multiplies),
      // rounded once to the dtype.
      const double scale = dtype == DType::Float64 ? 1 / (1 - p) : static_cast<float>(1 / (1 - p));
      const at::Tensor expected = (xs * scale).to(torch_dtype(dtype)).to(at::kDouble);
      EXPECT_TRUE(at::equal(ys.masked_select(kept), expected.masked_select(kept)));
    }
  }
}

TEST_P(DropoutTest, EvalAndTrivialProbabilities) {
  const Tensor x = nonzero_input({7, 9}, 2);
  EXPECT_TRUE(F::dropout(x, F::DropoutFuncOptions().training(false)).is_same(x));
  EXPECT_TRUE(F::dropout(x, F::DropoutFuncOptions().p(0)).is_same(x));
  EXPECT_TRUE(F::dropout2d(x.unsqueeze(0).unsqueeze(0), F::Dropout2dFuncOptions().training(false)).defined());
  EXPECT_TRUE(F::alpha_dropout(x).is_same(x));  // training defaults to false, as LibTorch's
  EXPECT_EQ(zero_fraction(F::dropout(x, F::DropoutFuncOptions().p(1))), 1.0);
}

TEST_P(DropoutTest, SeedReproducesAndCallsDiffer) {
  const Tensor x = nonzero_input({3, 1000}, 3);
  manual_seed(42);
  const at::Tensor first = to_torch(F::dropout(x));
  const at::Tensor second = to_torch(F::dropout(x));
  manual_seed(42);
  EXPECT_TRUE(at::equal(to_torch(F::dropout(x)), first));
  EXPECT_FALSE(at::equal(second, first));
}

TEST_P(DropoutTest, GradientAppliesTheForwardMask) {
  for (const bool contiguous : {true, false}) {
    const Tensor base = nonzero_input({40, 30}, 4);
    Tensor x = (contiguous ? base : base.t()).detach().requires_grad_(true);
    const Tensor y = F::dropout(x, F::DropoutFuncOptions().p(0.4));
    EXPECT_EQ(grad_fn_name(y), "NativeDropoutBackward0");
    const at::Tensor g = random_torch(y.sizes().vec(), DType::Float32, 5);
    y.backward(from_torch(g, device));
    const at::Tensor mask = to_torch(y).ne(0).to(at::kFloat);
    EXPECT_TENSOR_EQ(x.grad(), g * mask / 0.6, 1e-6, 1e-6);
  }
  // Second order: the backward of the backward applies the mask again.
  Tensor x = nonzero_input({50}, 6).requires_grad_(true);
  const Tensor y = F::dropout(x, F::DropoutFuncOptions().p(0.5));
  Tensor g = from_torch(random_torch({50}, DType::Float32, 7), device).requires_grad_(true);
  const Tensor gx = autograd::grad({y}, {x}, {g}, true, true)[0];
  EXPECT_EQ(grad_fn_name(gx), "NativeDropoutBackwardBackward0");
  const Tensor gg = autograd::grad({gx.sum()}, {g})[0];
  EXPECT_TENSOR_EQ(gg, to_torch(y).ne(0).to(at::kFloat) * 2);
}

TEST_P(DropoutTest, InPlace) {
  Tensor x = nonzero_input({30, 20}, 8);
  const Tensor alias = x;
  const Tensor y = F::dropout(x, F::DropoutFuncOptions().p(0.5).inplace(true));
  EXPECT_TRUE(y.is_same(x));
  EXPECT_NEAR(zero_fraction(alias), 0.5, 0.1);
  // Recorded in place on a non-leaf: the gradient still sees the mask.
  Tensor leaf = nonzero_input({64}, 9).requires_grad_(true);
  Tensor h = leaf * 1;
  F::dropout(h, F::DropoutFuncOptions().p(0.5).inplace(true));
  EXPECT_EQ(grad_fn_name(h), "NativeDropoutBackward0");
  h.sum().backward();
  EXPECT_TENSOR_EQ(leaf.grad(), to_torch(h).ne(0).to(at::kFloat) * 2);
  // A leaf that requires grad cannot be written in place.
  Tensor leaf_requiring = nonzero_input({4}, 10).requires_grad_(true);
  EXPECT_THROW(F::dropout(leaf_requiring, F::DropoutFuncOptions().inplace(true)), Error);
}

TEST_P(DropoutTest, ChannelWiseDropsWholeChannels) {
  const Tensor x = nonzero_input({16, 32, 5, 5}, 11);
  const Tensor y = F::dropout2d(x, F::Dropout2dFuncOptions().p(0.5));
  EXPECT_EQ(grad_fn_name(F::dropout2d(x.detach().requires_grad_(true))), "MulBackward0");
  const at::Tensor zeros_per_channel = to_torch(y).eq(0).sum({2, 3});
  // Each channel is all zeros or none.
  EXPECT_TRUE(zeros_per_channel.eq(0).logical_or(zeros_per_channel.eq(25)).all().item<bool>());
  EXPECT_NEAR(zero_fraction(y), 0.5, 0.1);
  const Tensor y1 = F::dropout1d(nonzero_input({8, 64, 9}, 12), F::Dropout1dFuncOptions().p(0.25));
  const at::Tensor per_channel = to_torch(y1).eq(0).sum(2);
  EXPECT_TRUE(per_channel.eq(0).logical_or(per_channel.eq(9)).all().item<bool>());
  // Unbatched, as LibTorch's helper: a batch of one.
  EXPECT_EQ(F::dropout2d(nonzero_input({4, 3, 3}, 13)).sizes().vec(), (std::vector<int64_t>{4, 3, 3}));
}

TEST_P(DropoutTest, AlphaDropoutKeepsMeanAndVariance) {
  const Tensor x = from_torch(at::randn({200000}, at::detail::createCPUGenerator(14)), device);
  for (const bool feature : {false, true}) {
    const Tensor y = feature ? F::feature_alpha_dropout(x.view({1000, 200}), F::FeatureAlphaDropoutFuncOptions().p(0.3).training(true))
                             : F::alpha_dropout(x, F::AlphaDropoutFuncOptions().p(0.3).training(true));
    const at::Tensor values = to_torch(y).to(at::kDouble);
    EXPECT_NEAR(values.mean().item<double>(), 0, 0.05);
    EXPECT_NEAR(values.std().item<double>(), 1, 0.05);
  }
  EXPECT_EQ(grad_fn_name(F::alpha_dropout(x.detach().requires_grad_(true), F::AlphaDropoutFuncOptions().training(true))),
            "AddBackward0");
}

TEST_P(DropoutTest, OneDispatchEachWay) {
  Tensor x = nonzero_input({300, 70}, 18).requires_grad_(true);
  const Tensor g = nonzero_input({300, 70}, 19);
  device->synchronize();
  const uint64_t before = stream->stats().dispatches;
  const Tensor y = F::dropout(x);
  EXPECT_EQ(stream->stats().dispatches - before, 1u);
  autograd::grad({y}, {x}, {g});
  EXPECT_EQ(stream->stats().dispatches - before, 2u);
}

TEST_P(DropoutTest, BadInputMessages) {
  const Tensor x = nonzero_input({3, 4}, 15);
  expect_error<Error>([&] { F::dropout(x, F::DropoutFuncOptions().p(1.5)); },
                      "dropout probability has to be between 0 and 1, but got 1.5");
  expect_error<Error>([&] { F::dropout(x, F::DropoutFuncOptions().p(-0.1).training(false)); },
                      "dropout probability has to be between 0 and 1, but got -0.1");
  expect_error<Error>([&] { F::alpha_dropout(x, F::AlphaDropoutFuncOptions().p(1.1)); },
                      "dropout probability has to be between 0 and 1, but got 1.1");
  expect_error<Error>([&] { F::feature_alpha_dropout(nonzero_input({3}, 16), F::FeatureAlphaDropoutFuncOptions().training(true)); },
                      "Feature dropout requires at least 2 dimensions in the input");
  expect_error<Error>([&] { F::dropout1d(nonzero_input({2, 3, 4, 5}, 17)); },
                      "dropout1d: Expected 2D or 3D input, but received a 4D input. Note that dropout1d exists to "
                      "provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an "
                      "optional batch dimension (i.e. 2D or 3D inputs).");
  expect_error<Error>([&] { F::dropout(x.to(kInt64)); }, "result type Float can't be cast to the desired output type Long");
  EXPECT_EQ(torch_error([] { TF::dropout(at::ones({3}), TF::DropoutFuncOptions().p(1.5)); }),
            "dropout probability has to be between 0 and 1, but got 1.5");
  EXPECT_EQ(torch_error([] { TF::dropout(at::ones({3}, at::kLong)); }),
            "result type Float can't be cast to the desired output type Long");
}

INSTANTIATE_TEST_SUITE_P(Backends, DropoutTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
