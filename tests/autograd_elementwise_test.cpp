// Gradients of the elementwise ops (tensor/elementwise.cpp, and to/clone/copy_/fill_/zero_ from
// tensor/tensor.cpp) against LibTorch: outputs, first-order gradients over the input layouts, the grad_fn
// name of the result, second order for a representative subset, boundary values where PyTorch picks a
// subgradient, and the in-place forms.
#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/function.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

#include "tests/op_registry.h"

namespace ember::test {
namespace {


// An op written once as a generic lambda over the input list, run by both libraries.
struct OpCase {
  std::string name;
  EmberFn ember;
  TorchFn torch;
  double low = -3, high = 3;  // range of the random inputs
};

template <class F>
OpCase op_case(std::string name, F f, double low = -3, double high = 3) {
  return {std::move(name), EmberFn(f), TorchFn(f), low, high};
}
#define OP(name, expr, ...) op_case(name, [](const auto& x) { return expr; } __VA_OPT__(, ) __VA_ARGS__)


class AutogradElementwiseTest : public BackendTest {
 protected:
  bool has_float64() const { return device->supports(DType::Float64); }
  // Outputs and gradients match, and the result's node has LibTorch's name.
  void check(const GradCase& test, const EmberFn& ember_fn, const TorchFn& torch_fn) {
    std::string ember_name, torch_name;
    auto named_ember = [&](const std::vector<Tensor>& x) {
      Tensor out = ember_fn(x);
      ember_name = grad_fn_name(out);
      return out;
    };
    auto named_torch = [&](const std::vector<at::Tensor>& x) {
      at::Tensor out = torch_fn(x);
      torch_name = grad_fn_name(out);
      return out;
    };
    expect_grads_match(device, test, named_ember, named_torch);
    EXPECT_EQ(ember_name, torch_name) << test.context;
  }
  void check(const GradCase& test, const OpCase& op) { check(test, op.ember, op.torch); }

  // Inputs of the given shapes, random in [op.low, op.high).
  GradCase inputs(const OpCase& op, const std::vector<std::vector<int64_t>>& shapes, uint64_t seed,
                  DType dtype = DType::Float32) {
    GradCase test;
    for (const auto& shape : shapes) test.inputs.push_back(random_torch(shape, dtype, seed++, op.low, op.high));
    std::string shape_names;
    for (const auto& shape : shapes) shape_names += to_string(shape);
    test.context = op.name + " " + std::string(dtype_name(dtype)) + " " + shape_names;
    return test;
  }
};

// The gradients and grad_fn names of each op over shapes and layouts are in the op registry
// (tests/ops/<family>.cpp); here: constants, other dtypes, conversions, boundary values, second order of
// compositions, and in-place forms.

TEST_P(AutogradElementwiseTest, OneSideConstantGetsNoGradient) {
  const OpCase mul = OP("mul", x[0] * x[1]);
  GradCase test = inputs(mul, {{4, 5}, {5}}, 3);
  test.constant = {0};
  check(test, mul);
  test.constant = {1};
  check(test, mul);
}

TEST_P(AutogradElementwiseTest, Float64AndFloat16MatchLibTorch) {
  const std::vector<OpCase> ops = {
      OP("mul", x[0] * x[1]),          OP("add", x[0] + x[1]),      OP("div", x[0] / x[1], 0.5, 3),
      OP("pow", x[0].pow(x[1]), 0.5, 2), OP("exp", x[0].exp() + x[1]), OP("tanh", x[0].tanh() * x[1]),
      OP("sigmoid", x[0].sigmoid() - x[1]), OP("log", x[0].log() * x[1], 0.5, 3),
      OP("gelu", gelu_of(x[0]) * x[1]),   OP("lerp", x[0].lerp(x[1], 0.25)),
  };
  uint64_t seed = 500;
  for (const OpCase& op : ops) {
    if (has_float64()) check(inputs(op, {{9, 5}, {5}}, seed++, DType::Float64), op);
  }
  // Half precision for the arithmetic, which is what LibTorch's CPU kernels take in half.
  const std::vector<OpCase> half_ops = {ops[0], ops[1], ops[2], OP("mul_div", x[0] * x[1] - x[0] / x[1], 0.5, 2)};
  for (const OpCase& op : half_ops) {
    GradCase test = inputs(op, {{9, 5}, {5}}, seed++, DType::Float16);
    test.rtol = test.atol = 2e-2;
    check(test, op);
  }
}

// ---- conversions and copies ----

TEST_P(AutogradElementwiseTest, ConversionsAndClonesMatchLibTorch) {
  GradCase test = inputs(OP("", x[0]), {{6, 7}}, 1000);
  test.context = "to float16";
  check(test, [](const std::vector<Tensor>& x) { return x[0].to(DType::Float16) * 2; },
        [](const std::vector<at::Tensor>& x) { return x[0].to(at::kHalf) * 2; });
  test.context = "to float32 copy";
  check(test, [](const std::vector<Tensor>& x) { return x[0].to(DType::Float32, false, /*copy=*/true); },
        [](const std::vector<at::Tensor>& x) { return x[0].to(at::kFloat, false, /*copy=*/true); });
  test.context = "to int32 (no gradient)";
  check(test, [](const std::vector<Tensor>& x) { return x[0].to(DType::Int32); },
        [](const std::vector<at::Tensor>& x) { return x[0].to(at::kInt); });
  if (has_float64()) {
    test.context = "to float64";
    check(test, [](const std::vector<Tensor>& x) { return x[0].to(DType::Float64); },
          [](const std::vector<at::Tensor>& x) { return x[0].to(at::kDouble); });
  }
  test.context = "clone";
  check(test, OP("clone", x[0].clone()));

  // contiguous() copies a non-contiguous tensor (a clone) and returns a contiguous one as it is.
  const at::Tensor values = random_torch({6, 7}, DType::Float32, 1001);
  Tensor transposed = layouts_of(values, device)[1].tensor;
  transposed.requires_grad_();
  at::Tensor torch_transposed = values.t().contiguous().t().requires_grad_();
  ASSERT_FALSE(transposed.is_contiguous());
  const Tensor out = transposed.contiguous();
  const at::Tensor torch_out = torch_transposed.contiguous();
  EXPECT_EQ(grad_fn_name(out), grad_fn_name(torch_out));
  const at::Tensor g = random_torch({6, 7}, DType::Float32, 1002);
  out.backward(from_torch(g, device));
  torch_out.backward(g);
  expect_tensor_eq(transposed.grad(), torch_transposed.grad());

  Tensor x = from_torch(values, device);
  x.requires_grad_();
  EXPECT_TRUE(x.contiguous().is_same(x));
  EXPECT_TRUE(x.to(DType::Float32).is_same(x));
}

// ---- boundary values, where PyTorch picks one subgradient ----

TEST_P(AutogradElementwiseTest, BoundaryValuesFollowPyTorch) {
  auto values = [](std::vector<float> v) { return at::tensor(v); };
  auto run = [&](const std::string& context, std::vector<at::Tensor> in, const OpCase& op) {
    GradCase test;
    test.inputs = std::move(in);
    test.context = context;
    check(test, op);
  };
  // Ties split the gradient evenly.
  run("maximum ties", {values({1, 2, 3, 2}), values({1, 1, 4, 2})}, OP("", x[0].maximum(x[1])));
  run("minimum ties", {values({1, 2, 3, 2}), values({1, 1, 4, 2})}, OP("", x[0].minimum(x[1])));
  // Clamp's bounds pass the gradient to x; with min > max nothing passes.
  const at::Tensor at_bounds = values({0, 1, 1.5, 2, 3});
  run("clamp at bounds", {at_bounds}, OP("", x[0].clamp(1, 2)));
  run("clamp min at bound", {at_bounds}, OP("", x[0].clamp(1)));
  run("clamp max at bound", {at_bounds}, OP("", x[0].clamp({}, 2)));
  run("clamp min > max", {at_bounds}, OP("", x[0].clamp(2, 1)));
  run("clamp_min at bound", {at_bounds}, OP("", x[0].clamp_min(1)));
  run("clamp_max at bound", {at_bounds}, OP("", x[0].clamp_max(2)));
  // A NaN bound: ignored alone by clamp, NaN everywhere from clamp_min; x's gradient is 0 both ways.
  run("clamp NaN min", {at_bounds}, OP("", x[0].clamp(NAN)));
  run("clamp_min NaN", {at_bounds}, OP("", x[0].clamp_min(NAN)));
  // Tensor bounds: equal to x, crossed (min > max), and equal to each other.
  const std::vector<at::Tensor> bounded = {values({0, 1, 1.5, 2, 3, 1.5, 1.5, 0}), values({1, 1, 1, 1, 1, 2, 1.5, 1}),
                                           values({2, 2, 2, 2, 2, 1, 1.5, 1})};
  run("clamp tensors at bounds", bounded, OP("", x[0].clamp(x[1], x[2])));
  run("clamp tensor min at bound", {bounded[0], bounded[1]}, OP("", x[0].clamp(x[1], {})));
  run("clamp tensor max at bound", {bounded[0], bounded[2]}, OP("", x[0].clamp({}, x[1])));
  run("clamp_min tensor at bound", {bounded[0], bounded[1]}, OP("", x[0].clamp_min(x[1])));
  run("clamp_max tensor at bound", {bounded[0], bounded[2]}, OP("", x[0].clamp_max(x[1])));
  // Kinks at zero.
  const at::Tensor around_zero = values({-1, 0, 1});
  run("relu at 0", {around_zero}, OP("", x[0].relu()));
  run("abs at 0", {around_zero}, OP("", x[0].abs()));
  run("sqrt at 0", {values({0, 1})}, OP("", x[0].sqrt()));
  run("atan2 at the origin", {values({0, 1}), values({0, 1})}, OP("", x[0].atan2(x[1])));
  // Powers at zero base and zero exponent.
  run("pow tensor at zeros", {values({0, 0, 0, 2, -2}), values({0, 1, -1, 0, 2})}, OP("", x[0].pow(x[1])));
  run("pow scalar 0 at 0", {values({0, 1, 2})}, OP("", x[0].pow(0)));
  run("pow scalar -1 at 0", {values({0, 1, 2})}, OP("", x[0].pow(-1)));
  run("0 ** x", {values({0, 1, -1})}, OP("", pow(0.0, x[0])));
  // Replaced values get no gradient.
  const float inf = std::numeric_limits<float>::infinity();
  run("nan_to_num", {values({1, std::nanf(""), inf, -inf})}, OP("", x[0].nan_to_num(0.5, 10.0, -10.0)));
  // Negative operands of remainder and fmod.
  run("remainder signs", {values({5, -5, 5.5}), values({3, 3, -2})}, OP("", x[0].remainder(x[1])));
  run("fmod signs", {values({5, -5, 5.5}), values({3, 3, -2})}, OP("", x[0].fmod(x[1])));
}

TEST_P(AutogradElementwiseTest, FloorDivideHasNoDerivative) {
  Tensor a = from_torch(random_torch({4}, DType::Float32, 1), device).requires_grad_();
  Tensor b = from_torch(random_torch({4}, DType::Float32, 2, 1, 2), device);
  at::Tensor ta = to_torch(a).requires_grad_();
  const Tensor out = a.floor_divide(b);
  const at::Tensor torch_out = ta.floor_divide(to_torch(b));
  EXPECT_EQ(grad_fn_name(out), grad_fn_name(torch_out));
  expect_error<Error>([&] { out.sum().backward(); }, torch_error([&] { torch_out.sum().backward(); }));
}

// ---- second order ----

TEST_P(AutogradElementwiseTest, SecondOrderMatchesLibTorch) {
  const std::vector<OpCase> ops = {
      OP("mul", x[0] * x[1]),
      OP("div", x[0] / x[1], 0.5, 3),
      OP("pow tensor", x[0].pow(x[1]), 0.5, 2),
      OP("pow scalar", x[0].pow(2.5) * x[1], 0.5, 2),
      OP("scalar pow", pow(1.5, x[0]) * x[1]),
      OP("exp", x[0].exp() * x[1]),
      OP("log", x[0].log() * x[1], 0.5, 3),
      OP("tanh", x[0].tanh() * x[1]),
      OP("sigmoid", x[0].sigmoid() * x[1]),
      OP("sqrt", x[0].sqrt() * x[1], 0.5, 3),
      OP("rsqrt", x[0].rsqrt() * x[1], 0.5, 3),
      OP("gelu", gelu_of(x[0]) * x[1]),
      OP("gelu tanh", gelu_of(x[0], "tanh") * x[1]),
      OP("silu", silu_of(x[0]) * x[1]),
      OP("erf", x[0].erf() * x[1]),
      OP("sin", x[0].sin() * x[1]),
      OP("1 / x and 2 - x", (1 / x[0]) * (2 - x[1]), 0.5, 3),
      OP("atan2", x[0].atan2(x[1]), 0.5, 3),
      OP("addcdiv", x[0].addcdiv(x[0], x[1], 0.5), 0.5, 3),
      OP("lerp tensor", x[0].lerp(x[1], x[0] * x[1])),
      OP("maximum", x[0].maximum(x[1]) * x[0]),
      OP("clamp", x[0].clamp(-1, 1) * x[1]),
      OP("where", where(x[0] > 0, x[0] * x[1], x[1].exp())),
  };
  uint64_t seed = 1200;
  for (const OpCase& op : ops) {
    expect_second_order_match(device, inputs(op, {{4, 5}, {4, 5}}, seed += 2), op.ember, op.torch);
  }
  // Broadcast operands and a reduction.
  for (const OpCase& op : {ops[0], ops[1], ops[5], OP("softmax-like", x[0].exp() / x[0].exp().sum() * x[1])}) {
    expect_second_order_match(device, inputs(op, {{4, 5}, {5}}, seed += 2), op.ember, op.torch);
  }
}

// ---- in place ----

TEST_P(AutogradElementwiseTest, InPlaceOnLeafThrowsPyTorchsError) {
  Tensor leaf = from_torch(random_torch({3}, DType::Float32, 1), device);
  leaf.requires_grad_();
  at::Tensor torch_leaf = at::rand({3}).requires_grad_();
  const std::string message = torch_error([&] { torch_leaf.mul_(2); });
  expect_error<Error>([&] { leaf.mul_(2); }, message);
  expect_error<Error>([&] { leaf.add_(leaf); }, message);
  expect_error<Error>([&] { leaf.exp_(); }, message);
  expect_error<Error>([&] { leaf.clamp_(0, 1); }, message);
  expect_error<Error>([&] { leaf.zero_(); }, message);
  expect_error<Error>([&] { leaf.fill_(1); }, message);
  expect_error<Error>([&] { leaf.copy_(leaf.detach()); }, message);
  expect_error<Error>([&] { leaf.masked_fill_(leaf.detach() > 0, 1); }, message);
  expect_error<Error>([&] { leaf.select(0, 1).mul_(2); },
                      torch_error([&] { torch_leaf.select(0, 1).mul_(2); }));
  // Without grad mode the write is allowed and not recorded.
  {
    autograd::NoGradGuard no_grad;
    leaf.mul_(2);
  }
  EXPECT_TRUE(leaf.is_leaf());
  // A result self's dtype cannot hold is refused as by the unrecorded kernel.
  Tensor ints = zeros({3}, TensorOptions().dtype(DType::Int64).device(device));
  expect_error<Error>([&] { ints.add_(leaf); },
                      torch_error([&] { at::zeros({3}, at::kLong).add_(torch_leaf); }));
}

TEST_P(AutogradElementwiseTest, InPlaceOnNonLeafMatchesLibTorch) {
  // x = a * 1; x.mul_(2); x.sum().backward() gives a.grad = 2.
  Tensor a = from_torch(random_torch({3}, DType::Float32, 2), device);
  a.requires_grad_();
  at::Tensor ta = to_torch(a).requires_grad_();
  Tensor x = a * 1;
  x.mul_(2);
  at::Tensor tx = ta * 1;
  tx.mul_(2);
  EXPECT_EQ(grad_fn_name(x), grad_fn_name(tx));
  x.sum().backward();
  tx.sum().backward();
  expect_tensor_eq(a.grad(), ta.grad());
}

TEST_P(AutogradElementwiseTest, InPlaceOpsMatchLibTorch) {
  struct Case {
    OpCase op;
    std::vector<std::vector<int64_t>> shapes;
  };
  const std::vector<std::vector<int64_t>> one = {{4, 5}};
  const std::vector<std::vector<int64_t>> two = {{4, 5}, {5}};
  const std::vector<std::vector<int64_t>> three = {{4, 5}, {5}, {4, 1}};
  const std::vector<Case> cases = {
      {OP("add_", [&] { auto y = x[0] * 1; y.add_(x[1], 2); return y; }()), two},
      {OP("add_ scalar", [&] { auto y = x[0] * 1; y.add_(2, 3); return y; }()), one},
      {OP("sub_", [&] { auto y = x[0] * 1; y.sub_(x[1], 0.5); return y; }()), two},
      {OP("sub_ scalar", [&] { auto y = x[0] * 1; y.sub_(2); return y; }()), one},
      {OP("mul_", [&] { auto y = x[0] * 1; y.mul_(x[1]); return y; }()), two},
      {OP("mul_ scalar", [&] { auto y = x[0] * 1; y.mul_(2); return y; }()), one},
      {OP("div_", [&] { auto y = x[0] * 1; y.div_(x[1]); return y; }(), 0.5, 3), two},
      {OP("div_ scalar", [&] { auto y = x[0] * 1; y.div_(4); return y; }()), one},
      {OP("pow_", [&] { auto y = x[0] * 1; y.pow_(x[1]); return y; }(), 0.5, 2), two},
      {OP("pow_ scalar", [&] { auto y = x[0] * 1; y.pow_(2); return y; }()), one},
      {OP("remainder_", [&] { auto y = x[0] * 1; y.remainder_(x[1]); return y; }(), 0.5, 3), two},
      {OP("neg_", [&] { auto y = x[0] * 1; y.neg_(); return y; }()), one},
      {OP("abs_", [&] { auto y = x[0] * 1; y.abs_(); return y; }()), one},
      {OP("exp_", [&] { auto y = x[0] * 1; y.exp_(); return y; }()), one},
      {OP("log_", [&] { auto y = x[0] * 1; y.log_(); return y; }(), 0.5, 3), one},
      {OP("sqrt_", [&] { auto y = x[0] * 1; y.sqrt_(); return y; }(), 0.5, 3), one},
      {OP("tanh_", [&] { auto y = x[0] * 1; y.tanh_(); return y; }()), one},
      {OP("sigmoid_", [&] { auto y = x[0] * 1; y.sigmoid_(); return y; }()), one},
      {OP("relu_", [&] { auto y = x[0] * 1; y.relu_(); return y; }()), one},
      {OP("clamp_", [&] { auto y = x[0] * 1; y.clamp_(-1, 1); return y; }()), one},
      {OP("addcmul_", [&] { auto y = x[0] * 1; y.addcmul_(x[1], x[2], 0.5); return y; }()), three},
      {OP("addcdiv_", [&] { auto y = x[0] * 1; y.addcdiv_(x[1], x[2], 2); return y; }(), 0.5, 3), three},
      {OP("zero_", [&] { auto y = x[0] * 1; y.zero_(); return y; }()), one},
      {OP("fill_", [&] { auto y = x[0] * 1; y.fill_(2.5); return y; }()), one},
      {OP("fill_ tensor", [&] { auto y = x[0] * 1; y.fill_(x[1].sum()); return y; }()), two},
      {OP("copy_", [&] { auto y = x[0] * 1; y.copy_(x[1]); return y; }()), two},
      {OP("masked_fill_", [&] { auto y = x[0] * 1; y.masked_fill_(x[1] > 0, 2.0); return y; }()), two},
      {OP("masked_fill_ tensor", [&] { auto y = x[0] * 1; y.masked_fill_(x[1] > 0, x[2].sum()); return y; }()), three},
      // A chain of writes.
      {OP("chain", [&] { auto y = x[0] * 1; y.mul_(x[1]); y.add_(1); y.exp_(); return y; }()), two},
  };
  uint64_t seed = 1500;
  for (const Case& c : cases) check(inputs(c.op, c.shapes, seed += 3), c.op);
  // A write into a view of a tensor with history.
  const OpCase view_mul = OP("view mul_", [&] { auto y = x[0] * 1; y.select(0, 1).mul_(x[1]); return y; }());
  check(inputs(view_mul, two, seed += 3), view_mul);

  auto named = [&](const std::string& name) {
    return std::find_if(cases.begin(), cases.end(), [&](const Case& c) { return c.op.name == name; })->op;
  };
  // Only the written-in tensor requires grad.
  for (const char* name : {"mul_", "copy_"}) {
    GradCase test = inputs(named(name), two, seed += 3);
    test.constant = {0};
    check(test, named(name));
  }
  // Second order through an in-place product.
  const OpCase mul_ = named("mul_");
  expect_second_order_match(device, inputs(mul_, {{4, 5}, {4, 5}}, seed += 3), mul_.ember, mul_.torch);
}

TEST_P(AutogradElementwiseTest, OverwrittenSavedTensorIsReportedAsInPyTorch) {
  Tensor a = from_torch(random_torch({3}, DType::Float32, 3), device);
  a.requires_grad_();
  at::Tensor ta = to_torch(a).requires_grad_();
  Tensor y = a.exp();
  y.add_(1);
  at::Tensor ty = ta.exp();
  ty.add_(1);
  // LibTorch names the tensor type as C++ does; PyTorch, and ember, as Python does.
  std::string message = torch_error([&] { ty.sum().backward(); });
  const std::string cpp_type = "[CPUFloatType ";
  ASSERT_NE(message.find(cpp_type), std::string::npos) << message;
  message.replace(message.find(cpp_type), cpp_type.size(), "[torch.FloatTensor ");
  expect_error<Error>([&] { y.sum().backward(); }, message);
}

INSTANTIATE_TEST_SUITE_P(Backends, AutogradElementwiseTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
