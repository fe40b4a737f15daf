// Elementwise behaviour beyond the op registry's rows: masks that broadcast self, in-place writes
// through views, and PyTorch's error messages.
#include <cmath>
#include <functional>

#include "tests/oracle.h"

namespace ember::test {
namespace {

// The forward of every elementwise op over dtypes, shapes and layouts is in the op registry
// (tests/ops/elementwise.cpp); these are the cases a row cannot express.
class ElementwiseTest : public BackendTest {};

TEST_P(ElementwiseTest, MaskedFillBroadcastsSelfToTheMask) {
  at::Generator gen = at::detail::createCPUGenerator(11);
  const Pair x = pair_from(random_torch({3}, DType::Float32, gen), device);
  const Pair mask = pair_from(random_torch({2, 3}, DType::Bool, gen), device);
  expect_tensor_eq(x.ember.masked_fill(mask.ember, -1), x.torch.masked_fill(mask.torch, -1));
  const Pair value = pair_from(random_torch({}, DType::Float32, gen), device);
  expect_tensor_eq(x.ember.masked_fill(mask.ember, value.ember), x.torch.masked_fill(mask.torch, value.torch));
  expect_tensor_eq(x.ember, x.torch);  // the source is untouched
}

TEST_P(ElementwiseTest, InPlaceOpsWriteThroughViewsAndCheckCasts) {
  at::Generator gen = at::detail::createCPUGenerator(5);
  for (const auto& shape : test_shapes()) {
    for (Pair& p : layouts(shape, DType::Float32, device, gen)) {
      if (p.layout == "broadcast along dim 0" || p.torch.numel() == 0) continue;
      SCOPED_TRACE(to_string(shape) + " " + p.layout);
      at::Tensor t = p.torch.clone();
      Tensor e = p.ember.clone();
      Tensor view = e.dim() >= 1 ? e.select(-1, 0) : e;
      at::Tensor tview = t.dim() >= 1 ? t.select(-1, 0) : t;
      view.add_(1.5).mul_(2).sub_(0.25);
      tview.add_(1.5).mul_(2).sub_(0.25);
      expect_tensor_eq(e, t);
    }
  }
  Tensor ints = ember::ones({3}, TensorOptions().dtype(kInt64).device(device));
  Tensor floats = ember::ones({3}, TensorOptions().device(device));
  try {
    ints.add_(floats);
    FAIL() << "int64 += float32 must fail";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "result type Float can't be cast to the desired output type Long");
  }
  try {
    floats.add_(ember::ones({2, 3}, TensorOptions().device(device)));
    FAIL() << "in-place broadcast to a larger shape must fail";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "output with shape [3] doesn't match the broadcast shape [2, 3]");
  }
}

TEST_P(ElementwiseTest, ErrorsUsePyTorchMessages) {
  const auto opts = TensorOptions().device(device);
  try {
    (void)(ember::ones({2, 2}, opts) + ember::ones({2, 3}, opts));
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1");
  }
  try {
    (void)(ember::ones({2}, opts.dtype(kBool)) - ember::ones({2}, opts.dtype(kBool)));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Subtraction, the `-` operator, with two bool tensors"), std::string::npos);
  }
  try {
    (void)ember::where(ember::ones({2}, opts), ember::ones({2}, opts), ember::ones({2}, opts));
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "where expected condition to be a boolean tensor, but got a tensor with dtype Float");
  }
}

// float32 quotients are IEEE's, rounded once, as PyTorch's are: Vulkan allows OpFDiv 2.5 ulp of error,
// and NVIDIA's driver takes it (an R8 texel's 64 / 255 came back off by one bit).
TEST_P(ElementwiseTest, Float32QuotientsAreRoundedOnce) {
  at::manual_seed(3);
  const at::Tensor bytes = at::arange(256, at::kFloat);
  EXPECT_TENSOR_EQ(from_torch(bytes, device).div(255), bytes.div(255), 0, 0);
  const int64_t n = 1 << 16;
  const at::Tensor a = at::randn({n}) * at::exp(at::randn({n}) * 12);
  at::Tensor b = at::randn({n}) * at::exp(at::randn({n}) * 12);
  // The edges, where the correction stands aside: zeros, infinities, NaN, denormals and the largest floats.
  const at::Tensor edges = at::tensor({0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-45f, 1e-40f, 3e38f, -3e38f, 1e-30f});
  b.slice(0, 0, edges.numel()).copy_(edges);
  const Tensor ea = from_torch(a, device), eb = from_torch(b, device);
  EXPECT_TENSOR_EQ(ea.div(eb), a.div(b), 0, 0);
  EXPECT_TENSOR_EQ(eb.div(ea), b.div(a), 0, 0);
  EXPECT_TENSOR_EQ(ea.addcdiv(ea, eb, 0.5), a.addcdiv(a, b, 0.5), 0, 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, ElementwiseTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
