// In-place views (t_, transpose_, swapaxes_, squeeze_, unsqueeze_) against LibTorch: the geometry and
// version they leave, what other handles see, gradients through them (first and second order, and an
// in-place write through a view they reshaped), node names, and their refusals.
#include <torch/csrc/autograd/function.h>

#include "tests/autograd_oracle.h"
#include "tests/same_error.h"

namespace ember::test {
namespace {

class AutogradInplaceViewsTest : public GradTest {
 protected:
  static at::Tensor rand(std::vector<int64_t> sizes, uint64_t seed) {
    return random_torch(std::move(sizes), DType::Float32, seed, -2, 2);
  }
};

// Each op applied to the same strided view on both libraries: ember's view takes LibTorch's sizes,
// strides and offset, its storage's version moves as LibTorch's does, and its values stay.
TEST_P(AutogradInplaceViewsTest, GeometryAndVersionAreLibTorchs) {
  using EmberOp = std::function<void(Tensor&)>;
  using TorchOp = std::function<void(at::Tensor&)>;
  // The op's name, whether it runs on a matrix (t_ takes at most two dims), and the op on each library.
  const std::vector<std::tuple<std::string, bool, EmberOp, TorchOp>> ops = {
      {"t_", true, [](Tensor& x) { x.t_(); }, [](at::Tensor& x) { x.t_(); }},
      {"transpose_", false, [](Tensor& x) { x.transpose_(0, -1); }, [](at::Tensor& x) { x.transpose_(0, -1); }},
      {"swapaxes_", false, [](Tensor& x) { x.swapaxes_(2, 1); }, [](at::Tensor& x) { x.swapaxes_(2, 1); }},
      {"squeeze_", false, [](Tensor& x) { x.squeeze_(); }, [](at::Tensor& x) { x.squeeze_(); }},
      {"squeeze_(1)", false, [](Tensor& x) { x.squeeze_(1); }, [](at::Tensor& x) { x.squeeze_(1); }},
      {"squeeze_(0), a dim above 1", false, [](Tensor& x) { x.squeeze_(0); }, [](at::Tensor& x) { x.squeeze_(0); }},
      {"unsqueeze_(-1)", false, [](Tensor& x) { x.unsqueeze_(-1); }, [](at::Tensor& x) { x.unsqueeze_(-1); }},
      {"unsqueeze_(2)", false, [](Tensor& x) { x.unsqueeze_(2); }, [](at::Tensor& x) { x.unsqueeze_(2); }},
  };
  const at::Tensor base = rand({3, 1, 10}, 1);
  for (const auto& [name, matrix, ember_op, torch_op] : ops) {
    SCOPED_TRACE(name);
    const Tensor ember_base = from_torch(base, device);
    // [3, 1, 4] with strides (10, 10, 2) and offset 1, or its [3, 4] matrix.
    Tensor x = ember_base.slice(2, 1, 9, 2);
    at::Tensor expected = base.slice(2, 1, 9, 2);
    if (matrix) {
      x = x.select(1, 0);
      expected = expected.select(1, 0);
    }
    const Tensor other_handle = x;
    const uint64_t ember_before = x._version(), torch_before = expected._version();
    ember_op(x);
    torch_op(expected);
    EXPECT_EQ(other_handle.sizes().vec(), expected.sizes().vec()) << "another handle sees the new sizes";
    EXPECT_EQ(other_handle.strides().vec(), expected.strides().vec());
    EXPECT_EQ(other_handle.storage_offset(), expected.storage_offset());
    EXPECT_EQ(x._version() - ember_before, expected._version() - torch_before);
    EXPECT_TRUE(at::equal(to_torch(x), expected));
    EXPECT_TRUE(at::equal(to_torch(ember_base), base)) << "the memory was not written";
  }
}

TEST_P(AutogradInplaceViewsTest, GradientsMatchLibTorch) {
  check({rand({4, 3}, 2)}, "t_", [](const Ins& v) { Tensor y = v[0] * 1; y.t_(); return y; },
        [](const TIns& v) { at::Tensor y = v[0] * 1; y.t_(); return y; });
  check({rand({2, 3, 4}, 3)}, "transpose_", [](const Ins& v) { Tensor y = v[0] * 1; y.transpose_(0, -1); return y; },
        [](const TIns& v) { at::Tensor y = v[0] * 1; y.transpose_(0, -1); return y; });
  check({rand({2, 3, 4}, 4)}, "swapaxes_", [](const Ins& v) { Tensor y = v[0] * 1; y.swapaxes_(1, 2); return y; },
        [](const TIns& v) { at::Tensor y = v[0] * 1; y.swapaxes_(1, 2); return y; });
  check({rand({3, 1, 4, 1}, 5)}, "squeeze_()", [](const Ins& v) { Tensor y = v[0] * 1; y.squeeze_(); return y; },
        [](const TIns& v) { at::Tensor y = v[0] * 1; y.squeeze_(); return y; });
  check({rand({3, 1, 4, 1}, 6)}, "squeeze_(1)", [](const Ins& v) { Tensor y = v[0] * 1; y.squeeze_(1); return y; },
        [](const TIns& v) { at::Tensor y = v[0] * 1; y.squeeze_(1); return y; });
  check({rand({3, 1, 4, 1}, 7)}, "squeeze_({1, 3})",
        [](const Ins& v) { Tensor y = v[0] * 1; y.squeeze_(IntArrayRef{1, 3}); return y; },
        [](const TIns& v) { at::Tensor y = v[0] * 1; y.squeeze_(3); y.squeeze_(1); return y; });
  check({rand({4, 3}, 8)}, "unsqueeze_", [](const Ins& v) { Tensor y = v[0] * 1; y.unsqueeze_(1); return y; },
        [](const TIns& v) { at::Tensor y = v[0] * 1; y.unsqueeze_(1); return y; });
  check({rand({4, 3}, 9)}, "after an in-place op, then used twice",
        [](const Ins& v) { Tensor y = v[0] * 1; y.add_(1); y.t_(); return y * y.sum(0, true); },
        [](const TIns& v) { at::Tensor y = v[0] * 1; y.add_(1); y.t_(); return y * y.sum(0, true); });
  // A view that an in-place view reshaped, then written in place: the base's gradient comes through
  // CopySlices with the view's new geometry.
  check({rand({3, 4}, 10)}, "select, unsqueeze_ and t_, then mul_ through the view",
        [](const Ins& v) {
          Tensor b = v[0] * 1;
          Tensor w = b.select(0, 1);
          w.unsqueeze_(0).t_();
          w.mul_(v[0].select(0, 2).unsqueeze(1));
          return b;
        },
        [](const TIns& v) {
          at::Tensor b = v[0] * 1;
          at::Tensor w = b.select(0, 1);
          w.unsqueeze_(0).t_();
          w.mul_(v[0].select(0, 2).unsqueeze(1));
          return b;
        });
  check_second_order({rand({4, 3}, 11)}, "t_ of a product",
                     [](const Ins& v) { Tensor y = v[0] * v[0]; y.t_(); return y * v[0].t(); },
                     [](const TIns& v) { at::Tensor y = v[0] * v[0]; y.t_(); return y * v[0].t(); });
}

TEST_P(AutogradInplaceViewsTest, NodeNames) {
  using EmberOp = std::function<void(Tensor&)>;
  using TorchOp = std::function<void(at::Tensor&)>;
  const std::vector<std::pair<EmberOp, TorchOp>> ops = {
      {[](Tensor& y) { y.t_(); }, [](at::Tensor& y) { y.t_(); }},
      {[](Tensor& y) { y.transpose_(0, 1); }, [](at::Tensor& y) { y.transpose_(0, 1); }},
      {[](Tensor& y) { y.swapaxes_(0, 1); }, [](at::Tensor& y) { y.swapaxes_(0, 1); }},
      {[](Tensor& y) { y.unsqueeze_(0); }, [](at::Tensor& y) { y.unsqueeze_(0); }},
  };
  const at::Tensor input = rand({4, 1}, 12);
  for (const auto& [ember_op, torch_op] : ops) {
    Tensor y = from_torch(input, device).requires_grad_(true) * 1;
    at::Tensor expected = input.clone().requires_grad_(true) * 1;
    ember_op(y);
    torch_op(expected);
    ASSERT_TRUE(y.grad_fn() && expected.grad_fn());
    EXPECT_EQ(y.grad_fn()->name(), expected.grad_fn()->name());
  }
  // LibTorch 1.13 numbers squeeze_() and squeeze_(dim) 2 and 3; it has no squeeze(dims), whose node
  // ember names SqueezeBackward2 as PyTorch 2 does. The in-place forms follow PyTorch 2 too.
  const auto squeezed = [&](const std::function<void(Tensor&)>& op) {
    Tensor y = from_torch(input, device).requires_grad_(true) * 1;
    op(y);
    return y.grad_fn()->name();
  };
  EXPECT_EQ(squeezed([](Tensor& y) { y.squeeze_(); }), "SqueezeBackward3");
  EXPECT_EQ(squeezed([](Tensor& y) { y.squeeze_(1); }), "SqueezeBackward4");
  EXPECT_EQ(squeezed([](Tensor& y) { y.squeeze_(IntArrayRef{1}); }), "SqueezeBackward5");
}

// A node that saved the tensor sees the version move and refuses the backward, as in LibTorch.
TEST_P(AutogradInplaceViewsTest, SavedTensorsSeeTheChange) {
  const at::Tensor input = rand({2, 3}, 13);
  Tensor y = from_torch(input, device).requires_grad_(true).exp();
  at::Tensor expected = input.clone().requires_grad_(true).exp();
  y.t_();
  expected.t_();
  EXPECT_THROW(expected.sum().backward(), c10::Error);
  expect_error_containing([&] { y.sum().backward(); }, "has been modified by an inplace operation");
}

TEST_P(AutogradInplaceViewsTest, RefusalsAreLibTorchs) {
  const at::Tensor input = rand({2, 1, 3}, 14);
  const auto same = [&](const std::string& what, const std::function<void(Tensor&)>& ember_op,
                        const std::function<void(at::Tensor&)>& torch_op, bool leaf_requires_grad = false) {
    Tensor x = from_torch(input, device).requires_grad_(leaf_requires_grad);
    at::Tensor t = input.clone().requires_grad_(leaf_requires_grad);
    const std::vector<int64_t> sizes = x.sizes().vec();
    expect_same_error([&] { ember_op(x); }, [&] { torch_op(t); }, what);
    EXPECT_EQ(x.sizes().vec(), sizes) << what << ": a refused op leaves the geometry";
  };
  same("t_ of 3 dims", [](Tensor& x) { x.t_(); }, [](at::Tensor& x) { x.t_(); });
  same("transpose_ out of range", [](Tensor& x) { x.transpose_(0, 3); }, [](at::Tensor& x) { x.transpose_(0, 3); });
  same("squeeze_ out of range", [](Tensor& x) { x.squeeze_(-4); }, [](at::Tensor& x) { x.squeeze_(-4); });
  same("unsqueeze_ out of range", [](Tensor& x) { x.unsqueeze_(4); }, [](at::Tensor& x) { x.unsqueeze_(4); });
  same("a leaf that requires grad", [](Tensor& x) { x.squeeze_(); }, [](at::Tensor& x) { x.squeeze_(); }, true);
  same("a view of such a leaf", [](Tensor& x) { x.select(1, 0).t_(); }, [](at::Tensor& x) { x.select(1, 0).t_(); },
       true);

  // Without grad mode the leaf may change shape, and stays a leaf that requires grad.
  Tensor leaf = from_torch(input, device).requires_grad_(true);
  {
    autograd::NoGradGuard no_grad;
    leaf.squeeze_(1).t_();
  }
  EXPECT_TRUE(leaf.is_leaf());
  EXPECT_TRUE(leaf.requires_grad());
  EXPECT_TRUE(at::equal(to_torch(leaf.detach()), input.squeeze(1).t()));
}

INSTANTIATE_TEST_SUITE_P(Backends, AutogradInplaceViewsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
