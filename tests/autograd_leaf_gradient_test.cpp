// A leaf takes the gradient the backward pass computed as its .grad, without a copy, when nothing else
// can see that memory: also when the gradient is a transposed view, as Linear's weight gradient is
// (weight.t() in the forward). One copy per weight per step was a tenth of an MLP training step's
// dispatches on lavapipe.
#include "ember.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

class LeafGradientTest : public BackendTest {};

// Dispatches recorded by `backward`, after everything before it has been recorded.
uint64_t dispatches_of(Stream& stream, const std::function<void()>& backward) {
  const uint64_t before = stream.stats().dispatches;
  backward();
  return stream.stats().dispatches - before;
}

TEST_P(LeafGradientTest, TransposedWeightGradientIsTakenWithoutACopy) {
  const TensorOptions f32 = TensorOptions(kFloat32).device(device);
  const Tensor x = rand({8, 12}, f32);
  const Tensor plain = rand({12, 5}, f32).requires_grad_(true);       // out = x @ plain
  const Tensor weight = rand({5, 12}, f32).requires_grad_(true);      // out = x @ weight.t(), as Linear
  const Tensor plain_loss = x.mm(plain).sum();
  const Tensor linear_loss = x.mm(weight.t()).sum();
  const uint64_t plain_dispatches = dispatches_of(*stream, [&] { plain_loss.backward(); });
  const uint64_t linear_dispatches = dispatches_of(*stream, [&] { linear_loss.backward(); });
  EXPECT_EQ(linear_dispatches, plain_dispatches) << "the transposed gradient was copied into .grad";
  EXPECT_TRUE(weight.grad().is_contiguous());
  // The values are those of the plain product's gradient, transposed.
  const Tensor expected = x.t().mm(ones({8, 5}, f32)).t();
  EXPECT_TRUE(allclose(weight.grad(), expected));
  EXPECT_TRUE(allclose(plain.grad(), x.t().mm(ones({8, 5}, f32))));
}

TEST_P(LeafGradientTest, GradientSomeoneElseHoldsIsCopied) {
  const TensorOptions f32 = TensorOptions(kFloat32).device(device);
  const Tensor leaf = rand({4, 3}, f32).requires_grad_(true);
  Tensor seen;
  // A hook that keeps the gradient: .grad must not alias it, or accumulating into .grad would change it.
  leaf.register_hook([&](const Tensor& grad) {
    seen = grad;
    return Tensor();
  });
  (leaf * 2).sum().backward();
  (leaf * 2).sum().backward();
  EXPECT_TRUE(allclose(seen, full({4, 3}, 2.0, f32)));
  EXPECT_TRUE(allclose(leaf.grad(), full({4, 3}, 4.0, f32)));
}

INSTANTIATE_TEST_SUITE_P(Backends, LeafGradientTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
