// F::conv1d/2d/3d and F::conv_transpose1d/2d/3d against LibTorch: the output and the gradients of input,
// weight and bias over 1-d, 2-d and 3-d shapes with stride, padding ("same" and "valid" too), dilation,
// groups and depthwise, odd sizes, batch 1, empty batches and unbatched inputs, every floating dtype and
// non-contiguous inputs; both Vulkan kernels (register blocks and shared-memory tiles); node names, second
// order and gradcheck in float64; PyTorch's error messages.
#include <ATen/ATen.h>
#include <torch/csrc/autograd/autograd.h>

#include <string>
#include <vector>

#include "autograd/gradcheck.h"
#include "nn/functional/conv.h"
#include "tests/autograd_oracle.h"
#include "tests/oracle.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;

struct ConvCase {
  std::string name;
  std::vector<int64_t> input, weight;  // weight: transposed convolutions' layout when `transposed`
  std::vector<int64_t> stride = {1}, padding = {0}, dilation = {1}, output_padding = {0};
  int64_t groups = 1;
  bool bias = true;
  bool transposed = false;
  std::string padding_text;  // "same" or "valid" instead of `padding`
};

int64_t spatial_of(const ConvCase& c) { return static_cast<int64_t>(c.weight.size()) - 2; }

template <size_t D>
ExpandingArray<D> expand(const std::vector<int64_t>& values) {
  return values.size() == 1 ? ExpandingArray<D>(values[0]) : ExpandingArray<D>(values);
}

std::vector<int64_t> expand_vec(const std::vector<int64_t>& values, int64_t d) {
  return values.size() == 1 ? std::vector<int64_t>(d, values[0]) : values;
}

Tensor call(const Tensor& x, const Tensor& w, const F::Conv1dFuncOptions& o) { return F::conv1d(x, w, o); }
Tensor call(const Tensor& x, const Tensor& w, const F::Conv2dFuncOptions& o) { return F::conv2d(x, w, o); }
Tensor call(const Tensor& x, const Tensor& w, const F::Conv3dFuncOptions& o) { return F::conv3d(x, w, o); }
Tensor call(const Tensor& x, const Tensor& w, const F::ConvTranspose1dFuncOptions& o) {
  return F::conv_transpose1d(x, w, o);
}
Tensor call(const Tensor& x, const Tensor& w, const F::ConvTranspose2dFuncOptions& o) {
  return F::conv_transpose2d(x, w, o);
}
Tensor call(const Tensor& x, const Tensor& w, const F::ConvTranspose3dFuncOptions& o) {
  return F::conv_transpose3d(x, w, o);
}

template <size_t D>
Tensor ember_conv_d(const ConvCase& c, const Tensor& x, const Tensor& w, const Tensor& b) {
  if (c.transposed) {
    F::ConvTransposeFuncOptions<D> o;
    o.stride(expand<D>(c.stride)).padding(expand<D>(c.padding)).output_padding(expand<D>(c.output_padding));
    o.dilation(expand<D>(c.dilation)).groups(c.groups);
    if (b.defined()) o.bias(b);
    return call(x, w, o);
  }
  F::ConvFuncOptions<D> o;
  o.stride(expand<D>(c.stride)).dilation(expand<D>(c.dilation)).groups(c.groups);
  if (c.padding_text == "same") o.padding(kSame);
  else if (c.padding_text == "valid") o.padding(kValid);
  else o.padding(expand<D>(c.padding));
  if (b.defined()) o.bias(b);
  return call(x, w, o);
}

Tensor ember_conv(const ConvCase& c, const Tensor& x, const Tensor& w, const Tensor& b) {
  switch (spatial_of(c)) {
    case 1: return ember_conv_d<1>(c, x, w, b);
    case 2: return ember_conv_d<2>(c, x, w, b);
    default: return ember_conv_d<3>(c, x, w, b);
  }
}

at::Tensor torch_conv(const ConvCase& c, const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  const int64_t d = spatial_of(c);
  const auto stride = expand_vec(c.stride, d), dilation = expand_vec(c.dilation, d);
  if (!c.padding_text.empty()) {
    const c10::string_view mode(c.padding_text);
    if (d == 1) return at::conv1d(x, w, b, stride, mode, dilation, c.groups);
    if (d == 2) return at::conv2d(x, w, b, stride, mode, dilation, c.groups);
    return at::conv3d(x, w, b, stride, mode, dilation, c.groups);
  }
  const auto padding = expand_vec(c.padding, d), output_padding = expand_vec(c.output_padding, d);
  if (x.dim() == d + 1) {  // unbatched
    return at::convolution(x.unsqueeze(0), w, b, stride, padding, dilation, c.transposed, output_padding, c.groups)
        .squeeze(0);
  }
  return at::convolution(x, w, b, stride, padding, dilation, c.transposed, output_padding, c.groups);
}

int64_t bias_size(const ConvCase& c) { return c.transposed ? c.weight[1] * c.groups : c.weight[0]; }

// Tolerance relative to the largest expected magnitude: sums of many rounded products.
double tolerance(DType dtype) {
  switch (dtype) {
    case DType::Float64: return 1e-11;
    case DType::Float32: return 2e-5;
    case DType::Float16: return 4e-3;
    default: return 3e-2;
  }
}

void expect_close(const Tensor& actual, const at::Tensor& expected, DType dtype, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_TRUE(actual.defined());
  const double scale = std::max(1.0, expected.numel() ? expected.abs().max().item<double>() : 0.0);
  const double tol = tolerance(dtype);
  expect_tensor_eq(actual, expected.to(torch_dtype(dtype)), tol, tol * scale);
}

class ConvTest : public BackendTest {
 protected:
  // Runs `c` in `dtype` with `layout` (an index into layouts_of) for the input, and compares the output
  // and the three gradients with LibTorch's, computed in float64 from the same values.
  void check(const ConvCase& c, DType dtype, size_t layout = 0) {
    SCOPED_TRACE(c.name + " " + std::string(dtype_name(dtype)) + " layout " + std::to_string(layout));
    const at::Tensor x = random_torch(c.input, dtype, 11, -1, 1);
    const at::Tensor w = random_torch(c.weight, dtype, 12, -1, 1);
    const at::Tensor b = c.bias ? random_torch({bias_size(c)}, dtype, 13, -1, 1) : at::Tensor();
    at::Tensor xt = x.to(at::kDouble).requires_grad_(true);
    at::Tensor wt = w.to(at::kDouble).requires_grad_(true);
    at::Tensor bt = c.bias ? b.to(at::kDouble).requires_grad_(true) : at::Tensor();
    const at::Tensor yt = torch_conv(c, xt, wt, bt);
    const at::Tensor gy = random_torch(yt.sizes().vec(), dtype, 14, -1, 1);
    yt.backward(gy.to(at::kDouble));

    std::vector<Layout> inputs = layouts_of(x, device);
    Tensor xe = inputs[std::min(layout, inputs.size() - 1)].tensor.requires_grad_(true);
    Tensor we = from_torch(w, device).requires_grad_(true);
    Tensor be = c.bias ? from_torch(b, device).requires_grad_(true) : Tensor();
    const Tensor ye = ember_conv(c, xe, we, be);
    EXPECT_EQ(grad_fn_name(ye), grad_fn_name(yt));
    expect_close(ye, yt.detach(), dtype, "output");
    ye.backward(from_torch(gy, device));
    expect_close(xe.grad(), xt.grad(), dtype, "input gradient");
    expect_close(we.grad(), wt.grad(), dtype, "weight gradient");
    if (c.bias) expect_close(be.grad(), bt.grad(), dtype, "bias gradient");
  }
};

const DType kDtypes[] = {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16};

std::vector<ConvCase> conv_cases() {
  return {
      {"2d 3x3 pad 1", {2, 3, 7, 6}, {4, 3, 3, 3}, {1}, {1}},
      {"2d the CNN's first layer", {3, 1, 28, 28}, {32, 1, 3, 3}, {1}, {1}},
      {"2d stride 2 no bias", {2, 4, 9, 8}, {5, 4, 3, 3}, {2}, {0}, {1}, {0}, 1, false},
      {"2d stride, padding and dilation per dim", {1, 3, 11, 10}, {2, 3, 3, 2}, {2, 1}, {2, 1}, {2, 3}},
      {"2d groups", {2, 6, 5, 7}, {9, 2, 3, 3}, {1}, {1}, {1}, {0}, 3},
      {"2d depthwise", {2, 5, 8, 8}, {5, 1, 3, 3}, {1}, {1}, {1}, {0}, 5},
      {"2d depthwise multiplier 2 stride 2", {1, 3, 9, 9}, {6, 1, 3, 3}, {2}, {1}, {1}, {0}, 3},
      {"2d 1x1", {3, 17, 4, 5}, {13, 17, 1, 1}},
      {"2d kernel as large as the input", {2, 3, 4, 5}, {7, 3, 4, 5}},
      {"2d same, odd kernel", {2, 3, 6, 7}, {4, 3, 3, 5}, {1}, {0}, {1}, {0}, 1, true, false, "same"},
      {"2d same, even kernel (asymmetric)", {2, 3, 6, 7}, {4, 3, 4, 2}, {1}, {0}, {1}, {0}, 1, true, false, "same"},
      {"2d same with dilation", {1, 2, 9, 9}, {3, 2, 2, 3}, {1}, {0}, {3, 2}, {0}, 1, true, false, "same"},
      {"2d valid", {2, 3, 6, 7}, {4, 3, 3, 2}, {1}, {0}, {1}, {0}, 1, true, false, "valid"},
      {"2d empty batch", {0, 3, 5, 5}, {4, 3, 3, 3}, {1}, {1}},
      {"2d unbatched", {3, 6, 5}, {2, 3, 2, 2}},
      {"1d", {2, 3, 17}, {5, 3, 4}, {2}, {3}, {2}},
      {"1d groups", {3, 4, 10}, {6, 2, 3}, {1}, {1}, {1}, {0}, 2},
      {"1d unbatched", {3, 12}, {4, 3, 5}},
      {"3d", {2, 2, 5, 6, 4}, {3, 2, 3, 2, 3}, {1, 2, 1}, {1, 0, 1}},
      {"3d groups and dilation", {1, 4, 6, 5, 5}, {4, 2, 2, 2, 2}, {1}, {1}, {2}, {0}, 2},
      {"transposed 2d", {2, 4, 5, 6}, {4, 3, 3, 3}, {1}, {1}, {1}, {0}, 1, true, true},
      {"transposed 2d stride 2 output_padding", {2, 4, 4, 5}, {4, 3, 3, 2}, {2}, {1, 0}, {1}, {1}, 1, true, true},
      {"transposed 2d stride 3 dilation 2 groups", {1, 4, 3, 4}, {4, 2, 2, 3}, {3, 2}, {0, 1}, {2}, {2, 1}, 2, false,
       true},
      {"transposed 2d empty batch", {0, 4, 3, 3}, {4, 2, 3, 3}, {1}, {0}, {1}, {0}, 1, true, true},
      {"transposed 1d", {2, 3, 7}, {3, 2, 4}, {2}, {1}, {1}, {1}, 1, true, true},
      {"transposed 3d", {1, 2, 3, 4, 3}, {2, 3, 2, 3, 2}, {2, 1, 1}, {0, 1, 0}, {1}, {1, 0, 0}, 1, true, true},
  };
}

TEST_P(ConvTest, MatchesLibTorchEveryDtype) {
  for (const ConvCase& c : conv_cases()) {
    for (DType dtype : kDtypes) {
      if (!device->supports(dtype)) continue;
      check(c, dtype);
    }
  }
}

TEST_P(ConvTest, NonContiguousInputs) {
  for (const ConvCase& c : conv_cases()) {
    for (size_t layout = 1; layout < 3; ++layout) check(c, DType::Float32, layout);
  }
}

// Every Vulkan kernel forced in turn on the same cases (the device class picks among them otherwise).
TEST_P(ConvTest, EveryKernelVariant) {
  if (GetParam() != "vulkan") GTEST_SKIP() << "the variants are Vulkan's";
  for (const char* variant : {"register", "uniform", "tiled"}) {
    setenv("EMBER_CONV_VARIANT", variant, 1);
    for (const ConvCase& c : conv_cases()) {
      check(c, DType::Float32);
      if (device->supports(DType::Float64)) check(c, DType::Float64);
    }
  }
  unsetenv("EMBER_CONV_VARIANT");
}

// Depthwise convolutions (groups == in channels), which Vulkan runs with a direct kernel: odd sizes,
// stride 2, dilation 2, padding, a channel multiplier, batch 1 and 0, 1-d and 3-d, transposed; every dtype
// and non-contiguous inputs, against LibTorch, and with the GEMM path forced for comparison.
std::vector<ConvCase> depthwise_cases() {
  return {
      {"depthwise odd sizes", {2, 7, 13, 11}, {7, 1, 3, 3}, {1}, {1}, {1}, {0}, 7},
      {"depthwise stride 2", {3, 4, 15, 9}, {4, 1, 3, 3}, {2}, {1}, {1}, {0}, 4},
      {"depthwise dilation 2 no padding", {2, 3, 12, 10}, {3, 1, 3, 3}, {1}, {0}, {2}, {0}, 3},
      {"depthwise stride 2 dilation 2 padding 2", {1, 5, 14, 13}, {5, 1, 3, 3}, {2}, {2}, {2}, {0}, 5},
      {"depthwise 5x5 multiplier 3 no bias", {2, 2, 9, 8}, {6, 1, 5, 5}, {1}, {2}, {1}, {0}, 2, false},
      {"depthwise batch 1", {1, 6, 7, 7}, {6, 1, 3, 3}, {1}, {1}, {1}, {0}, 6},
      {"depthwise empty batch", {0, 6, 7, 7}, {6, 1, 3, 3}, {1}, {1}, {1}, {0}, 6},
      {"depthwise same", {2, 4, 6, 7}, {4, 1, 4, 3}, {1}, {0}, {1}, {0}, 4, true, false, "same"},
      {"depthwise 1d", {3, 5, 19}, {10, 1, 4}, {2}, {1}, {2}, {0}, 5},
      {"depthwise 3d", {2, 3, 5, 6, 7}, {3, 1, 3, 2, 3}, {1, 2, 1}, {1, 0, 1}, {1}, {0}, 3},
      {"depthwise transposed stride 2", {2, 4, 5, 6}, {4, 1, 3, 3}, {2}, {1}, {1}, {1}, 4, true, true},
  };
}

TEST_P(ConvTest, DepthwiseMatchesLibTorch) {
  for (const char* variant : {"", "register", "tiled"}) {
    if (GetParam() == "vulkan") setenv("EMBER_CONV_VARIANT", variant, 1);
    else if (*variant) continue;
    SCOPED_TRACE(std::string("EMBER_CONV_VARIANT=") + variant);
    for (const ConvCase& c : depthwise_cases()) {
      for (DType dtype : kDtypes) {
        if (device->supports(dtype) && (*variant == '\0' || dtype == DType::Float32)) check(c, dtype);
      }
      if (*variant == '\0') {
        for (size_t layout = 1; layout < 3; ++layout) check(c, DType::Float32, layout);
      }
    }
  }
  unsetenv("EMBER_CONV_VARIANT");
}

TEST_P(ConvTest, DepthwiseGradcheckFloat64) {
  if (!device->supports(DType::Float64)) GTEST_SKIP() << "the device lacks float64";
  const ConvCase cases[] = {
      {"depthwise stride 2 dilation 2", {2, 3, 7, 6}, {3, 1, 3, 2}, {2}, {1}, {2}, {0}, 3},
      {"depthwise multiplier 2", {1, 2, 5, 5}, {4, 1, 3, 3}, {1}, {1}, {1}, {0}, 2},
      {"depthwise 1d", {2, 3, 8}, {3, 1, 3}, {2}, {1}, {1}, {0}, 3},
  };
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto make = [&](std::vector<int64_t> sizes, uint64_t seed) {
      return from_torch(random_torch(sizes, DType::Float64, seed, -1, 1), device).requires_grad_(true);
    };
    const autograd::tensor_list inputs = {make(c.input, 1), make(c.weight, 2), make({bias_size(c)}, 3)};
    const autograd::DifferentiableFn fn = [c](const autograd::tensor_list& x) {
      return autograd::tensor_list{ember_conv(c, x[0], x[1], x[2])};
    };
    EXPECT_TRUE(autograd::gradcheck(fn, inputs));
    EXPECT_TRUE(autograd::gradgradcheck(fn, inputs));
  }
}

// Shapes where one register block or tile does not cover the GEMM: many channels, long rows, a batch
// that makes the weight gradient split its reduction.
TEST_P(ConvTest, LargerShapes) {
  const std::vector<ConvCase> cases = {
      {"many channels", {2, 37, 9, 11}, {70, 37, 3, 3}, {1}, {1}},
      {"long reduction", {33, 5, 17, 19}, {3, 5, 3, 3}, {1}, {1}},
      {"the CNN's second layer", {8, 32, 14, 14}, {64, 32, 3, 3}, {1}, {1}},
      {"transposed many channels", {3, 40, 7, 6}, {40, 33, 3, 3}, {2}, {1}, {1}, {1}, 1, true, true},
  };
  for (const ConvCase& c : cases) check(c, DType::Float32);
}

TEST_P(ConvTest, SecondOrder) {
  const ConvCase cases[] = {
      {"2d", {2, 4, 5, 6}, {6, 2, 3, 2}, {2, 1}, {1}, {1, 2}, {0}, 2},
      {"transposed", {2, 4, 4, 3}, {4, 3, 2, 2}, {2}, {0}, {1}, {1}, 1, true, true},
  };
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(c.name);
    GradCase test;
    test.inputs = {random_torch(c.input, DType::Float64, 1, -1, 1), random_torch(c.weight, DType::Float64, 2, -1, 1),
                   random_torch({bias_size(c)}, DType::Float64, 3, -1, 1)};
    test.all_layouts = false;
    test.context = c.name;
    expect_second_order_match(
        device, test, [c](const std::vector<Tensor>& x) { return ember_conv(c, x[0], x[1], x[2]); },
        [c](const std::vector<at::Tensor>& x) { return torch_conv(c, x[0], x[1], x[2]); });
  }
}

TEST_P(ConvTest, BackwardNodeNames) {
  const ConvCase c{"2d", {1, 2, 4, 4}, {3, 2, 3, 3}};
  Tensor x = from_torch(random_torch(c.input, DType::Float32, 1, -1, 1), device).requires_grad_(true);
  Tensor w = from_torch(random_torch(c.weight, DType::Float32, 2, -1, 1), device).requires_grad_(true);
  const Tensor y = F::conv2d(x, w);
  const Tensor gx = autograd::grad({y.sum()}, {x}, {}, true, true)[0];
  EXPECT_EQ(grad_fn_name(gx), "ConvolutionBackwardBackward0");
  const Tensor gw = autograd::grad({y.sum()}, {w}, {}, true, true)[0];
  EXPECT_EQ(grad_fn_name(gw), "ConvolutionBackwardBackward0");
}

TEST_P(ConvTest, GradcheckFloat64) {
  if (!device->supports(DType::Float64)) GTEST_SKIP() << "the device lacks float64";
  const ConvCase cases[] = {
      {"2d groups stride dilation", {2, 4, 5, 6}, {4, 2, 3, 2}, {2, 1}, {1, 0}, {1, 2}, {0}, 2},
      {"1d", {2, 2, 7}, {3, 2, 3}, {2}, {1}},
      {"3d", {1, 2, 3, 4, 3}, {2, 2, 2, 2, 2}, {1}, {1}},
      {"transposed 2d", {1, 3, 3, 4}, {3, 2, 2, 3}, {2}, {1, 0}, {1}, {1, 0}, 1, true, true},
      {"2d same even kernel", {1, 2, 4, 5}, {2, 2, 2, 2}, {1}, {0}, {1}, {0}, 1, true, false, "same"},
  };
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto make = [&](std::vector<int64_t> sizes, uint64_t seed) {
      return from_torch(random_torch(sizes, DType::Float64, seed, -1, 1), device).requires_grad_(true);
    };
    const autograd::tensor_list inputs = {make(c.input, 1), make(c.weight, 2), make({bias_size(c)}, 3)};
    const autograd::DifferentiableFn fn = [c](const autograd::tensor_list& x) {
      return autograd::tensor_list{ember_conv(c, x[0], x[1], x[2])};
    };
    EXPECT_TRUE(autograd::gradcheck(fn, inputs));
    EXPECT_TRUE(autograd::gradgradcheck(fn, inputs));
  }
}

// Bad input gets LibTorch's message.
TEST_P(ConvTest, ErrorMessages) {
  struct Bad {
    ConvCase c;
    std::vector<int64_t> bias;  // its sizes, when it is wrong
    DType input_dtype = DType::Float32;
  };
  const std::vector<Bad> cases = {
      {{"flat input", {64, 784}, {32, 3, 3, 3}}},
      {{"channels", {64, 1, 28, 28}, {32, 3, 3, 3}}},
      {{"groups do not divide the weight", {64, 3, 28, 28}, {32, 1, 3, 3}, {1}, {0}, {1}, {0}, 3}},
      {{"groups above the weight's channels", {2, 4, 5, 5}, {2, 3, 3, 3}, {1}, {0}, {1}, {0}, 4}},
      {{"groups times channels", {2, 6, 5, 5}, {4, 3, 3, 3}, {1}, {0}, {1}, {0}, 4}},
      {{"zero groups", {2, 6, 5, 5}, {4, 3, 3, 3}, {1}, {0}, {1}, {0}, 0}},
      {{"bias size", {2, 3, 5, 5}, {4, 3, 3, 3}}, {3}},
      {{"kernel larger than the input", {2, 3, 2, 2}, {4, 3, 3, 3}}},
      {{"kernel larger than the input 1d", {2, 3, 2}, {4, 3, 3}}},
      {{"kernel larger than the empty input", {2, 3, 0, 5}, {4, 3, 3, 3}, {1}, {1}}},
      {{"stride 0", {2, 3, 5, 5}, {4, 3, 3, 3}, {0}}},
      {{"negative padding", {2, 3, 5, 5}, {4, 3, 3, 3}, {1}, {-1}}},
      {{"dilation 0", {2, 3, 5, 5}, {4, 3, 3, 3}, {1}, {0}, {0}}},
      {{"same with stride", {2, 3, 5, 5}, {4, 3, 3, 3}, {2}, {0}, {1}, {0}, 1, true, false, "same"}},
      {{"dtypes", {2, 3, 5, 5}, {4, 3, 3, 3}, {1}}, {}, DType::Float64},
      {{"transposed channels", {2, 3, 5, 5}, {4, 3, 3, 3}, {1}, {0}, {1}, {0}, 1, true, true}},
      {{"transposed bias", {2, 4, 5, 5}, {4, 3, 3, 3}, {1}, {0}, {1}, {0}, 1, true, true}, {4}},
      {{"output_padding too large", {2, 4, 5, 5}, {4, 3, 3, 3}, {1}, {0}, {1}, {1}, 1, true, true}},
      {{"output_padding too large 1d", {2, 4, 5}, {4, 3, 3}, {1}, {0}, {1}, {1}, 1, true, true}},
      {{"output_padding too large 3d", {2, 4, 5, 5, 5}, {4, 3, 3, 3, 3}, {1}, {0}, {1}, {1}, 1, true, true}},
      {{"negative output_padding", {2, 4, 5, 5}, {4, 3, 3, 3}, {1}, {0}, {1}, {-1}, 1, true, true}},
      {{"transposed output too small", {2, 4, 1, 1}, {4, 3, 3, 3}, {1}, {3}, {1}, {0}, 1, true, true}},
      {{"transposed output too small 1d", {2, 4, 1}, {4, 3, 3}, {1}, {3}, {1}, {0}, 1, true, true}},
      {{"transposed dilation 0", {2, 4, 5, 5}, {4, 3, 3, 3}, {1}, {0}, {0}, {0}, 1, true, true}},
      {{"transposed groups", {2, 4, 5, 5}, {6, 3, 3, 3}, {1}, {0}, {1}, {0}, 4, true, true}},
      {{"transposed flat input", {64, 784}, {4, 3, 3, 3}, {1}, {0}, {1}, {0}, 1, true, true}},
      {{"3d flat input", {64, 784}, {4, 3, 3, 3, 3}}},
  };
  for (const Bad& bad : cases) {
    SCOPED_TRACE(bad.c.name);
    const ConvCase& c = bad.c;
    const at::Tensor x = at::zeros(c.input, torch_dtype(bad.input_dtype));
    const at::Tensor w = at::zeros(c.weight);
    const std::vector<int64_t> bias_sizes = bad.bias.empty() ? std::vector<int64_t>{bias_size(c)} : bad.bias;
    const at::Tensor b = at::zeros(bias_sizes);
    // LibTorch's functionals, for unbatched inputs and "same", as in Python.
    const std::string expected = torch_error([&] {
      const int64_t d = spatial_of(c);
      const bool flat = x.dim() != d + 2;
      if (!flat && c.padding_text.empty()) {
        torch_conv(c, x, w, b);
        return;
      }
      const auto stride = expand_vec(c.stride, d), dilation = expand_vec(c.dilation, d);
      const auto padding = expand_vec(c.padding, d), op = expand_vec(c.output_padding, d);
      if (c.transposed) at::conv_transpose2d(x, w, b, stride, padding, op, c.groups, dilation);
      else if (!c.padding_text.empty()) at::conv2d(x, w, b, stride, c10::string_view(c.padding_text), dilation, c.groups);
      else if (d == 3) at::conv3d(x, w, b, stride, padding, dilation, c.groups);
      else at::conv2d(x, w, b, stride, padding, dilation, c.groups);
    });
    expect_error<Error>(
        [&] { ember_conv(c, from_torch(x, device), from_torch(w, device), from_torch(b, device)); }, expected);
  }
}

TEST_P(ConvTest, TransposeOutputPaddingFromOutputSize) {
  const Tensor x = from_torch(at::zeros({2, 4, 5, 6}), device);
  const auto padding = F::conv_transpose_output_padding<2>(x, std::vector<int64_t>{2, 3, 10, 12}, 0, 2, 1, 3);
  EXPECT_EQ(padding, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(F::conv_transpose_output_padding<2>(x, std::nullopt, {1, 0}, 2, 1, 3), (std::vector<int64_t>{1, 0}));
  expect_error<Error>([&] { F::conv_transpose_output_padding<2>(x, std::vector<int64_t>{12, 12}, 0, 2, 1, 3); },
                      "requested an output size of [12, 12], but valid sizes range from [9, 11] to [10, 12] (for an "
                      "input of [5, 6])");
  expect_error<Error>([&] { F::conv_transpose_output_padding<2>(x, std::vector<int64_t>{12}, 0, 2, 1, 3); },
                      "output_size must have 2 or 4 elements (got 1)");
}

INSTANTIATE_TEST_SUITE_P(Backends, ConvTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
