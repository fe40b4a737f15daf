// Custom autograd functions (forward/backward with a context that saves tensors and values) and
// gradcheck/gradgradcheck by finite differences.
#include <torch/torch.h>

#include "tests/autograd_oracle.h"

namespace ember::test {
namespace {

class AutogradFunctionTest : public GradTest {};

// exp, saving its output for backward.
struct MyExp : autograd::Function<MyExp> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x) {
    Tensor y = x.exp();
    ctx->save_for_backward({y});
    return y;
  }
  static autograd::tensor_list backward(autograd::AutogradContext* ctx, autograd::tensor_list g) {
    return {g[0] * ctx->get_saved_variables()[0]};
  }
};

// x * scale with a non-tensor argument kept in saved_data.
struct ScaleBy : autograd::Function<ScaleBy> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x, double scale) {
    ctx->saved_data["scale"] = scale;
    return x * full({}, scale, TensorOptions().dtype(x.dtype()).device(x.device()));
  }
  static autograd::tensor_list backward(autograd::AutogradContext* ctx, autograd::tensor_list g) {
    const double scale = std::any_cast<double>(ctx->saved_data["scale"]);
    return {g[0] * full({}, scale, TensorOptions().dtype(g[0].dtype()).device(g[0].device())), Tensor()};
  }
};

// Two outputs, one of them non-differentiable (a mask).
struct ExpAndMask : autograd::Function<ExpAndMask> {
  static autograd::tensor_list forward(autograd::AutogradContext* ctx, const Tensor& x) {
    Tensor y = x.exp();
    Tensor mask = x.gt(0);
    ctx->save_for_backward({y});
    ctx->mark_non_differentiable({mask});
    return {y, mask};
  }
  static autograd::tensor_list backward(autograd::AutogradContext* ctx, autograd::tensor_list g) {
    return {g[0] * ctx->get_saved_variables()[0]};
  }
};

// A deliberately wrong derivative, which gradcheck must catch.
struct WrongSquare : autograd::Function<WrongSquare> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x) {
    ctx->save_for_backward({x});
    return x * x;
  }
  static autograd::tensor_list backward(autograd::AutogradContext* ctx, autograd::tensor_list g) {
    return {g[0] * ctx->get_saved_variables()[0]};  // should be 2x
  }
};

TEST_P(AutogradFunctionTest, ExpExampleFromTheDocs) {
  Tensor x = tensor({0.0, 1.0}, f32()).requires_grad_(true);
  const Tensor y = MyExp::apply(x);
  EXPECT_TRUE(y.requires_grad());
  EXPECT_EQ(y.grad_fn()->name(), "ember::test::(anonymous namespace)::MyExp");
  y.sum().backward();
  at::Tensor x_t = at::tensor({0.0f, 1.0f}).requires_grad_(true);
  x_t.exp().sum().backward();
  expect_tensor_eq(x.grad(), x_t.grad(), 1e-6);  // [1, e]
  expect_error<Error>([&] { y.sum().backward(); },
                      "Trying to backward through the graph a second time (or directly access saved tensors after "
                      "they have already been freed). Saved intermediate values of the graph are freed when you "
                      "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
                      "through the graph a second time or if you need to access saved tensors after calling "
                      "backward.");
}

TEST_P(AutogradFunctionTest, SavedValuesNonTensorArgumentsAndMarkedOutputs) {
  Tensor x = tensor({1.0, -2.0, 3.0}, f32()).requires_grad_(true);
  ScaleBy::apply(x, 2.5).sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{2.5f, 2.5f, 2.5f}));

  x.mutable_grad() = Tensor();
  const autograd::tensor_list outs = ExpAndMask::apply(x);
  EXPECT_TRUE(outs[0].requires_grad());
  EXPECT_FALSE(outs[1].requires_grad());
  outs[0].sum().backward();
  at::Tensor x_t = at::tensor({1.0f, -2.0f, 3.0f}).requires_grad_(true);
  x_t.exp().sum().backward();
  expect_tensor_eq(x.grad(), x_t.grad(), 1e-6);

  // Without grad mode, or without an input that requires grad, nothing is recorded.
  EXPECT_FALSE(MyExp::apply(tensor({1.0}, f32())).requires_grad());
  autograd::NoGradGuard no_grad;
  EXPECT_FALSE(MyExp::apply(x).requires_grad());
}

TEST_P(AutogradFunctionTest, GradcheckPassesAndCatchesWrongDerivatives) {
  const bool has_f64 = device->supports(DType::Float64);
  const TensorOptions options = has_f64 ? f64() : f32();
  if (!has_f64) std::cout << "[ info ] no float64 on " << device->info().name << ": gradcheck runs in float32\n";
  Tensor a = from_torch(random_torch({3, 2}, has_f64 ? DType::Float64 : DType::Float32, 4), device).requires_grad_(true);
  Tensor b = from_torch(random_torch({2}, has_f64 ? DType::Float64 : DType::Float32, 5), device).requires_grad_(true);
  auto fn = [](const autograd::tensor_list& in) {
    return autograd::tensor_list{(in[0] * in[1]).tanh() * in[0].exp(), MyExp::apply(in[1])};
  };
  EXPECT_TRUE(autograd::gradcheck(fn, {a, b}));
  EXPECT_TRUE(autograd::gradgradcheck(fn, {a, b}));

  Tensor c = ones({3}, options).requires_grad_(true);
  auto wrong = [](const autograd::tensor_list& in) { return autograd::tensor_list{WrongSquare::apply(in[0])}; };
  autograd::GradcheckOptions quiet;
  quiet.raise_exception = false;
  EXPECT_FALSE(autograd::gradcheck(wrong, {c}, quiet));
  try {
    autograd::gradcheck(wrong, {c});
    ADD_FAILURE() << "gradcheck accepted a wrong derivative";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Jacobian mismatch for output 0 with respect to input 0"), std::string::npos)
        << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, AutogradFunctionTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
