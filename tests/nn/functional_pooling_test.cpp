// nn::functional pooling against LibTorch's torch::nn::functional, with the options spelled the same:
// random window configurations over random batched and unbatched shapes (values, indices and
// gradients; a configuration LibTorch refuses must be refused with LibTorch's message), the messages
// of bad inputs, gradcheck and gradgradcheck in float64, and the node names of the forward and of its
// gradient.
#include <torch/csrc/autograd/autograd.h>
#include <torch/nn/functional/pooling.h>

#include <random>
#include <string>

#include "autograd/gradcheck.h"
#include "nn/functional/pooling.h"
#include "tests/autograd_oracle.h"
#include "tests/same_error.h"

namespace ember::test {
namespace {

using NnPoolingTest = GradTest;

TEST_P(NnPoolingTest, BadInputsGetLibTorchsMessages) {
  at::Generator gen = at::detail::createCPUGenerator(3);
  const at::Tensor t4 = at::randn({2, 3, 5, 5}, gen), t3 = at::randn({3, 5, 5}, gen), t2 = at::randn({3, 5}, gen);
  const at::Tensor t5 = at::randn({1, 2, 3, 4, 5}, gen), t1 = at::randn({5}, gen);
  const Tensor e4 = on_device(t4), e3 = on_device(t3), e2 = on_device(t2), e5 = on_device(t5), e1 = on_device(t1);
  const at::Tensor g2 = t2.clone().requires_grad_(true);
  const Tensor eg2 = on_device(t2, true);
  const at::Tensor empty_channels = at::zeros({2, 0, 5, 5}), empty_3d = at::zeros({0, 5, 5});
  const Tensor e_empty_channels = on_device(empty_channels), e_empty_3d = on_device(empty_3d);
  const at::Tensor ints = at::ones({1, 1, 4, 4}, at::kLong), ints32 = at::ones({1, 1, 4, 4}, at::kInt);
  const Tensor e_ints = on_device(ints), e_ints32 = on_device(ints32);
  const at::Tensor empty_rows = at::zeros({0, 4}), empty_width = at::zeros({2, 0}), ints2 = at::ones({2, 4}, at::kLong);
  const Tensor e_empty_rows = on_device(empty_rows), e_empty_width = on_device(empty_width), e_ints2 = on_device(ints2);
  const at::Tensor empty_h = at::zeros({2, 3, 0, 5});
  const Tensor e_empty_h = on_device(empty_h);

  // max_pool2d
  EXPECT_SAME_ERROR(e2, t2, F::max_pool2d(in, F::MaxPool2dFuncOptions(2)));
  EXPECT_SAME_ERROR(e5, t5, F::max_pool2d(in, F::MaxPool2dFuncOptions(2)));
  EXPECT_SAME_ERROR(e4, t4, F::max_pool2d(in, F::MaxPool2dFuncOptions(3).padding(2)));
  EXPECT_SAME_ERROR(e4, t4, F::max_pool2d(in, F::MaxPool2dFuncOptions(3).padding({1, -1})));
  EXPECT_SAME_ERROR(e4, t4, F::max_pool2d(in, F::MaxPool2dFuncOptions(3).stride({2, 0})));
  EXPECT_SAME_ERROR(e4, t4, F::max_pool2d(in, F::MaxPool2dFuncOptions(0)));
  EXPECT_SAME_ERROR(e4, t4, F::max_pool2d(in, F::MaxPool2dFuncOptions(0).stride(1)));
  EXPECT_SAME_ERROR(e4, t4, F::max_pool2d(in, F::MaxPool2dFuncOptions(-1).stride(1)));
  EXPECT_SAME_ERROR(e4, t4, F::max_pool2d(in, F::MaxPool2dFuncOptions(2).stride(-1)));
  EXPECT_SAME_ERROR(e4, t4, F::max_pool2d(in, F::MaxPool2dFuncOptions(2).dilation({1, 0})));
  EXPECT_SAME_ERROR(e4, t4, F::max_pool2d(in, F::MaxPool2dFuncOptions(6)));
  EXPECT_SAME_ERROR(e4, t4, F::max_pool2d(in, F::MaxPool2dFuncOptions(3).dilation(3)));
  EXPECT_SAME_ERROR(e_empty_channels, empty_channels, F::max_pool2d(in, F::MaxPool2dFuncOptions(2)));
  EXPECT_SAME_ERROR(e_empty_3d, empty_3d, F::max_pool2d(in, F::MaxPool2dFuncOptions(2)));
  EXPECT_SAME_ERROR(e_ints, ints, F::max_pool2d_with_indices(in, F::MaxPool2dFuncOptions(2)));
  // max_pool1d, on the path with indices (an input that requires grad) and without
  EXPECT_SAME_ERROR(e4, t4, F::max_pool1d(in, F::MaxPool1dFuncOptions(2)));
  EXPECT_SAME_ERROR(e1, t1, F::max_pool1d(in, F::MaxPool1dFuncOptions(2)));
  EXPECT_SAME_ERROR(e_empty_rows, empty_rows, F::max_pool1d(in, F::MaxPool1dFuncOptions(2)));
  EXPECT_SAME_ERROR(e_empty_width, empty_width, F::max_pool1d(in, F::MaxPool1dFuncOptions(2)));
  EXPECT_SAME_ERROR(eg2, g2, F::max_pool1d(in, F::MaxPool1dFuncOptions(2).padding(2)));
  EXPECT_SAME_ERROR(e2, t2, F::max_pool1d(in, F::MaxPool1dFuncOptions(2).padding(2)));
  EXPECT_SAME_ERROR(eg2, g2, F::max_pool1d(in, F::MaxPool1dFuncOptions(7)));
  EXPECT_SAME_ERROR(e2, t2, F::max_pool1d(in, F::MaxPool1dFuncOptions(0)));
  EXPECT_SAME_ERROR(eg2, g2, F::max_pool1d(in, F::MaxPool1dFuncOptions(0)));
  EXPECT_SAME_ERROR(e2, t2, F::max_pool1d(in, F::MaxPool1dFuncOptions(2).stride(-1)));
  EXPECT_SAME_ERROR(e2, t2, F::max_pool1d(in, F::MaxPool1dFuncOptions(2).padding(-1)));
  EXPECT_SAME_ERROR(e2, t2, F::max_pool1d(in, F::MaxPool1dFuncOptions(2).dilation(0)));
  EXPECT_SAME_ERROR(eg2, g2, F::max_pool1d(in, F::MaxPool1dFuncOptions(2).dilation(0)));
  EXPECT_SAME_ERROR(e_ints2, ints2, F::max_pool1d(in, F::MaxPool1dFuncOptions(2)));
  EXPECT_SAME_ERROR(e4, t4, F::max_pool1d_with_indices(in, F::MaxPool1dFuncOptions(2)));
  EXPECT_SAME_ERROR(e_empty_rows, empty_rows, F::max_pool1d_with_indices(in, F::MaxPool1dFuncOptions(2)));
  // avg_pool2d and avg_pool1d
  EXPECT_SAME_ERROR(e2, t2, F::avg_pool2d(in, F::AvgPool2dFuncOptions(2)));
  EXPECT_SAME_ERROR(e5, t5, F::avg_pool2d(in, F::AvgPool2dFuncOptions(2)));
  EXPECT_SAME_ERROR(e4, t4, F::avg_pool2d(in, F::AvgPool2dFuncOptions(3).padding(2)));
  EXPECT_SAME_ERROR(e4, t4, F::avg_pool2d(in, F::AvgPool2dFuncOptions(6)));
  EXPECT_SAME_ERROR(e4, t4, F::avg_pool2d(in, F::AvgPool2dFuncOptions(2).divisor_override(0)));
  EXPECT_SAME_ERROR(e4, t4, F::avg_pool2d(in, F::AvgPool2dFuncOptions(2).stride(0)));
  EXPECT_SAME_ERROR(e4, t4, F::avg_pool2d(in, F::AvgPool2dFuncOptions(0)));
  EXPECT_SAME_ERROR(e_empty_channels, empty_channels, F::avg_pool2d(in, F::AvgPool2dFuncOptions(2)));
  EXPECT_SAME_ERROR(e_empty_h, empty_h, F::avg_pool2d(in, F::AvgPool2dFuncOptions(2)));
  EXPECT_SAME_ERROR(e_ints32, ints32, F::avg_pool2d(in, F::AvgPool2dFuncOptions(2)));
  EXPECT_SAME_ERROR(e4, t4, F::avg_pool1d(in, F::AvgPool1dFuncOptions(2)));
  EXPECT_SAME_ERROR(e1, t1, F::avg_pool1d(in, F::AvgPool1dFuncOptions(2)));
  EXPECT_SAME_ERROR(e2, t2, F::avg_pool1d(in, F::AvgPool1dFuncOptions(2).padding(2)));
  EXPECT_SAME_ERROR(e2, t2, F::avg_pool1d(in, F::AvgPool1dFuncOptions(7)));
  EXPECT_SAME_ERROR(e_empty_rows, empty_rows, F::avg_pool1d(in, F::AvgPool1dFuncOptions(2)));
  // adaptive pooling
  EXPECT_SAME_ERROR(e2, t2, F::adaptive_avg_pool2d(in, F::AdaptiveAvgPool2dFuncOptions(2)));
  EXPECT_SAME_ERROR(e5, t5, F::adaptive_avg_pool2d(in, F::AdaptiveAvgPool2dFuncOptions(2)));
  EXPECT_SAME_ERROR(e4, t4, F::adaptive_avg_pool2d(in, F::AdaptiveAvgPool2dFuncOptions({-1, 2})));
  EXPECT_SAME_ERROR(e_empty_h, empty_h, F::adaptive_avg_pool2d(in, F::AdaptiveAvgPool2dFuncOptions(2)));
  EXPECT_SAME_ERROR(e_ints, ints, F::adaptive_avg_pool2d(in, F::AdaptiveAvgPool2dFuncOptions(2)));
  EXPECT_SAME_ERROR(e_ints, ints, F::adaptive_avg_pool2d(in, F::AdaptiveAvgPool2dFuncOptions(1)));
  EXPECT_SAME_ERROR(e2, t2, F::adaptive_max_pool2d(in, F::AdaptiveMaxPool2dFuncOptions(2)));
  EXPECT_SAME_ERROR(e5, t5, F::adaptive_max_pool2d(in, F::AdaptiveMaxPool2dFuncOptions(2)));
  EXPECT_SAME_ERROR(e_empty_h, empty_h, F::adaptive_max_pool2d(in, F::AdaptiveMaxPool2dFuncOptions(2)));
  EXPECT_SAME_ERROR(e_empty_channels, empty_channels, F::adaptive_max_pool2d(in, F::AdaptiveMaxPool2dFuncOptions(2)));
  EXPECT_SAME_ERROR(e4, t4, F::adaptive_max_pool2d(in, F::AdaptiveMaxPool2dFuncOptions({-1, 2})));
  EXPECT_SAME_ERROR(e_ints, ints, F::adaptive_max_pool2d(in, F::AdaptiveMaxPool2dFuncOptions(2)));
  EXPECT_SAME_ERROR(e4, t4, F::adaptive_avg_pool1d(in, F::AdaptiveAvgPool1dFuncOptions(2)));
  EXPECT_SAME_ERROR(e_empty_width, empty_width, F::adaptive_avg_pool1d(in, F::AdaptiveAvgPool1dFuncOptions(2)));
  EXPECT_SAME_ERROR(e2, t2, F::adaptive_avg_pool1d(in, F::AdaptiveAvgPool1dFuncOptions(-1)));
  EXPECT_SAME_ERROR(e4, t4, F::adaptive_max_pool1d(in, F::AdaptiveMaxPool1dFuncOptions(2)));
  EXPECT_SAME_ERROR(e_empty_width, empty_width, F::adaptive_max_pool1d(in, F::AdaptiveMaxPool1dFuncOptions(2)));
  EXPECT_SAME_ERROR(e2, t2, F::adaptive_max_pool1d(in, F::AdaptiveMaxPool1dFuncOptions(-1)));
}

TEST_P(NnPoolingTest, MaxUnpoolChecksAsLibTorch) {
  const at::Tensor x = at::randn({2, 3, 6, 6}, at::detail::createCPUGenerator(4));
  auto [pooled, indices] = at::max_pool2d_with_indices(x, {2, 2});
  const Tensor p = on_device(pooled), i = on_device(indices);
  const Tensor far = on_device(indices * 100), narrow = on_device(indices.to(at::kInt));
  const Tensor cut = on_device(indices.narrow(2, 0, 1));
  namespace F = ember::nn::functional;
  namespace TF = torch::nn::functional;
  auto same = [&](const std::function<void()>& e, const std::function<void()>& t, const char* what) {
    expect_same_error(e, t, what);
  };
  // The default output is 6 x 6 here; an index of the 6 x 6 plane past a 5 x 5 output is refused.
  same([&] { F::max_unpool2d(p, i, F::MaxUnpool2dFuncOptions(2).output_size(std::vector<int64_t>{2, 3, 5, 5})); },
       [&] { TF::max_unpool2d(pooled, indices, TF::MaxUnpool2dFuncOptions(2).output_size(std::vector<int64_t>{2, 3, 5, 5})); },
       "index past the output");
  same([&] { F::max_unpool2d(p, far, F::MaxUnpool2dFuncOptions(2)); },
       [&] { TF::max_unpool2d(pooled, indices * 100, TF::MaxUnpool2dFuncOptions(2)); }, "far index");
  same([&] { F::max_unpool2d(p, narrow, F::MaxUnpool2dFuncOptions(2)); },
       [&] { TF::max_unpool2d(pooled, indices.to(at::kInt), TF::MaxUnpool2dFuncOptions(2)); }, "int32 indices");
  same([&] { F::max_unpool2d(p, cut, F::MaxUnpool2dFuncOptions(2)); },
       [&] { TF::max_unpool2d(pooled, indices.narrow(2, 0, 1), TF::MaxUnpool2dFuncOptions(2)); }, "index shape");
  same([&] { F::max_unpool2d(p, i, F::MaxUnpool2dFuncOptions(2).output_size(std::vector<int64_t>{2, 3, 9, 9})); },
       [&] { TF::max_unpool2d(pooled, indices, TF::MaxUnpool2dFuncOptions(2).output_size(std::vector<int64_t>{2, 3, 9, 9})); },
       "output size out of range");
  same([&] { F::max_unpool2d(p.flatten(0, 1).flatten(0, 1), i.flatten(0, 1).flatten(0, 1), F::MaxUnpool2dFuncOptions(2)); },
       [&] { TF::max_unpool2d(pooled.flatten(0, 2), indices.flatten(0, 2), TF::MaxUnpool2dFuncOptions(2)); },
       "2-d input");
  same([&] { F::max_unpool2d(p, i, F::MaxUnpool2dFuncOptions(1).padding(2)); },
       [&] { TF::max_unpool2d(pooled, indices, TF::MaxUnpool2dFuncOptions(1).padding(2)); }, "negative output size");
  // An empty output: ATen checks no index then.
  EXPECT_TENSOR_EQ(F::max_unpool2d(p, i, F::MaxUnpool2dFuncOptions(2).padding({3, 0})),
                   TF::max_unpool2d(pooled, indices, TF::MaxUnpool2dFuncOptions(2).padding({3, 0})));
  // LibTorch 1.13 reads an output_size of D values as none at all and throws; ember takes it.
  const Tensor out = F::max_unpool2d(p, i, F::MaxUnpool2dFuncOptions(2).output_size(std::vector<int64_t>{7, 7}));
  EXPECT_TENSOR_EQ(out, at::max_unpool2d(pooled, indices, {7, 7}));
  expect_error<Error>([&] { F::max_unpool2d(p, i, F::MaxUnpool2dFuncOptions(2).output_size(std::vector<int64_t>{7, 7, 7})); },
                      "output_size should be a sequence containing 2 or 4 elements, but it has a length of '3'");
  // Unbatched, and through max_unpool1d.
  EXPECT_TENSOR_EQ(F::max_unpool2d(p[0], i[0], F::MaxUnpool2dFuncOptions(2)), at::max_unpool2d(pooled[0], indices[0], {6, 6}));
  auto [pooled1, indices1] = at::max_pool1d_with_indices(x.flatten(2), {3});
  EXPECT_TENSOR_EQ(F::max_unpool1d(on_device(pooled1[1]), on_device(indices1[1]), F::MaxUnpool1dFuncOptions(3)),
                   TF::max_unpool1d(pooled1[1].unsqueeze(0), indices1[1].unsqueeze(0), TF::MaxUnpool1dFuncOptions(3)).squeeze(0));
}

// Random shapes and windows; LibTorch decides which are valid, and ember must agree.
TEST_P(NnPoolingTest, RandomWindowsMatchLibTorch) {
  std::mt19937 rng(17);
  auto pick = [&](int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng); };
  at::Generator gen = at::detail::createCPUGenerator(18);
  int compared = 0;
  for (int trial = 0; trial < 60; ++trial) {
    std::vector<int64_t> shape;
    const int batch = pick(-1, 3);  // -1: unbatched
    if (batch >= 0) shape.push_back(batch);
    shape.push_back(pick(1, 3));
    shape.push_back(pick(1, 11));
    shape.push_back(pick(1, 11));
    const at::Tensor x = at::randn(shape, gen);
    const int kind = trial % 4;
    const std::vector<int64_t> k = {pick(1, 4), pick(1, 4)}, s = {pick(1, 3), pick(1, 3)};
    const std::vector<int64_t> pad = {pick(0, 2), pick(0, 2)}, d = {pick(1, 2), pick(1, 2)};
    const std::vector<int64_t> o = {pick(1, 8), pick(1, 8)};
    const bool ceil = pick(0, 1) == 1, include_pad = pick(0, 1) == 1;
    const std::optional<int64_t> divisor = pick(0, 3) == 0 ? std::optional<int64_t>(pick(1, 5)) : std::nullopt;
    namespace F = ember::nn::functional;
    namespace TF = torch::nn::functional;
    EmberFn ember_fn;
    TorchFn torch_fn;
    std::string what = "trial " + std::to_string(trial) + " input " + c10::str(x.sizes());
    switch (kind) {
      case 0:
        what += " max_pool2d";
        ember_fn = [=](const std::vector<Tensor>& in) {
          return F::max_pool2d(in[0], F::MaxPool2dFuncOptions(k).stride(s).padding(pad).dilation(d).ceil_mode(ceil));
        };
        torch_fn = [=](const std::vector<at::Tensor>& in) {
          return TF::max_pool2d(in[0], TF::MaxPool2dFuncOptions(k).stride(s).padding(pad).dilation(d).ceil_mode(ceil));
        };
        break;
      case 1:
        what += " avg_pool2d";
        ember_fn = [=](const std::vector<Tensor>& in) {
          return F::avg_pool2d(in[0], F::AvgPool2dFuncOptions(k).stride(s).padding(pad).ceil_mode(ceil)
                                          .count_include_pad(include_pad).divisor_override(divisor));
        };
        torch_fn = [=](const std::vector<at::Tensor>& in) {
          return TF::avg_pool2d(in[0], TF::AvgPool2dFuncOptions(k).stride(s).padding(pad).ceil_mode(ceil)
                                           .count_include_pad(include_pad)
                                           .divisor_override(divisor ? c10::optional<int64_t>(*divisor) : c10::nullopt));
        };
        break;
      case 2:
        what += " adaptive_avg_pool2d";
        ember_fn = [=](const std::vector<Tensor>& in) {
          return F::adaptive_avg_pool2d(in[0], F::AdaptiveAvgPool2dFuncOptions({o[0], o[1]}));
        };
        torch_fn = [=](const std::vector<at::Tensor>& in) {
          return TF::adaptive_avg_pool2d(in[0], TF::AdaptiveAvgPool2dFuncOptions({o[0], o[1]}));
        };
        break;
      default:
        what += " adaptive_max_pool2d";
        ember_fn = [=](const std::vector<Tensor>& in) {
          return F::adaptive_max_pool2d(in[0], F::AdaptiveMaxPool2dFuncOptions({o[0], o[1]}));
        };
        torch_fn = [=](const std::vector<at::Tensor>& in) {
          return TF::adaptive_max_pool2d(in[0], TF::AdaptiveMaxPool2dFuncOptions({o[0], o[1]}));
        };
        break;
    }
    SCOPED_TRACE(what);
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
    check({x}, what, ember_fn, torch_fn, {}, /*all_layouts=*/trial % 8 == 0);
    ++compared;
  }
  EXPECT_GT(compared, 20);
}

TEST_P(NnPoolingTest, GradcheckInFloat64) {
  if (!device->supports(DType::Float64)) GTEST_SKIP() << "no float64 on " << device->info().name;
  namespace F = ember::nn::functional;
  const Tensor x = on_device(at::randn({2, 2, 5, 6}, at::detail::createCPUGenerator(9)).to(at::kDouble), true);
  const Tensor x1 = on_device(at::randn({2, 7}, at::detail::createCPUGenerator(10)).to(at::kDouble), true);
  const std::vector<std::pair<std::string, std::function<Tensor(const Tensor&)>>> ops = {
      {"max_pool2d", [](const Tensor& t) { return F::max_pool2d(t, F::MaxPool2dFuncOptions(3).stride({1, 2}).padding(1).dilation({1, 2})); }},
      {"avg_pool2d", [](const Tensor& t) { return F::avg_pool2d(t, F::AvgPool2dFuncOptions(3).stride(2).padding(1).ceil_mode(true).count_include_pad(false)); }},
      {"avg_pool2d divisor", [](const Tensor& t) { return F::avg_pool2d(t, F::AvgPool2dFuncOptions(2).divisor_override(3)); }},
      {"adaptive_avg_pool2d", [](const Tensor& t) { return F::adaptive_avg_pool2d(t, F::AdaptiveAvgPool2dFuncOptions({3, 4})); }},
      {"adaptive_max_pool2d", [](const Tensor& t) { return F::adaptive_max_pool2d(t, F::AdaptiveMaxPool2dFuncOptions({2, 4})); }},
      {"lp_pool2d", [](const Tensor& t) { return F::lp_pool2d(t.abs() + 0.5, F::LPPool2dFuncOptions(2, 2)); }},
  };
  for (const auto& [name, op] : ops) {
    SCOPED_TRACE(name);
    auto fn = [&op](const autograd::tensor_list& in) { return autograd::tensor_list{op(in[0])}; };
    EXPECT_TRUE(autograd::gradcheck(fn, {x}));
    EXPECT_TRUE(autograd::gradgradcheck(fn, {x}));
  }
  const std::vector<std::pair<std::string, std::function<Tensor(const Tensor&)>>> ops1 = {
      {"max_pool1d", [](const Tensor& t) { return F::max_pool1d(t, F::MaxPool1dFuncOptions(2).stride(1)); }},
      {"avg_pool1d", [](const Tensor& t) { return F::avg_pool1d(t, F::AvgPool1dFuncOptions(3).padding(1)); }},
      {"adaptive_avg_pool1d", [](const Tensor& t) { return F::adaptive_avg_pool1d(t, F::AdaptiveAvgPool1dFuncOptions(4)); }},
      {"adaptive_max_pool1d", [](const Tensor& t) { return F::adaptive_max_pool1d(t, F::AdaptiveMaxPool1dFuncOptions(3)); }},
  };
  for (const auto& [name, op] : ops1) {
    SCOPED_TRACE(name);
    auto fn = [&op](const autograd::tensor_list& in) { return autograd::tensor_list{op(in[0])}; };
    EXPECT_TRUE(autograd::gradcheck(fn, {x1}));
    EXPECT_TRUE(autograd::gradgradcheck(fn, {x1}));
  }
  // max_unpool2d with respect to its values.
  auto [pooled, indices] = at::max_pool2d_with_indices(at::randn({2, 2, 4, 6}, at::detail::createCPUGenerator(12)), {2, 2});
  const Tensor p = on_device(pooled.to(at::kDouble), true), i = on_device(indices);
  auto unpool = [&i](const autograd::tensor_list& in) {
    return autograd::tensor_list{F::max_unpool2d(in[0], i, F::MaxUnpool2dFuncOptions(2))};
  };
  EXPECT_TRUE(autograd::gradcheck(unpool, {p}));
}

TEST_P(NnPoolingTest, NodeNamesOfForwardAndGradientAreLibTorchs) {
  namespace F = ember::nn::functional;
  namespace TF = torch::nn::functional;
  const at::Tensor t = at::randn({2, 3, 6, 6}, at::detail::createCPUGenerator(21));
  struct Named {
    std::function<Tensor(const Tensor&)> ember;
    std::function<at::Tensor(const at::Tensor&)> torch;
  };
  const std::vector<Named> ops = {
      {[](const Tensor& x) { return F::max_pool2d(x, F::MaxPool2dFuncOptions(2)); },
       [](const at::Tensor& x) { return TF::max_pool2d(x, TF::MaxPool2dFuncOptions(2)); }},
      {[](const Tensor& x) { return F::avg_pool2d(x, F::AvgPool2dFuncOptions(2)); },
       [](const at::Tensor& x) { return TF::avg_pool2d(x, TF::AvgPool2dFuncOptions(2)); }},
      {[](const Tensor& x) { return F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions(4)); },
       [](const at::Tensor& x) { return TF::adaptive_avg_pool2d(x, TF::AdaptiveAvgPool2dFuncOptions(4)); }},
      {[](const Tensor& x) { return F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions(1)); },
       [](const at::Tensor& x) { return TF::adaptive_avg_pool2d(x, TF::AdaptiveAvgPool2dFuncOptions(1)); }},
      {[](const Tensor& x) { return F::adaptive_max_pool2d(x, F::AdaptiveMaxPool2dFuncOptions(4)); },
       [](const at::Tensor& x) { return TF::adaptive_max_pool2d(x, TF::AdaptiveMaxPool2dFuncOptions(4)); }},
      {[](const Tensor& x) { return F::max_pool1d(x.flatten(2), F::MaxPool1dFuncOptions(2)); },
       [](const at::Tensor& x) { return TF::max_pool1d(x.flatten(2), TF::MaxPool1dFuncOptions(2)); }},
      {[](const Tensor& x) { return F::avg_pool1d(x.flatten(2), F::AvgPool1dFuncOptions(2)); },
       [](const at::Tensor& x) { return TF::avg_pool1d(x.flatten(2), TF::AvgPool1dFuncOptions(2)); }},
  };
  for (const Named& op : ops) {
    Tensor x = on_device(t, true);
    const at::Tensor xt = t.clone().requires_grad_(true);
    const Tensor y = op.ember(x);
    const at::Tensor yt = op.torch(xt);
    EXPECT_EQ(grad_fn_name(y), grad_fn_name(yt));
    const Tensor g = autograd::grad({y}, {x}, {ones_like(y)}, true, true)[0];
    const at::Tensor gt = torch::autograd::grad({yt}, {xt}, {at::ones_like(yt)}, true, true)[0];
    EXPECT_EQ(grad_fn_name(g), grad_fn_name(gt)) << grad_fn_name(yt);
  }
}

TEST_P(NnPoolingTest, TiedMaximaSendTheGradientToTheFirst) {
  namespace F = ember::nn::functional;
  const at::Tensor t = at::ones({1, 2, 4, 4});
  Tensor x = on_device(t, true);
  F::max_pool2d(x, F::MaxPool2dFuncOptions(3).stride(1).padding(1)).sum().backward();
  at::Tensor xt = t.clone().requires_grad_(true);
  at::max_pool2d(xt, {3, 3}, {1, 1}, {1, 1}).sum().backward();
  EXPECT_TENSOR_EQ(x.grad(), xt.grad());
  Tensor y = on_device(t.view({4, 8}), true);
  F::adaptive_max_pool1d(y, F::AdaptiveMaxPool1dFuncOptions(3)).sum().backward();
  at::Tensor yt = t.view({4, 8}).clone().requires_grad_(true);
  std::get<0>(at::adaptive_max_pool1d(yt, {3})).sum().backward();
  EXPECT_TENSOR_EQ(y.grad(), yt.grad());
}

TEST_P(NnPoolingTest, MaxPool1dWithoutGradAllowsAnEmptyOutput) {
  namespace F = ember::nn::functional;
  const at::Tensor t = at::randn({3, 5}, at::detail::createCPUGenerator(30));
  EXPECT_TENSOR_EQ(F::max_pool1d(on_device(t), F::MaxPool1dFuncOptions(7)), at::max_pool1d(t, {7}));
  EXPECT_TENSOR_EQ(F::max_pool1d(on_device(t), F::MaxPool1dFuncOptions(3).dilation(2).padding(1).ceil_mode(true)),
                   at::max_pool1d(t, {3}, {3}, {1}, {2}, true));
}

INSTANTIATE_TEST_SUITE_P(Backends, NnPoolingTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
