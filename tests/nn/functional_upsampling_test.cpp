// interpolate, pixel_shuffle and pixel_unshuffle against LibTorch's torch::nn::functional with the
// options spelled the same: random sizes and scale factors (values and gradients), the messages of bad
// options and inputs, gradcheck in float64, and the node names.
#include <torch/csrc/autograd/autograd.h>
#include <torch/nn/functional/pixelshuffle.h>
#include <torch/nn/functional/upsampling.h>

#include <random>
#include <string>

#include "autograd/gradcheck.h"
#include "nn/functional/pixelshuffle.h"
#include "nn/functional/upsampling.h"
#include "tests/autograd_oracle.h"
#include "tests/same_error.h"

namespace ember::test {
namespace {

using NnUpsamplingTest = GradTest;

using Sizes = std::vector<int64_t>;
using Scales = std::vector<double>;

TEST_P(NnUpsamplingTest, BadInputsGetLibTorchsMessages) {
  at::Generator gen = at::detail::createCPUGenerator(3);
  const at::Tensor t4 = at::randn({2, 3, 5, 5}, gen), t3 = at::randn({2, 3, 5}, gen), t2 = at::randn({3, 5}, gen);
  const at::Tensor t5 = at::randn({1, 2, 3, 4, 5}, gen), ints = at::ones({1, 2, 4, 4}, at::kLong);
  const at::Tensor empty_c = at::zeros({2, 0, 4, 4}), empty_h = at::zeros({2, 3, 0, 4}), empty_c1 = at::zeros({2, 0, 4});
  const Tensor e4 = on_device(t4), e3 = on_device(t3), e2 = on_device(t2), e5 = on_device(t5), e_ints = on_device(ints);
  const Tensor e_empty_c = on_device(empty_c), e_empty_h = on_device(empty_h), e_empty_c1 = on_device(empty_c1);
  EXPECT_SAME_ERROR(e4, t4, F::interpolate(in, F::InterpolateFuncOptions()));
  EXPECT_SAME_ERROR(e4, t4, F::interpolate(in, F::InterpolateFuncOptions().size(Sizes{2, 2}).scale_factor(Scales{2, 2})));
  // LibTorch 1.13 reads a scale per spatial dim before it checks their count (a vector range error).
  expect_error<Error>([&] { nn::functional::interpolate(e4, nn::functional::InterpolateFuncOptions().scale_factor(Scales{2})); },
                      "scale_factor shape must match input shape. Input is 2D, scale_factor size is [2]");
  EXPECT_SAME_ERROR(e4, t4, F::interpolate(in, F::InterpolateFuncOptions().scale_factor(Scales{2, 2.5, 3})));
  EXPECT_SAME_ERROR(e4, t4, F::interpolate(in, F::InterpolateFuncOptions().size(Sizes{2, 2}).align_corners(true)));
  EXPECT_SAME_ERROR(e4, t4, F::interpolate(in, F::InterpolateFuncOptions().size(Sizes{2, 2}).mode(K::kArea).align_corners(false)));
  EXPECT_SAME_ERROR(e4, t4, F::interpolate(in, F::InterpolateFuncOptions().size(Sizes{2}).mode(K::kLinear)));
  EXPECT_SAME_ERROR(e3, t3, F::interpolate(in, F::InterpolateFuncOptions().size(Sizes{2}).mode(K::kBilinear)));
  EXPECT_SAME_ERROR(e3, t3, F::interpolate(in, F::InterpolateFuncOptions().size(Sizes{2}).mode(K::kTrilinear)));
  EXPECT_SAME_ERROR(e4, t4, F::interpolate(in, F::InterpolateFuncOptions().size(Sizes{2, 2}).mode(K::kTrilinear)));
  EXPECT_SAME_ERROR(e5, t5, F::interpolate(in, F::InterpolateFuncOptions().size(Sizes{2, 2, 2}).mode(K::kBilinear)));
  EXPECT_SAME_ERROR(e5, t5, F::interpolate(in, F::InterpolateFuncOptions().size(Sizes{2, 2, 2}).mode(K::kLinear)));
  EXPECT_SAME_ERROR(e2, t2, F::interpolate(in, F::InterpolateFuncOptions().size(Sizes{2})));
  EXPECT_SAME_ERROR(e3, t3, F::interpolate(in, F::InterpolateFuncOptions().size(Sizes{2}).antialias(true)));
  EXPECT_SAME_ERROR(e4, t4, F::interpolate(in, F::InterpolateFuncOptions().size(Sizes{2})));
  EXPECT_SAME_ERROR(e4, t4, F::interpolate(in, F::InterpolateFuncOptions().size(Sizes{0, 2})));
  EXPECT_SAME_ERROR(e4, t4, F::interpolate(in, F::InterpolateFuncOptions().mode(K::kBilinear).align_corners(false)
                                                  .scale_factor(Scales{0.1, 2})));
  EXPECT_SAME_ERROR(e3, t3, F::interpolate(in, F::InterpolateFuncOptions().size(Sizes{0}).mode(K::kLinear)));
  EXPECT_SAME_ERROR(e_empty_c, empty_c, F::interpolate(in, F::InterpolateFuncOptions().size(Sizes{2, 2})));
  EXPECT_SAME_ERROR(e_empty_h, empty_h, F::interpolate(in, F::InterpolateFuncOptions().size(Sizes{2, 2})));
  EXPECT_SAME_ERROR(e_empty_c1, empty_c1, F::interpolate(in, F::InterpolateFuncOptions().size(Sizes{2})));
  EXPECT_SAME_ERROR(e_ints, ints, F::interpolate(in, F::InterpolateFuncOptions().size(Sizes{2, 2})));
  EXPECT_SAME_ERROR(e_ints, ints, F::interpolate(in, F::InterpolateFuncOptions().size(Sizes{2, 2}).mode(K::kBilinear)));
  // pixel_shuffle and pixel_unshuffle
  EXPECT_SAME_ERROR(e2, t2, F::pixel_shuffle(in, F::PixelShuffleFuncOptions(2)));
  EXPECT_SAME_ERROR(e4, t4, F::pixel_shuffle(in, F::PixelShuffleFuncOptions(0)));
  EXPECT_SAME_ERROR(e4, t4, F::pixel_shuffle(in, F::PixelShuffleFuncOptions(2)));
  EXPECT_SAME_ERROR(e2, t2, F::pixel_unshuffle(in, F::PixelUnshuffleFuncOptions(2)));
  EXPECT_SAME_ERROR(e4, t4, F::pixel_unshuffle(in, F::PixelUnshuffleFuncOptions(-1)));
  EXPECT_SAME_ERROR(e4, t4, F::pixel_unshuffle(in, F::PixelUnshuffleFuncOptions(2)));
  EXPECT_SAME_ERROR(e4, t4, F::pixel_unshuffle(in.narrow(2, 0, 4), F::PixelUnshuffleFuncOptions(2)));
}

// Random sizes and scale factors, by every mode the kernels implement; values and gradients.
TEST_P(NnUpsamplingTest, RandomSizesAndScalesMatchLibTorch) {
  std::mt19937 rng(23);
  auto pick = [&](int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng); };
  at::Generator gen = at::detail::createCPUGenerator(24);
  for (int trial = 0; trial < 36; ++trial) {
    const bool two_d = trial % 3 != 0;
    Sizes shape = {pick(1, 2), pick(1, 3), pick(1, 9)};
    if (two_d) shape.push_back(pick(1, 9));
    const at::Tensor x = at::randn(shape, gen);
    const int spatial = two_d ? 2 : 1;
    Sizes size;
    Scales scale;
    for (int d = 0; d < spatial; ++d) {
      size.push_back(pick(1, 14));
      scale.push_back(pick(3, 30) / 10.0);
    }
    const bool by_scale = trial % 2 == 0;
    const bool recompute = trial % 5 == 0;
    const int mode = trial % 4;  // nearest, nearest-exact, (bi)linear, (bi)linear align_corners
    std::string what = "trial " + std::to_string(trial) + " " + c10::str(x.sizes()) +
                       (by_scale ? " scale " + c10::str(at::ArrayRef<double>(scale)) : " size " + c10::str(at::IntArrayRef(size))) +
                       " mode " + std::to_string(mode) + (recompute ? " recompute" : "");
    SCOPED_TRACE(what);
    auto options = [&](auto o, auto nearest, auto nearest_exact, auto linear, auto bilinear) {
      if (by_scale) {
        o.scale_factor(scale);
        if (recompute) o.recompute_scale_factor(true);
      } else {
        o.size(size);
      }
      if (mode == 1) o.mode(nearest_exact);
      if (mode >= 2) {
        if (two_d) o.mode(bilinear); else o.mode(linear);
        o.align_corners(mode == 3);
      }
      if (mode == 0) o.mode(nearest);
      return o;
    };
    const EmberFn ember_fn = [&](const std::vector<Tensor>& in) {
      return nn::functional::interpolate(in[0], options(nn::functional::InterpolateFuncOptions(), kNearest,
                                                        kNearestExact, kLinear, kBilinear));
    };
    const TorchFn torch_fn = [&](const std::vector<at::Tensor>& in) {
      return torch::nn::functional::interpolate(in[0], options(torch::nn::functional::InterpolateFuncOptions(),
                                                               torch::kNearest, torch::kNearestExact, torch::kLinear,
                                                               torch::kBilinear));
    };
    std::string refused;
    try {
      torch_fn({x});
    } catch (const c10::Error& e) {
      refused = e.what_without_backtrace();
    }
    if (!refused.empty()) {
      expect_same_error([&] { ember_fn({on_device(x)}); }, [&] { torch_fn({x}); }, what);
      continue;
    }
    check({x}, what, ember_fn, torch_fn, {}, /*all_layouts=*/trial % 6 == 0);
  }
}

TEST_P(NnUpsamplingTest, GradcheckInFloat64) {
  if (!device->supports(DType::Float64)) GTEST_SKIP() << "no float64 on " << device->info().name;
  namespace F = ember::nn::functional;
  const Tensor x = on_device(at::randn({2, 2, 4, 5}, at::detail::createCPUGenerator(9)).to(at::kDouble)).requires_grad_(true);
  const Tensor x1 = on_device(at::randn({2, 3, 6}, at::detail::createCPUGenerator(10)).to(at::kDouble)).requires_grad_(true);
  const std::vector<std::pair<Tensor, F::InterpolateFuncOptions>> cases = {
      {x, F::InterpolateFuncOptions().size(Sizes{7, 3})},
      {x, F::InterpolateFuncOptions().scale_factor(Scales{1.5, 2.5}).mode(kNearestExact)},
      {x, F::InterpolateFuncOptions().size(Sizes{7, 3}).mode(kBilinear).align_corners(false)},
      {x, F::InterpolateFuncOptions().size(Sizes{3, 8}).mode(kBilinear).align_corners(true)},
      {x1, F::InterpolateFuncOptions().scale_factor(Scales{1.7}).mode(kLinear).align_corners(false)},
  };
  for (const auto& [input, options] : cases) {
    auto fn = [&options = options](const autograd::tensor_list& in) {
      return autograd::tensor_list{F::interpolate(in[0], options)};
    };
    EXPECT_TRUE(autograd::gradcheck(fn, {input}));
    EXPECT_TRUE(autograd::gradgradcheck(fn, {input}));
  }
  const Tensor y = on_device(at::randn({2, 8, 2, 3}, at::detail::createCPUGenerator(11)).to(at::kDouble)).requires_grad_(true);
  auto shuffle = [](const autograd::tensor_list& in) {
    return autograd::tensor_list{F::pixel_unshuffle(F::pixel_shuffle(in[0], F::PixelShuffleFuncOptions(2)) * 2,
                                                    F::PixelUnshuffleFuncOptions(2))};
  };
  EXPECT_TRUE(autograd::gradcheck(shuffle, {y}));
}

TEST_P(NnUpsamplingTest, NodeNamesAreLibTorchs) {
  namespace F = ember::nn::functional;
  namespace TF = torch::nn::functional;
  const at::Tensor t4 = at::randn({2, 3, 4, 4}, at::detail::createCPUGenerator(12));
  const at::Tensor t3 = t4.flatten(2);
  struct Named {
    at::Tensor input;
    std::function<Tensor(const Tensor&)> ember;
    std::function<at::Tensor(const at::Tensor&)> torch;
  };
  const std::vector<Named> ops = {
      {t4, [](const Tensor& x) { return F::interpolate(x, F::InterpolateFuncOptions().size(Sizes{7, 5})); },
       [](const at::Tensor& x) { return TF::interpolate(x, TF::InterpolateFuncOptions().size(Sizes{7, 5})); }},
      {t3, [](const Tensor& x) { return F::interpolate(x, F::InterpolateFuncOptions().size(Sizes{7})); },
       [](const at::Tensor& x) { return TF::interpolate(x, TF::InterpolateFuncOptions().size(Sizes{7})); }},
      {t4, [](const Tensor& x) { return F::interpolate(x, F::InterpolateFuncOptions().size(Sizes{7, 5}).mode(kNearestExact)); },
       [](const at::Tensor& x) { return TF::interpolate(x, TF::InterpolateFuncOptions().size(Sizes{7, 5}).mode(torch::kNearestExact)); }},
      {t4, [](const Tensor& x) { return F::interpolate(x, F::InterpolateFuncOptions().size(Sizes{7, 5}).mode(kBilinear).align_corners(true)); },
       [](const at::Tensor& x) { return TF::interpolate(x, TF::InterpolateFuncOptions().size(Sizes{7, 5}).mode(torch::kBilinear).align_corners(true)); }},
      {t3, [](const Tensor& x) { return F::interpolate(x, F::InterpolateFuncOptions().size(Sizes{7}).mode(kLinear).align_corners(false)); },
       [](const at::Tensor& x) { return TF::interpolate(x, TF::InterpolateFuncOptions().size(Sizes{7}).mode(torch::kLinear).align_corners(false)); }},
      {at::randn({2, 12, 3, 3}, at::detail::createCPUGenerator(13)),
       [](const Tensor& x) { return F::pixel_shuffle(x, F::PixelShuffleFuncOptions(2)); },
       [](const at::Tensor& x) { return TF::pixel_shuffle(x, TF::PixelShuffleFuncOptions(2)); }},
      {t4, [](const Tensor& x) { return F::pixel_unshuffle(x, F::PixelUnshuffleFuncOptions(2)); },
       [](const at::Tensor& x) { return TF::pixel_unshuffle(x, TF::PixelUnshuffleFuncOptions(2)); }},
  };
  for (const Named& op : ops) {
    Tensor x = on_device(op.input).requires_grad_(true);
    const at::Tensor xt = op.input.clone().requires_grad_(true);
    const Tensor y = op.ember(x);
    const at::Tensor yt = op.torch(xt);
    EXPECT_EQ(grad_fn_name(y), grad_fn_name(yt));
    // The gradient's own node, when the output gradient requires grad.
    Tensor g = on_device(at::ones_like(yt)).requires_grad_(true);
    const at::Tensor gt = at::ones_like(yt).requires_grad_(true);
    const Tensor gx = autograd::grad({y}, {x}, {g}, true, true)[0];
    const at::Tensor gxt = torch::autograd::grad({yt}, {xt}, {gt}, true, true)[0];
    EXPECT_EQ(grad_fn_name(gx), grad_fn_name(gxt)) << grad_fn_name(yt);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, NnUpsamplingTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
