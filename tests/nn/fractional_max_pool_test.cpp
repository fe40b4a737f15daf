// Fractional max pooling and the LPPool modules against LibTorch: PyTorch's messages for bad input, and
// ember's own where PyTorch reads the samples unchecked; PyTorch's rule for windows holding NaN and
// -inf; fresh samples per call that a seeded generator repeats; gradcheck; and the modules beside
// LibTorch's. The values, indices and gradients over layouts and dtypes are rows of tests/ops/pool.cpp.
#include <torch/nn/functional/pooling.h>
#include <torch/nn/modules/pooling.h>

#include <array>
#include <cmath>
#include <string>

#include "autograd/gradcheck.h"
#include "nn/functional/fractional_max_pool.h"
#include "nn/modules/fractional_max_pool.h"
#include "nn/modules/pooling.h"
#include "tests/autograd_oracle.h"
#include "tests/same_error.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;
namespace TF = torch::nn::functional;

class FractionalMaxPoolTest : public GradTest {
 protected:
  // The D-dim functional with these samples must fail on both sides, with LibTorch's message.
  template <size_t D>
  void expect_same_error_in(const at::Tensor& input, const at::Tensor& samples, std::array<int64_t, D> kernel,
                            std::array<int64_t, D> output, const std::string& what) {
    const Tensor ours = from_torch(input, device), our_samples = from_torch(samples, device);
    const auto options = nn::FractionalMaxPoolOptions<D>(kernel).output_size(output)._random_samples(our_samples);
    expect_same_error(
        [&] {
          if constexpr (D == 2) F::fractional_max_pool2d(ours, options);
          else F::fractional_max_pool3d(ours, options);
        },
        [&] {
          if constexpr (D == 2) at::fractional_max_pool2d(input, kernel, output, samples);
          else at::fractional_max_pool3d(input, kernel, output, samples);
        },
        what);
  }
};

TEST_P(FractionalMaxPoolTest, BadInputsGetLibTorchsMessages) {
  at::Generator gen = at::detail::createCPUGenerator(5);
  const at::Tensor x = at::randn({2, 3, 7, 8}, gen), samples = at::rand({2, 3, 2}, gen);
  expect_same_error_in<2>(at::randn({7, 8}, gen), at::rand({1, 3, 2}, gen), {2, 2}, {5, 5}, "two dims");
  expect_same_error_in<2>(at::randn({2, 0, 7, 8}, gen), at::rand({2, 0, 2}, gen), {2, 2}, {5, 5}, "no channels");
  expect_same_error_in<2>(at::randn({3, 0, 8}, gen), at::rand({1, 3, 2}, gen), {2, 2}, {5, 5}, "no rows");
  expect_same_error_in<2>(x, samples, {3, 3}, {6, 6}, "pool height too large");
  expect_same_error_in<2>(x, samples, {2, 2}, {5, 8}, "pool width too large");
  expect_same_error_in<2>(x, samples, {2, 2}, {-1, 5}, "negative output");
  expect_same_error_in<2>(at::randint(0, 5, {2, 3, 7, 8}, gen), samples, {2, 2}, {5, 5}, "integer input");
  expect_same_error_in<2>(x, samples.to(at::kDouble), {2, 2}, {5, 5}, "float64 samples");

  const at::Tensor x3 = at::randn({2, 3, 7, 8, 9}, gen), samples3 = at::rand({2, 3, 3}, gen);
  expect_same_error_in<3>(at::randn({7, 8, 9}, gen), at::rand({1, 3, 3}, gen), {2, 2, 2}, {5, 5, 5}, "three dims");
  expect_same_error_in<3>(at::randn({2, 3, 7, 0, 9}, gen), samples3, {2, 2, 2}, {5, 5, 5}, "no rows");
  expect_same_error_in<3>(x3, samples3, {2, 2, 2}, {7, 5, 5}, "pool time too large");
  expect_same_error_in<3>(x3, samples3, {2, 2, 2}, {6, 5, 5}, "the last window ending at the input's end");
  expect_same_error_in<3>(x3, samples3, {2, 2, 2}, {5, 8, 5}, "pool height too large");
  expect_same_error_in<3>(x3, samples3, {2, 2, 2}, {5, 5, 9}, "pool width too large");
  expect_same_error_in<3>(at::randint(0, 5, {2, 3, 7, 8, 9}, gen), samples3, {2, 2, 2}, {5, 5, 5}, "integer input");

  const Tensor ours = from_torch(x, device);
  expect_same_error([&] { F::fractional_max_pool2d(ours, F::FractionalMaxPool2dFuncOptions(2)); },
                    [&] { TF::fractional_max_pool2d(x, TF::FractionalMaxPool2dFuncOptions(2)); }, "no output size");
  const at::Tensor graded = samples.clone().requires_grad_(true);
  const Tensor our_graded = from_torch(samples, device).requires_grad_(true);
  expect_same_error(
      [&] {
        F::fractional_max_pool2d(ours, F::FractionalMaxPool2dFuncOptions(2).output_size(5)._random_samples(our_graded));
      },
      [&] {
        TF::fractional_max_pool2d(x, TF::FractionalMaxPool2dFuncOptions(2).output_size(5)._random_samples(graded));
      },
      "samples that require grad");

  expect_same_error([] { nn::FractionalMaxPool2d(nn::FractionalMaxPool2dOptions(2)); },
                    [] { torch::nn::FractionalMaxPool2d(torch::nn::FractionalMaxPool2dOptions(2)); },
                    "module, no size");
  expect_same_error(
      [] { nn::FractionalMaxPool3d(nn::FractionalMaxPool3dOptions(2).output_size(3).output_ratio(0.5)); },
      [] { torch::nn::FractionalMaxPool3d(torch::nn::FractionalMaxPool3dOptions(2).output_size(3).output_ratio(0.5)); },
      "module, both sizes");
  expect_same_error(
      [] {
        nn::FractionalMaxPool2d(nn::FractionalMaxPool2dOptions(2).output_ratio(ExpandingArray<2, double>({0.5, 1.5})));
      },
      [] {
        torch::nn::FractionalMaxPool2d(
            torch::nn::FractionalMaxPool2dOptions(2).output_ratio(torch::ExpandingArray<2, double>({0.5, 1.5})));
      },
      "module, ratio past one");
}

// PyTorch's kernel reads past the input with samples of the wrong size (and makes empty windows of a
// zero kernel); ember refuses both.
TEST_P(FractionalMaxPoolTest, SamplesOfTheWrongSizeAndEmptyKernelsAreRefused) {
  const Tensor x = randn({2, 3, 7, 8}, f32());
  const Tensor one_batch = rand({1, 3, 2}, f32()), two_batches = rand({2, 2, 3}, f32());
  expect_error_containing(
      [&] {
        F::fractional_max_pool2d(x, F::FractionalMaxPool2dFuncOptions(2).output_size(4)._random_samples(one_batch));
      },
      "fractional_max_pool2d(): expected _random_samples of size [2, 3, 2]");
  expect_error_containing(
      [&] {
        F::fractional_max_pool3d(x, F::FractionalMaxPool3dFuncOptions(2).output_size(1)._random_samples(two_batches));
      },
      "expected _random_samples of size [1, 2, 3]");
  expect_error_containing(
      [&] { F::fractional_max_pool2d(x, F::FractionalMaxPool2dFuncOptions({2, 0}).output_size(4)); },
      "kernel_size must be greater than zero, but got [2, 0]");
}

// A window keeps its first largest value; a NaN beats any number, a later NaN an earlier one; a window of
// -inf keeps its first position. Small integers with NaN and -inf make every case common.
TEST_P(FractionalMaxPoolTest, NanAndInfiniteWindowsFollowPyTorch) {
  at::Generator gen = at::detail::createCPUGenerator(8);
  const auto special = [&gen](at::IntArrayRef sizes) {
    const at::Tensor pick = at::randint(0, 10, sizes, gen, at::kLong);
    const at::Tensor values = at::randint(-1, 2, sizes, gen, at::kLong).to(at::kFloat);
    return at::where(pick == 0, NAN, at::where(pick < 4, -INFINITY, values));
  };
  const at::Tensor x = special({2, 3, 9, 10}), samples = at::rand({2, 3, 2}, gen);
  auto [out, indices] = F::fractional_max_pool2d_with_indices(
      from_torch(x, device), F::FractionalMaxPool2dFuncOptions({3, 4}).output_size(ExpandingArray<2>({5, 4}))
                                 ._random_samples(from_torch(samples, device)));
  auto [expected, expected_indices] = at::fractional_max_pool2d(x, {3, 4}, {5, 4}, samples);
  EXPECT_TENSOR_EQ(out, expected);
  EXPECT_TENSOR_EQ(indices, expected_indices);

  const at::Tensor x3 = special({2, 2, 5, 6, 7}), samples3 = at::rand({2, 2, 3}, gen);
  auto [out3, indices3] = F::fractional_max_pool3d_with_indices(
      from_torch(x3, device), F::FractionalMaxPool3dFuncOptions(2).output_size(ExpandingArray<3>({3, 3, 5}))
                                  ._random_samples(from_torch(samples3, device)));
  auto [expected3, expected_indices3] = at::fractional_max_pool3d(x3, {2, 2, 2}, {3, 3, 5}, samples3);
  EXPECT_TENSOR_EQ(out3, expected3);
  EXPECT_TENSOR_EQ(indices3, expected_indices3);
}

// Without samples each call draws new windows from the default generator, so a seed repeats them; every
// output is the input at its index.
TEST_P(FractionalMaxPoolTest, DrawsRepeatUnderASeed) {
  const Tensor x = randn({4, 8, 20, 20}, f32());
  const auto pool = [&x] {
    return F::fractional_max_pool2d_with_indices(x, F::FractionalMaxPool2dFuncOptions(3).output_ratio(0.5));
  };
  manual_seed(11);
  const auto [first, first_indices] = pool();
  const auto [second, second_indices] = pool();
  manual_seed(11);
  const auto [again, again_indices] = pool();
  EXPECT_EQ(first.sizes().vec(), (std::vector<int64_t>{4, 8, 10, 10}));
  EXPECT_TRUE(first_indices.equal(again_indices));
  EXPECT_FALSE(first_indices.equal(second_indices));
  const at::Tensor plane = to_torch(x).flatten(2), at_indices = to_torch(first_indices).flatten(2);
  EXPECT_TENSOR_EQ(first, plane.gather(2, at_indices).view({4, 8, 10, 10}));
}

TEST_P(FractionalMaxPoolTest, GradcheckInFloat64) {
  if (!device->supports(DType::Float64)) GTEST_SKIP() << "no float64 on " << device->info().name;
  at::Generator gen = at::detail::createCPUGenerator(9);
  const Tensor x = from_torch(at::randn({1, 2, 6, 4}, gen).to(at::kDouble), device).requires_grad_(true);
  const Tensor samples = from_torch(at::rand({1, 2, 2}, gen).to(at::kDouble), device);
  const Tensor x3 = from_torch(at::randn({1, 4, 3, 5}, gen).to(at::kDouble), device).requires_grad_(true);
  const Tensor samples3 = from_torch(at::rand({1, 1, 3}, gen).to(at::kDouble), device);
  const auto pool2d = [&samples](const autograd::tensor_list& in) {
    return autograd::tensor_list{F::fractional_max_pool2d(
        in[0], F::FractionalMaxPool2dFuncOptions(2).output_size(ExpandingArray<2>({4, 3}))._random_samples(samples))};
  };
  const auto pool3d = [&samples3](const autograd::tensor_list& in) {
    return autograd::tensor_list{F::fractional_max_pool3d(
        in[0],
        F::FractionalMaxPool3dFuncOptions(2).output_size(ExpandingArray<3>({2, 1, 3}))._random_samples(samples3))};
  };
  EXPECT_TRUE(autograd::gradcheck(pool2d, {x}));
  EXPECT_TRUE(autograd::gradgradcheck(pool2d, {x}));
  EXPECT_TRUE(autograd::gradcheck(pool3d, {x3}));
  EXPECT_TRUE(autograd::gradgradcheck(pool3d, {x3}));
}

TEST_P(FractionalMaxPoolTest, ModulesMatchLibTorchs) {
  at::Generator gen = at::detail::createCPUGenerator(13);
  const at::Tensor x = at::randn({2, 3, 9, 11}, gen), samples = at::rand({2, 3, 2}, gen);
  nn::FractionalMaxPool2d ours(
      nn::FractionalMaxPool2dOptions({2, 3}).output_ratio(0.6)._random_samples(from_torch(samples, device)));
  torch::nn::FractionalMaxPool2d theirs(
      torch::nn::FractionalMaxPool2dOptions({2, 3}).output_ratio(0.6)._random_samples(samples));
  const auto [out, indices] = ours->forward_with_indices(from_torch(x, device));
  const auto [expected, expected_indices] = theirs->forward_with_indices(x);
  EXPECT_TENSOR_EQ(out, expected);
  EXPECT_TENSOR_EQ(indices, expected_indices);
  EXPECT_EQ(ours->named_buffers().keys(), theirs->named_buffers().keys());

  const at::Tensor x3 = at::randn({3, 6, 5, 7}, gen), samples3 = at::rand({1, 3, 3}, gen);
  nn::FractionalMaxPool3d ours3(nn::FractionalMaxPool3dOptions(2)
                                    .output_size(ExpandingArray<3>({4, 3, 5}))
                                    ._random_samples(from_torch(samples3, device)));
  torch::nn::FractionalMaxPool3d theirs3(torch::nn::FractionalMaxPool3dOptions(2)
                                             .output_size(torch::ExpandingArray<3>({4, 3, 5}))
                                             ._random_samples(samples3));
  EXPECT_TENSOR_EQ(ours3(from_torch(x3, device)), theirs3(x3));

  const at::Tensor positive = at::rand({2, 3, 9}, gen) + 0.5;
  EXPECT_TENSOR_EQ(nn::LPPool1d(nn::LPPool1dOptions(3, 2))(from_torch(positive, device)),
                   torch::nn::LPPool1d(torch::nn::LPPool1dOptions(3, 2))(positive), 1e-5, 1e-6);
  const at::Tensor positive2 = at::rand({2, 3, 6, 7}, gen) + 0.5;
  nn::LPPool2d lp_pool(nn::LPPool2dOptions(2, {2, 3}).stride(1).ceil_mode(true));
  torch::nn::LPPool2d their_lp_pool(torch::nn::LPPool2dOptions(2, {2, 3}).stride(1).ceil_mode(true));
  EXPECT_TENSOR_EQ(lp_pool(from_torch(positive2, device)), their_lp_pool(positive2), 1e-5, 1e-6);
}

INSTANTIATE_TEST_SUITE_P(Backends, FractionalMaxPoolTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
