// 3-d pooling against LibTorch's torch::nn::functional and modules: the messages of bad inputs, NaN and
// -inf boxes (which element the max keeps, across both passes), gradcheck and gradgradcheck in float64,
// the node names of the forward and of its gradient, and the modules. Values, indices and gradients over
// layouts and dtypes are rows in tests/ops/pool.cpp.
#include <torch/csrc/autograd/autograd.h>
#include <torch/nn/functional/pooling.h>
#include <torch/nn/modules/pooling.h>

#include <functional>
#include <limits>
#include <string>

#include "autograd/gradcheck.h"
#include "nn/functional/pooling.h"
#include "nn/modules/pooling.h"
#include "tests/autograd_oracle.h"
#include "tests/same_error.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;
namespace TF = torch::nn::functional;

using Pooling3dTest = GradTest;

TEST_P(Pooling3dTest, BadInputsGetLibTorchsMessages) {
  at::Generator gen = at::detail::createCPUGenerator(3);
  const at::Tensor t5 = at::randn({2, 3, 4, 5, 6}, gen), t3 = at::randn({4, 5, 6}, gen);
  const at::Tensor empty_t = at::zeros({2, 3, 0, 5, 6}), empty_c = at::zeros({2, 0, 4, 5, 6});
  const at::Tensor ints = at::ones({1, 1, 4, 4, 4}, at::kLong), ints32 = at::ones({1, 1, 4, 4, 4}, at::kInt);
  const Tensor e5 = on_device(t5), e3 = on_device(t3), e_empty_t = on_device(empty_t), e_empty_c = on_device(empty_c);
  const Tensor e_ints = on_device(ints), e_ints32 = on_device(ints32);

  // max_pool3d
  EXPECT_SAME_ERROR(e3, t3, F::max_pool3d(in, F::MaxPool3dFuncOptions(2)));
  EXPECT_SAME_ERROR(e5, t5, F::max_pool3d(in, F::MaxPool3dFuncOptions(0)));
  EXPECT_SAME_ERROR(e5, t5, F::max_pool3d(in, F::MaxPool3dFuncOptions(2).stride({1, 0, 1})));
  EXPECT_SAME_ERROR(e5, t5, F::max_pool3d(in, F::MaxPool3dFuncOptions(2).stride(-1)));
  EXPECT_SAME_ERROR(e5, t5, F::max_pool3d(in, F::MaxPool3dFuncOptions(2).dilation({1, 1, 0})));
  EXPECT_SAME_ERROR(e5, t5, F::max_pool3d(in, F::MaxPool3dFuncOptions(2).padding(2)));
  EXPECT_SAME_ERROR(e5, t5, F::max_pool3d(in, F::MaxPool3dFuncOptions(3).padding({1, -1, 0})));
  EXPECT_SAME_ERROR(e5, t5, F::max_pool3d(in, F::MaxPool3dFuncOptions(5)));
  EXPECT_SAME_ERROR(e_empty_t, empty_t, F::max_pool3d(in, F::MaxPool3dFuncOptions(2)));
  EXPECT_SAME_ERROR(e_empty_c, empty_c, F::max_pool3d(in, F::MaxPool3dFuncOptions(2)));
  EXPECT_SAME_ERROR(e_ints, ints, F::max_pool3d_with_indices(in, F::MaxPool3dFuncOptions(2)));
  // avg_pool3d (LibTorch pools int64, which the pool kernels do not, but not int32)
  EXPECT_SAME_ERROR(e3, t3, F::avg_pool3d(in, F::AvgPool3dFuncOptions(2)));
  EXPECT_SAME_ERROR(e5, t5, F::avg_pool3d(in, F::AvgPool3dFuncOptions(0)));
  EXPECT_SAME_ERROR(e5, t5, F::avg_pool3d(in, F::AvgPool3dFuncOptions(2).stride(0)));
  EXPECT_SAME_ERROR(e5, t5, F::avg_pool3d(in, F::AvgPool3dFuncOptions(2).padding(2)));
  EXPECT_SAME_ERROR(e5, t5, F::avg_pool3d(in, F::AvgPool3dFuncOptions(5)));
  EXPECT_SAME_ERROR(e5, t5, F::avg_pool3d(in, F::AvgPool3dFuncOptions({7, 2, 2}).padding({3, 0, 0})));
  EXPECT_SAME_ERROR(e5, t5, F::avg_pool3d(in, F::AvgPool3dFuncOptions(2).divisor_override(0)));
  EXPECT_SAME_ERROR(e_empty_t, empty_t, F::avg_pool3d(in, F::AvgPool3dFuncOptions(2)));
  EXPECT_SAME_ERROR(e_empty_c, empty_c, F::avg_pool3d(in, F::AvgPool3dFuncOptions(2)));
  EXPECT_SAME_ERROR(e_ints32, ints32, F::avg_pool3d(in, F::AvgPool3dFuncOptions(2)));
  // adaptive pooling
  EXPECT_SAME_ERROR(e3, t3, F::adaptive_avg_pool3d(in, F::AdaptiveAvgPool3dFuncOptions(2)));
  EXPECT_SAME_ERROR(e_empty_t, empty_t, F::adaptive_avg_pool3d(in, F::AdaptiveAvgPool3dFuncOptions(2)));
  EXPECT_SAME_ERROR(e_empty_c, empty_c, F::adaptive_avg_pool3d(in, F::AdaptiveAvgPool3dFuncOptions(2)));
  EXPECT_SAME_ERROR(e5, t5, F::adaptive_avg_pool3d(in, F::AdaptiveAvgPool3dFuncOptions({2, -1, 2})));
  EXPECT_SAME_ERROR(e_ints, ints, F::adaptive_avg_pool3d(in, F::AdaptiveAvgPool3dFuncOptions(2)));
  EXPECT_SAME_ERROR(e3, t3, F::adaptive_max_pool3d(in, F::AdaptiveMaxPool3dFuncOptions(2)));
  EXPECT_SAME_ERROR(e_empty_t, empty_t, F::adaptive_max_pool3d(in, F::AdaptiveMaxPool3dFuncOptions(2)));
  EXPECT_SAME_ERROR(e_empty_c, empty_c, F::adaptive_max_pool3d(in, F::AdaptiveMaxPool3dFuncOptions(2)));
  EXPECT_SAME_ERROR(e5, t5, F::adaptive_max_pool3d(in, F::AdaptiveMaxPool3dFuncOptions({2, -1, 2})));
  EXPECT_SAME_ERROR(e_ints, ints, F::adaptive_max_pool3d(in, F::AdaptiveMaxPool3dFuncOptions(2)));
}

// A box's maximum is taken in two passes: the element kept must still be PyTorch's, the first largest
// in (t, h, w) order, the last NaN where there are NaNs, and a box of -inf its first position.
TEST_P(Pooling3dTest, NanAndInfinityBoxesKeepLibTorchsElement) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  at::Tensor t = at::randint(-1, 2, {2, 2, 6, 5, 6}, at::detail::createCPUGenerator(7)).to(at::kFloat);
  t.index_put_({0, 0, 1, 2, 3}, nan);
  t.index_put_({0, 0, 0, 1, 1}, nan);  // an earlier NaN in the same box
  t.index_put_({1, 1, 4, 0, 0}, nan);
  t.index_put_({0, 1}, -inf);
  const Tensor x = on_device(t);
  const auto [values, indices] = F::max_pool3d_with_indices(x, F::MaxPool3dFuncOptions(3).stride(2).padding(1));
  const auto [expected_values, expected_indices] = at::max_pool3d_with_indices(t, {3, 3, 3}, {2, 2, 2}, {1, 1, 1});
  EXPECT_TENSOR_EQ(values, expected_values);
  EXPECT_TENSOR_EQ(indices, expected_indices);
  const auto [adaptive_values, adaptive_indices] =
      F::adaptive_max_pool3d_with_indices(x, F::AdaptiveMaxPool3dFuncOptions({4, 3, 4}));
  const auto [expected_adaptive_values, expected_adaptive_indices] = at::adaptive_max_pool3d(t, {4, 3, 4});
  EXPECT_TENSOR_EQ(adaptive_values, expected_adaptive_values);
  EXPECT_TENSOR_EQ(adaptive_indices, expected_adaptive_indices);
}

TEST_P(Pooling3dTest, GradcheckInFloat64) {
  if (!device->supports(DType::Float64)) GTEST_SKIP() << "no float64 on " << device->info().name;
  const Tensor x = on_device(at::randn({2, 2, 4, 5, 6}, at::detail::createCPUGenerator(9)).to(at::kDouble), true);
  const std::vector<std::pair<std::string, std::function<Tensor(const Tensor&)>>> ops = {
      {"max_pool3d",
       [](const Tensor& t) {
         return F::max_pool3d(t, F::MaxPool3dFuncOptions(3).stride({1, 2, 2}).padding(1).dilation({1, 1, 2}));
       }},
      {"avg_pool3d",
       [](const Tensor& t) {
         return F::avg_pool3d(
             t, F::AvgPool3dFuncOptions(3).stride(2).padding(1).ceil_mode(true).count_include_pad(false));
       }},
      {"avg_pool3d divisor",
       [](const Tensor& t) { return F::avg_pool3d(t, F::AvgPool3dFuncOptions(2).divisor_override(3)); }},
      {"adaptive_avg_pool3d",
       [](const Tensor& t) { return F::adaptive_avg_pool3d(t, F::AdaptiveAvgPool3dFuncOptions({3, 2, 4})); }},
      {"adaptive_max_pool3d",
       [](const Tensor& t) { return F::adaptive_max_pool3d(t, F::AdaptiveMaxPool3dFuncOptions({2, 3, 4})); }},
  };
  for (const auto& [name, op] : ops) {
    SCOPED_TRACE(name);
    auto fn = [&op](const autograd::tensor_list& in) { return autograd::tensor_list{op(in[0])}; };
    EXPECT_TRUE(autograd::gradcheck(fn, {x}));
    EXPECT_TRUE(autograd::gradgradcheck(fn, {x}));
  }
}

// LibTorch's node name with its 2-d twin's: MaxPool3DWithIndicesBackwardBackward0 becomes
// MaxPool2DWithIndicesBackwardBackward0.
std::string replace_3d_by_2d(std::string name) {
  const size_t at = name.find("3D");
  if (at != std::string::npos) name[at] = '2';
  return name;
}

TEST_P(Pooling3dTest, NodeNamesOfForwardAndGradientAreLibTorchs) {
  const at::Tensor t = at::randn({2, 3, 4, 6, 6}, at::detail::createCPUGenerator(21));
  struct Named {
    std::function<Tensor(const Tensor&)> ember;
    std::function<at::Tensor(const at::Tensor&)> torch;
  };
  const std::vector<Named> ops = {
      {[](const Tensor& x) { return F::max_pool3d(x, F::MaxPool3dFuncOptions(2)); },
       [](const at::Tensor& x) { return TF::max_pool3d(x, TF::MaxPool3dFuncOptions(2)); }},
      {[](const Tensor& x) { return F::adaptive_max_pool3d(x, F::AdaptiveMaxPool3dFuncOptions(3)); },
       [](const at::Tensor& x) { return TF::adaptive_max_pool3d(x, TF::AdaptiveMaxPool3dFuncOptions(3)); }},
      {[](const Tensor& x) { return F::avg_pool3d(x, F::AvgPool3dFuncOptions(2)); },
       [](const at::Tensor& x) { return TF::avg_pool3d(x, TF::AvgPool3dFuncOptions(2)); }},
      {[](const Tensor& x) { return F::adaptive_avg_pool3d(x, F::AdaptiveAvgPool3dFuncOptions(3)); },
       [](const at::Tensor& x) { return TF::adaptive_avg_pool3d(x, TF::AdaptiveAvgPool3dFuncOptions(3)); }},
      {[](const Tensor& x) { return F::adaptive_avg_pool3d(x, F::AdaptiveAvgPool3dFuncOptions(1)); },
       [](const at::Tensor& x) { return TF::adaptive_avg_pool3d(x, TF::AdaptiveAvgPool3dFuncOptions(1)); }},
  };
  for (size_t i = 0; i < ops.size(); ++i) {
    Tensor x = on_device(t, true);
    const at::Tensor xt = t.clone().requires_grad_(true);
    const Tensor y = ops[i].ember(x);
    const at::Tensor yt = ops[i].torch(xt);
    EXPECT_EQ(grad_fn_name(y), grad_fn_name(yt));
    // The gradient is the two 2-d passes' backward, so under create_graph its node is the 2-d op's
    // backward node (MaxPool2DWithIndicesBackwardBackward0), where PyTorch's is the 3-d one's.
    const Tensor g = autograd::grad({y}, {x}, {ones_like(y)}, true, true)[0];
    const at::Tensor gt = torch::autograd::grad({yt}, {xt}, {at::ones_like(yt)}, true, true)[0];
    if (i < 4) {
      EXPECT_EQ(grad_fn_name(g), replace_3d_by_2d(grad_fn_name(gt))) << grad_fn_name(yt);
    }
  }
}

TEST_P(Pooling3dTest, ModulesMatchLibTorchs) {
  const at::Tensor t = at::randn({2, 3, 5, 6, 7}, at::detail::createCPUGenerator(31));
  const Tensor x = on_device(t);
  nn::MaxPool3d max_pool(nn::MaxPool3dOptions({3, 2, 2}).stride(2).padding(1));
  torch::nn::MaxPool3d torch_max_pool(torch::nn::MaxPool3dOptions({3, 2, 2}).stride(2).padding(1));
  const auto [values, indices] = max_pool->forward_with_indices(x);
  const auto [expected_values, expected_indices] = torch_max_pool->forward_with_indices(t);
  EXPECT_TENSOR_EQ(values, expected_values);
  EXPECT_TENSOR_EQ(indices, expected_indices);
  EXPECT_TENSOR_EQ(nn::AvgPool3d(nn::AvgPool3dOptions(2).ceil_mode(true))(x),
                   torch::nn::AvgPool3d(torch::nn::AvgPool3dOptions(2).ceil_mode(true))(t));
  EXPECT_TENSOR_EQ(nn::AdaptiveAvgPool3d(nn::AdaptiveAvgPool3dOptions({std::nullopt, 3, 2}))(x),
                   torch::nn::AdaptiveAvgPool3d(torch::nn::AdaptiveAvgPool3dOptions({c10::nullopt, 3, 2}))(t));
  nn::AdaptiveMaxPool3d adaptive_max(nn::AdaptiveMaxPool3dOptions(3));
  torch::nn::AdaptiveMaxPool3d torch_adaptive_max(torch::nn::AdaptiveMaxPool3dOptions(3));
  const auto [adaptive_values, adaptive_indices] = adaptive_max->forward_with_indices(x);
  const auto [expected_adaptive_values, expected_adaptive_indices] = torch_adaptive_max->forward_with_indices(t);
  EXPECT_TENSOR_EQ(adaptive_values, expected_adaptive_values);
  EXPECT_TENSOR_EQ(adaptive_indices, expected_adaptive_indices);
}

INSTANTIATE_TEST_SUITE_P(Backends, Pooling3dTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
