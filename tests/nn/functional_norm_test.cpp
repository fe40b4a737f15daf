// The normalisation functionals beyond their registry rows (tests/ops/norm.cpp): batch norm's running
// statistics over several training steps against LibTorch's torch::nn::functional::batch_norm, then
// eval on them; instance norm's; channels long enough that the statistics are reduced in chunks and
// merged; rows longer than a workgroup; float16 inputs beside float32 parameters; gradcheck and
// gradgradcheck in float64; the node names; and PyTorch's messages for bad input.
#include <torch/nn/functional/batchnorm.h>
#include <torch/nn/functional/instancenorm.h>
#include <torch/nn/functional/normalization.h>

#include "autograd/gradcheck.h"
#include "nn/functional/batchnorm.h"
#include "nn/functional/instancenorm.h"
#include "nn/functional/normalization.h"
#include "tests/autograd_oracle.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;
namespace TF = torch::nn::functional;

class NormTest : public GradTest {
 protected:
  at::Tensor random(at::IntArrayRef sizes, uint64_t seed, double low = -3, double high = 3,
                    at::ScalarType dtype = at::kFloat) {
    return random_torch(sizes, ember_dtype(dtype), seed, low, high);
  }
  bool lacks_float64() {
    if (device->supports(DType::Float64)) return false;
    std::printf("[  NOTE    ] float64 skipped: the device lacks it\n");
    return true;
  }
};

TEST_P(NormTest, BatchNormRunningStatisticsOverSteps) {
  for (const double momentum : {0.1, 0.5}) {
    at::Tensor mean = at::zeros({4}), var = at::ones({4});
    Tensor ember_mean = from_torch(mean, device), ember_var = from_torch(var, device);
    const at::Tensor w = random({4}, 1), b = random({4}, 2);
    for (int step = 0; step < 4; ++step) {
      SCOPED_TRACE("momentum " + std::to_string(momentum) + " step " + std::to_string(step));
      const at::Tensor x = random({3 + step, 4, 5, 2}, 10 + step, -2 + step, 3 + step);
      const at::Tensor expected = TF::batch_norm(
          x, mean, var, TF::BatchNormFuncOptions().weight(w).bias(b).training(true).momentum(momentum));
      const Tensor actual = F::batch_norm(
          from_torch(x, device), ember_mean, ember_var,
          F::BatchNormFuncOptions().weight(from_torch(w, device)).bias(from_torch(b, device)).training(true).momentum(
              momentum));
      EXPECT_TENSOR_EQ(actual, expected, 1e-4, 1e-4);
      EXPECT_TENSOR_EQ(ember_mean, mean, 1e-5, 1e-5);
      EXPECT_TENSOR_EQ(ember_var, var, 1e-5, 1e-5);
    }
    // Eval on the statistics the steps left.
    const at::Tensor x = random({2, 4, 3}, 99);
    EXPECT_TENSOR_EQ(F::batch_norm(from_torch(x, device), ember_mean, ember_var,
                                   F::BatchNormFuncOptions().weight(from_torch(w, device)).bias(from_torch(b, device))),
                     TF::batch_norm(x, mean, var, TF::BatchNormFuncOptions().weight(w).bias(b)), 1e-4, 1e-4);
  }
}

TEST_P(NormTest, BatchNormUpdatesStridedAndSingleRunningStatistics) {
  // Running statistics that are views with a step, and a running mean without a running variance.
  at::Tensor stats = random({3, 2}, 3, 0.5, 1.5);
  Tensor ember_stats = from_torch(stats, device);
  const at::Tensor x = random({6, 3, 4}, 4);
  TF::batch_norm(x, stats.select(1, 0), stats.select(1, 1), TF::BatchNormFuncOptions().training(true).momentum(0.3));
  F::batch_norm(from_torch(x, device), ember_stats.select(1, 0), ember_stats.select(1, 1),
                F::BatchNormFuncOptions().training(true).momentum(0.3));
  EXPECT_TENSOR_EQ(ember_stats, stats, 1e-5, 1e-5);
  at::Tensor mean = random({3}, 5);
  Tensor ember_mean = from_torch(mean, device);
  TF::batch_norm(x, mean, {}, TF::BatchNormFuncOptions().training(true));
  F::batch_norm(from_torch(x, device), ember_mean, {}, F::BatchNormFuncOptions().training(true));
  EXPECT_TENSOR_EQ(ember_mean, mean, 1e-5, 1e-5);
}

TEST_P(NormTest, BatchNormCumulativeAverageThroughDetail) {
  // A module with momentum None passes 1 / num_batches_tracked.
  at::Tensor mean = at::zeros({2}), var = at::ones({2});
  Tensor ember_mean = from_torch(mean, device), ember_var = from_torch(var, device);
  for (int step = 1; step <= 3; ++step) {
    const at::Tensor x = random({5, 2, 3}, 20 + step, step, 2 * step + 1);
    TF::detail::batch_norm(x, mean, var, {}, {}, true, 1.0 / step, 1e-5);
    F::detail::batch_norm(from_torch(x, device), ember_mean, ember_var, {}, {}, true, 1.0 / step, 1e-5);
  }
  EXPECT_TENSOR_EQ(ember_mean, mean, 1e-5, 1e-5);
  EXPECT_TENSOR_EQ(ember_var, var, 1e-5, 1e-5);
}

TEST_P(NormTest, BatchNormLongChannelsAreChunked) {
  // 2 channels of 64 x 28 x 28: more positions per channel than one workgroup takes, reduced in chunks
  // whose states a second dispatch merges. Values far from zero test the merge's stability.
  const at::Tensor x = random({64, 2, 28, 28}, 6, 100, 104);
  const at::Tensor w = random({2}, 7), b = random({2}, 8);
  at::Tensor mean = at::zeros({2}), var = at::ones({2});
  Tensor ember_mean = from_torch(mean, device), ember_var = from_torch(var, device);
  const at::Tensor xd = x.to(at::kDouble);
  const at::Tensor expected = TF::batch_norm(xd, mean.to(at::kDouble), var.to(at::kDouble),
                                             TF::BatchNormFuncOptions().weight(w.to(at::kDouble)).bias(b.to(at::kDouble)).training(true));
  Tensor xe = from_torch(x, device).requires_grad_(true);
  Tensor we = from_torch(w, device).requires_grad_(true);
  Tensor be = from_torch(b, device).requires_grad_(true);
  const Tensor y = F::batch_norm(xe, ember_mean, ember_var, F::BatchNormFuncOptions().weight(we).bias(be).training(true));
  EXPECT_TENSOR_EQ(y, expected.to(at::kFloat), 1e-3, 1e-3);
  at::Tensor xt = x.clone().requires_grad_(true), wt = w.clone().requires_grad_(true), bt = b.clone().requires_grad_(true);
  at::Tensor mt = at::zeros({2}), vt = at::ones({2});
  const at::Tensor yt = TF::batch_norm(xt, mt, vt, TF::BatchNormFuncOptions().weight(wt).bias(bt).training(true));
  EXPECT_TENSOR_EQ(ember_mean, mt, 1e-5, 1e-4);
  EXPECT_TENSOR_EQ(ember_var, vt, 1e-4, 1e-4);
  const at::Tensor g = random({64, 2, 28, 28}, 9);
  yt.backward(g);
  y.backward(from_torch(g, device));
  EXPECT_TENSOR_EQ(xe.grad(), xt.grad(), 1e-3, 1e-3);
  EXPECT_TENSOR_EQ(we.grad(), wt.grad(), 1e-3, 1e-2);
  EXPECT_TENSOR_EQ(be.grad(), bt.grad(), 1e-4, 1e-2);
}

TEST_P(NormTest, LayerAndGroupNormLongRowsAndManySamples) {
  // Rows of 5000 elements (a workgroup's lanes walk them), and 3000 samples whose weight gradient is
  // reduced in chunks.
  const at::Tensor x = random({3, 5000}, 11), w = random({5000}, 12), b = random({5000}, 13);
  check({x, w, b}, "layer_norm long rows",
        [](const Ins& in) { return F::layer_norm(in[0], F::LayerNormFuncOptions({5000}).weight(in[1]).bias(in[2])); },
        [](const TIns& in) { return TF::layer_norm(in[0], TF::LayerNormFuncOptions({5000}).weight(in[1]).bias(in[2])); },
        {}, false);
  const at::Tensor many = random({3000, 6, 2}, 14), gw = random({6}, 15), gb = random({6}, 16);
  check({many, gw, gb}, "group_norm many samples",
        [](const Ins& in) { return F::group_norm(in[0], F::GroupNormFuncOptions(2).weight(in[1]).bias(in[2])); },
        [](const TIns& in) { return TF::group_norm(in[0], TF::GroupNormFuncOptions(2).weight(in[1]).bias(in[2])); },
        {}, false);
}

TEST_P(NormTest, HalfInputsWithFloatParameters) {
  // Float16 and bfloat16 inputs with float32 weight, bias and running statistics, as mixed-precision
  // training keeps them; LibTorch computes the float32 values, rounded as ember rounds its output.
  for (const at::ScalarType half : {at::kHalf, at::kBFloat16}) {
    SCOPED_TRACE(c10::toString(half));
    const at::Tensor x = random({4, 3, 5}, 17).to(half);
    const at::Tensor w = random({3}, 18), b = random({3}, 19);
    at::Tensor mean = at::zeros({3}), var = at::ones({3});
    Tensor ember_mean = from_torch(mean, device), ember_var = from_torch(var, device);
    const Tensor y = F::batch_norm(from_torch(x, device), ember_mean, ember_var,
                                   F::BatchNormFuncOptions().weight(from_torch(w, device)).bias(from_torch(b, device)).training(true));
    const at::Tensor expected =
        TF::batch_norm(x.to(at::kFloat), mean, var, TF::BatchNormFuncOptions().weight(w).bias(b).training(true));
    EXPECT_TENSOR_EQ(y, expected.to(half));
    EXPECT_TENSOR_EQ(ember_mean, mean, 1e-3, 1e-3);
    EXPECT_TENSOR_EQ(ember_var, var, 1e-3, 1e-3);
    const at::Tensor lw = random({5}, 20), lb = random({5}, 21);
    EXPECT_TENSOR_EQ(F::layer_norm(from_torch(x, device), F::LayerNormFuncOptions({5}).weight(from_torch(lw, device)).bias(from_torch(lb, device))),
                     TF::layer_norm(x.to(at::kFloat), TF::LayerNormFuncOptions({5}).weight(lw).bias(lb)).to(half));
  }
}

TEST_P(NormTest, InstanceNormRunningStatistics) {
  at::Tensor mean = random({3}, 22), var = random({3}, 23, 0.5, 2);
  Tensor ember_mean = from_torch(mean, device), ember_var = from_torch(var, device);
  for (int step = 0; step < 2; ++step) {
    const at::Tensor x = random({2, 3, 6}, 24 + step);
    const at::Tensor expected =
        TF::instance_norm(x, TF::InstanceNormFuncOptions().running_mean(mean).running_var(var).momentum(0.2));
    const Tensor actual = F::instance_norm(
        from_torch(x, device), F::InstanceNormFuncOptions().running_mean(ember_mean).running_var(ember_var).momentum(0.2));
    EXPECT_TENSOR_EQ(actual, expected, 1e-4, 1e-4);
    EXPECT_TENSOR_EQ(ember_mean, mean, 1e-5, 1e-5);
    EXPECT_TENSOR_EQ(ember_var, var, 1e-5, 1e-5);
  }
}

TEST_P(NormTest, NodeNames) {
  Tensor x = from_torch(random({4, 3, 2}, 25), device).requires_grad_(true);
  EXPECT_EQ(grad_fn_name(F::batch_norm(x, {}, {}, F::BatchNormFuncOptions().training(true))), "NativeBatchNormBackward0");
  EXPECT_EQ(grad_fn_name(F::layer_norm(x, F::LayerNormFuncOptions({2}))), "NativeLayerNormBackward0");
  EXPECT_EQ(grad_fn_name(F::group_norm(x, F::GroupNormFuncOptions(3))), "NativeGroupNormBackward0");
  EXPECT_EQ(grad_fn_name(F::instance_norm(x)), "ViewBackward0");
}

TEST_P(NormTest, GradcheckFloat64) {
  if (lacks_float64()) return;
  const auto f64 = [&](at::IntArrayRef sizes, uint64_t seed) {
    return from_torch(random(sizes, seed, -2, 2, at::kDouble), device).requires_grad_(true);
  };
  const Tensor x = f64({4, 3, 5}, 30), w = f64({3}, 31), b = f64({3}, 32);
  const Tensor mean = from_torch(random({3}, 33, -1, 1, at::kDouble), device);
  const Tensor var = from_torch(random({3}, 34, 0.5, 2, at::kDouble), device);
  const std::vector<std::pair<std::string, autograd::DifferentiableFn>> fns = {
      {"batch_norm training",
       [](const autograd::tensor_list& in) {
         return autograd::tensor_list{
             F::batch_norm(in[0], {}, {}, F::BatchNormFuncOptions().weight(in[1]).bias(in[2]).training(true))};
       }},
      {"batch_norm eval",
       [&](const autograd::tensor_list& in) {
         return autograd::tensor_list{F::batch_norm(in[0], mean, var, F::BatchNormFuncOptions().weight(in[1]).bias(in[2]))};
       }},
      {"layer_norm",
       [](const autograd::tensor_list& in) {
         return autograd::tensor_list{F::layer_norm(in[0].transpose(1, 2), F::LayerNormFuncOptions({3}).weight(in[1]).bias(in[2]))};
       }},
      {"group_norm",
       [](const autograd::tensor_list& in) {
         return autograd::tensor_list{F::group_norm(in[0].reshape({2, 6, 5}),
                                                    F::GroupNormFuncOptions(2).weight(in[1].repeat({2})).bias(in[2].repeat({2})))};
       }},
      {"instance_norm",
       [](const autograd::tensor_list& in) {
         return autograd::tensor_list{F::instance_norm(in[0], F::InstanceNormFuncOptions().weight(in[1]).bias(in[2]))};
       }},
  };
  for (const auto& [name, fn] : fns) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(autograd::gradcheck(fn, {x, w, b}));
    EXPECT_TRUE(autograd::gradgradcheck(fn, {x, w, b}));
  }
}

TEST_P(NormTest, DispatchesPerStep) {
  // Batch norm: statistics (running update fused) and apply forward, sums and grad_in backward; layer
  // norm: one row kernel forward, rows and the weight and bias sums backward. Long channels add a merge.
  const auto dispatches = [&](const std::function<void()>& step) {
    device->synchronize();
    const uint64_t before = stream->stats().dispatches;
    step();
    return stream->stats().dispatches - before;
  };
  Tensor x = from_torch(random({8, 4, 5, 5}, 50), device).requires_grad_(true);
  Tensor w = from_torch(random({4}, 51), device).requires_grad_(true);
  Tensor b = from_torch(random({4}, 52), device).requires_grad_(true);
  Tensor mean = from_torch(at::zeros({4}), device), var = from_torch(at::ones({4}), device);
  const Tensor g = from_torch(random({8, 4, 5, 5}, 53), device);
  Tensor y;
  EXPECT_EQ(dispatches([&] {
              y = F::batch_norm(x, mean, var, F::BatchNormFuncOptions().weight(w).bias(b).training(true));
            }),
            2u);
  EXPECT_EQ(dispatches([&] { autograd::grad({y}, {x, w, b}, {g}); }), 2u);
  Tensor rows = from_torch(random({6, 40}, 54), device).requires_grad_(true);
  Tensor lw = from_torch(random({40}, 55), device).requires_grad_(true);
  Tensor lb = from_torch(random({40}, 56), device).requires_grad_(true);
  EXPECT_EQ(dispatches([&] { y = F::layer_norm(rows, F::LayerNormFuncOptions({40}).weight(lw).bias(lb)); }), 1u);
  const Tensor row_grad = from_torch(random({6, 40}, 57), device);
  EXPECT_EQ(dispatches([&] { autograd::grad({y}, {rows, lw, lb}, {row_grad}); }), 2u);
}

TEST_P(NormTest, BadInputMessages) {
  const Tensor x = from_torch(random({1, 4}, 40), device);
  const Tensor four = from_torch(at::zeros({4}), device), three = from_torch(at::zeros({3}), device);
  expect_error<Error>([&] { F::batch_norm(x, four, four, F::BatchNormFuncOptions().training(true)); },
                      "Expected more than 1 value per channel when training, got input size [1, 4]");
  const Tensor x2 = from_torch(random({2, 4}, 41), device);
  expect_error<Error>([&] { F::batch_norm(x2, three, four); }, "running_mean should contain 4 elements not 3");
  expect_error<Error>([&] { F::batch_norm(x2, four, three); }, "running_var should contain 4 elements not 3");
  expect_error<Error>([&] { F::batch_norm(x2, four, four, F::BatchNormFuncOptions().weight(three)); },
                      "weight should contain 4 elements not 3");
  expect_error<Error>([&] { F::batch_norm(x2, {}, {}); }, "running_mean must be defined in evaluation mode");
  expect_error<Error>([&] { F::batch_norm(x2.to(kInt64), four, four); }, "\"batch_norm\" not implemented for 'Long'");
  if (device->supports(DType::Float64)) {
    expect_error<Error>([&] { F::batch_norm(x2.to(kFloat64), four, four); },
                        "expected scalar type Double but found Float");
  }
  expect_error<Error>([&] { F::layer_norm(x2, F::LayerNormFuncOptions({3})); },
                      "Given normalized_shape=[3], expected input with shape [*, 3], but got input of size[2, 4]");
  expect_error<Error>([&] { F::layer_norm(x2, F::LayerNormFuncOptions({})); },
                      "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, "
                      "but got normalized_shape = []");
  expect_error<Error>([&] { F::layer_norm(x2, F::LayerNormFuncOptions({2, 4}).weight(four)); },
                      "Expected weight to be of same shape as normalized_shape, but got weight of shape [4] and "
                      "normalized_shape = [2, 4]");
  const Tensor x3 = from_torch(random({2, 6, 3}, 42), device);
  expect_error<Error>([&] { F::group_norm(x3, F::GroupNormFuncOptions(4)); },
                      "Expected number of channels in input to be divisible by num_groups, but got input of shape "
                      "[2, 6, 3] and num_groups=4");
  expect_error<Error>([&] { F::group_norm(x3, F::GroupNormFuncOptions(3).weight(four)); },
                      "Expected weight to be a vector of size equal to the number of channels in input, but got "
                      "weight of shape [4] and input of shape [2, 6, 3]");
  expect_error<Error>([&] { F::instance_norm(x3, F::InstanceNormFuncOptions().use_input_stats(false)); },
                      "Expected running_mean and running_var to be defined when use_input_stats is false");
  expect_error<Error>([&] { F::instance_norm(from_torch(random({2, 6, 1}, 43), device)); },
                      "Expected more than 1 spatial element when training, got input size [2, 6, 1]");
  // The checks LibTorch makes too, compared with its own text.
  const at::Tensor tx = random({2, 4}, 41);
  EXPECT_EQ(torch_error([&] { TF::batch_norm(tx, at::zeros({3}), at::zeros({4})); }),
            "running_mean should contain 4 elements not 3");
  // Several bad arguments at once: the first in PyTorch's order (running_mean, running_var, weight, bias)
  // names the problem, each statistic's absence in evaluation mode in its turn.
  struct Mixed {
    std::function<void()> ember;
    std::function<void()> torch;
  };
  const at::Tensor t3 = at::zeros({3}), t4 = at::zeros({4}), t5 = at::zeros({5});
  const Tensor five = from_torch(t5, device);
  const std::vector<Mixed> mixed = {
      {[&] { F::batch_norm(x2, three, {}); }, [&] { TF::batch_norm(tx, t3, {}); }},
      {[&] { F::batch_norm(x2, four, three, F::BatchNormFuncOptions().weight(five)); },
       [&] { TF::batch_norm(tx, t4, t3, TF::BatchNormFuncOptions().weight(t5)); }},
      {[&] { F::batch_norm(x2, four, four, F::BatchNormFuncOptions().weight(five).bias(three)); },
       [&] { TF::batch_norm(tx, t4, t4, TF::BatchNormFuncOptions().weight(t5).bias(t3)); }},
      {[&] { F::batch_norm(x2, three, three, F::BatchNormFuncOptions().weight(five).training(true)); },
       [&] { TF::batch_norm(tx, t3, t3, TF::BatchNormFuncOptions().weight(t5).training(true)); }},
  };
  for (size_t i = 0; i < mixed.size(); ++i) {
    SCOPED_TRACE("mixed case " + std::to_string(i));
    expect_error<Error>(mixed[i].ember, torch_error(mixed[i].torch));
  }
  EXPECT_EQ(torch_error([&] { TF::layer_norm(tx, TF::LayerNormFuncOptions({3})); }),
            "Given normalized_shape=[3], expected input with shape [*, 3], but got input of size[2, 4]");
}

INSTANTIATE_TEST_SUITE_P(Backends, NormTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
