// Hooks and grad modes: tensor hooks (replacing the gradient, removal), retain_grad, node pre- and
// post-hooks, saved-tensor pack/unpack hooks and the guard that disables them, NoGradGuard,
// EnableGradGuard, set_grad_enabled and InferenceMode.
#include <torch/torch.h>

#include "tests/autograd_oracle.h"

namespace ember::test {
namespace {

class AutogradHooksTest : public GradTest {};

TEST_P(AutogradHooksTest, TensorHooksReplaceGradientsAndCanBeRemoved) {
  // Same program in LibTorch: y = x*x, hook scales y's gradient, retain_grad before it.
  const at::Tensor v = random_torch({4}, DType::Float32, 1);
  Tensor x = from_torch(v, device).requires_grad_(true);
  at::Tensor x_t = v.clone().requires_grad_(true);
  const Tensor y = x * x;
  const at::Tensor y_t = x_t * x_t;
  y.retain_grad();
  y_t.retain_grad();
  const Tensor ten = full({4}, 10.0, f32());
  autograd::RemovableHandle handle = y.register_hook([&](const Tensor& g) { return g * ten; });
  y_t.register_hook([](const at::Tensor& g) { return g * 10; });
  int leaf_calls = 0;
  x.register_hook([&](const Tensor&) {
    ++leaf_calls;
    return Tensor();  // observe only
  });
  (y * y).sum().backward(Tensor(), /*retain_graph=*/true);
  (y_t * y_t).sum().backward();
  EXPECT_TRUE(y.retains_grad());
  expect_tensor_eq(y.grad(), y_t.grad(), 1e-5);  // retained before the later hook, as in 1.13
  expect_tensor_eq(x.grad(), x_t.grad(), 1e-5);
  EXPECT_EQ(leaf_calls, 1);

  handle.remove();
  handle.remove();  // twice is harmless
  x.mutable_grad() = Tensor();
  (y * y).sum().backward();
  at::Tensor x2 = v.clone().requires_grad_(true);
  const at::Tensor y2 = x2 * x2;
  (y2 * y2).sum().backward();
  expect_tensor_eq(x.grad(), x2.grad(), 1e-5);
  EXPECT_EQ(leaf_calls, 2);
  expect_error<Error>([&] { ones({2}, f32()).register_hook([](const Tensor& g) { return g; }); },
                      "cannot register a hook on a tensor that doesn't require gradient");
}

TEST_P(AutogradHooksTest, NodePreAndPostHooks) {
  const at::Tensor v = random_torch({3}, DType::Float32, 2);
  Tensor x = from_torch(v, device).requires_grad_(true);
  const Tensor y = x.exp();
  const Tensor two = full({3}, 2.0, f32()), one = ones({3}, f32());
  autograd::tensor_list seen_outputs;
  y.grad_fn()->register_prehook([&](const autograd::tensor_list& g) {
    return std::optional<autograd::tensor_list>(autograd::tensor_list{g[0] * two});
  });
  autograd::RemovableHandle post = y.grad_fn()->register_hook(
      [&](const autograd::tensor_list& grad_inputs, const autograd::tensor_list& grad_outputs) {
        seen_outputs = grad_outputs;
        return std::optional<autograd::tensor_list>(autograd::tensor_list{grad_inputs[0] + one});
      });
  y.sum().backward(Tensor(), true);
  // d/dx of sum(exp x) is exp x; the pre-hook doubles it and the post-hook adds one.
  const at::Tensor expected = v.exp() * 2 + 1;
  expect_tensor_eq(x.grad(), expected, 1e-5);
  ASSERT_EQ(seen_outputs.size(), 1u);
  expect_tensor_eq(seen_outputs[0], at::full({3}, 2.0), 1e-6);  // after the pre-hook

  post.remove();
  x.mutable_grad() = Tensor();
  y.sum().backward();
  expect_tensor_eq(x.grad(), v.exp() * 2, 1e-5);
}

TEST_P(AutogradHooksTest, SavedTensorHooksPackAndUnpack) {
  const at::Tensor v = random_torch({5}, DType::Float32, 3);
  Tensor x = from_torch(v, device).requires_grad_(true);
  int packed = 0, unpacked = 0;
  Tensor loss;
  {
    // Pack to a separate copy, as an offloading hook would; unpack hands it back.
    autograd::SavedTensorHooksGuard hooks(
        [&](const Tensor& t) -> std::any {
          ++packed;
          return t.clone();
        },
        [&](const std::any& p) {
          ++unpacked;
          return std::any_cast<Tensor>(p);
        });
    loss = (x * x).exp().sum();  // mul saves x twice; exp saves its output
  }
  EXPECT_EQ(packed, 3);
  loss.backward();
  EXPECT_EQ(unpacked, 3);
  at::Tensor x_t = v.clone().requires_grad_(true);
  (x_t * x_t).exp().sum().backward();
  expect_tensor_eq(x.grad(), x_t.grad(), 1e-5);

  {
    autograd::DisableSavedTensorHooksGuard off("saved tensor hooks are off while exporting");
    expect_error<Error>(
        [] { autograd::SavedTensorHooksGuard hooks([](const Tensor& t) -> std::any { return t; },
                                                   [](const std::any& p) { return std::any_cast<Tensor>(p); }); },
        "saved tensor hooks are off while exporting");
  }
  // Enabled again once the disabling guard is gone.
  autograd::SavedTensorHooksGuard again([](const Tensor& t) -> std::any { return t; },
                                        [](const std::any& p) { return std::any_cast<Tensor>(p); });
}

TEST_P(AutogradHooksTest, GradModes) {
  Tensor a = ones({2}, f32().requires_grad(true));
  {
    autograd::NoGradGuard no_grad;
    EXPECT_FALSE(autograd::GradMode::is_enabled());
    const Tensor inside = ones({2}, f32().requires_grad(true));  // a parameter made in no_grad still requires grad
    EXPECT_TRUE(inside.requires_grad());
    EXPECT_FALSE((a * a).requires_grad());
    {
      autograd::EnableGradGuard enable;
      EXPECT_TRUE((a * a).requires_grad());
    }
    EXPECT_FALSE((a * a).requires_grad());
  }
  EXPECT_TRUE((a * a).requires_grad());
  autograd::set_grad_enabled(false);
  EXPECT_FALSE((a * a).requires_grad());
  autograd::set_grad_enabled(true);
  {
    autograd::AutoGradMode mode(false);
    EXPECT_FALSE(autograd::is_grad_enabled());
  }
  EXPECT_TRUE(autograd::is_grad_enabled());

  Tensor made_inside;
  {
    autograd::InferenceMode inference;
    EXPECT_FALSE(autograd::GradMode::is_enabled());
    made_inside = ones({2}, f32());
    EXPECT_TRUE(made_inside.is_inference());
    EXPECT_FALSE((a * a).requires_grad());
  }
  EXPECT_FALSE(ones({2}, f32()).is_inference());
  expect_error<Error>([&] { made_inside.requires_grad_(); },
                      "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
  expect_error<Error>([&] { (a * made_inside).sum().backward(); },
                      "Inference tensors cannot be saved for backward. To work around you can make a clone to get "
                      "a normal tensor and use it in autograd.");
}

TEST_P(AutogradHooksTest, InPlaceErrorsUseVersionCounters) {
  Tensor a = ones({3}, f32().requires_grad(true));
  // A node's own saved output modified afterwards.
  Tensor b = a.exp();
  {
    autograd::NoGradGuard no_grad;
    b.add_(1);
  }
  EXPECT_EQ(b._version(), 1u);
  expect_error<Error>([&] { b.sum().backward(); },
                      "one of the variables needed for gradient computation has been modified by an inplace "
                      "operation: [torch.FloatTensor [3]], which is output 0 of ExpBackward0, is at version 1; "
                      "expected version 0 instead. Hint: enable anomaly detection to find the operation that "
                      "failed to compute its gradient, with torch.autograd.set_detect_anomaly(True).");
  // A saved input modified through a view sharing its storage.
  Tensor c = a * a;
  const Tensor d = (c * c).sum();
  {
    autograd::NoGradGuard no_grad;
    c.detach().mul_(2);
  }
  expect_error<Error>([&] { d.backward(); },
                      "one of the variables needed for gradient computation has been modified by an inplace "
                      "operation: [torch.FloatTensor [3]], which is output 0 of MulBackward0, is at version 1; "
                      "expected version 0 instead. Hint: enable anomaly detection to find the operation that "
                      "failed to compute its gradient, with torch.autograd.set_detect_anomaly(True).");
  expect_error<Error>([&] { a.add_(1); }, "a leaf Variable that requires grad is being used in an in-place operation.");
  {
    autograd::NoGradGuard no_grad;
    a.add_(1);  // allowed without grad mode, as optimizers do
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, AutogradHooksTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
