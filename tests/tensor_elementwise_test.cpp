// Elementwise behaviour beyond the op registry's rows: masks that broadcast self, in-place writes
// through views, and PyTorch's error messages.
#include <cfloat>
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

// The compound assignments write through the in-place forms: LibTorch has &=, |= and ^= for tensors,
// and the shifts as __ilshift__ and __irshift__. A floating operand of an integral self is refused for
// the cast, with PyTorch's message, before anything is written.
TEST_P(ElementwiseTest, CompoundBitwiseAndShiftAssignmentsMatchLibTorch) {
  at::Generator gen = at::detail::createCPUGenerator(17);
  const Pair a = pair_from(at::randint(-50, 50, {4, 5}, gen, at::kInt), device);
  const Pair b = pair_from(at::randint(0, 8, {5}, gen, at::kInt), device);
  Tensor e = a.ember.clone();
  at::Tensor t = a.torch.clone();
  e <<= b.ember;
  t.__ilshift__(b.torch);
  expect_tensor_eq(e, t);
  e >>= 2;
  t.__irshift__(2);
  expect_tensor_eq(e, t);
  e &= b.ember;
  t &= b.torch;
  e |= 12;
  t.bitwise_or_(12);
  e ^= b.ember;
  t ^= b.torch;
  e <<= 1;
  t.__ilshift__(1);
  e >>= b.ember;
  t.__irshift__(b.torch);
  expect_tensor_eq(e, t);

  const at::Tensor kept = to_torch(e);
  const Tensor floats = from_torch(at::ones({5}), device);
  for (const std::function<void()>& write :
       std::vector<std::function<void()>>{[&] { e &= floats; }, [&] { e.bitwise_xor_(1.5); }}) {
    try {
      write();
      FAIL() << "an integral self took a floating operand";
    } catch (const Error& error) {
      EXPECT_STREQ(error.what(), "result type Float can't be cast to the desired output type Int");
    }
  }
  expect_tensor_eq(e, kept);
}

// Zero of the same sign where x is a float32 denormal: what a device that flushes denormals computes with.
at::Tensor flushed(const at::Tensor& x) { return at::where(x.abs() < FLT_MIN, x * 0, x); }

// Every element of ours has the bits of `exact`, or of `on_flushing_devices` where the device may flush
// float32 denormals: Vulkan lets it unless a shader declares DenormPreserve, which NVIDIA's driver offers
// for float16 alone. NaN matches NaN whatever its payload.
void expect_same_bits(const Tensor& ours, const at::Tensor& exact, const at::Tensor& on_flushing_devices,
                      bool device_may_flush, const std::string& what) {
  const at::Tensor got = to_torch(ours);
  auto same = [&](const at::Tensor& want) {
    return got.view(at::kInt).eq(want.view(at::kInt)).logical_or(got.isnan().logical_and(want.isnan()));
  };
  at::Tensor ok = same(exact);
  if (device_may_flush) ok = ok.logical_or(same(on_flushing_devices));
  const at::Tensor wrong = ok.logical_not().nonzero().flatten();
  for (int64_t k = 0; k < std::min<int64_t>(wrong.numel(), 5); ++k) {
    const int64_t i = wrong[k].item<int64_t>();
    ADD_FAILURE() << what << " element " << i << ": got " << got[i].item<float>() << ", expected "
                  << exact[i].item<float>();
  }
}

// float32 quotients are IEEE's, rounded once, as PyTorch's are: Vulkan allows OpFDiv 2.5 ulp of error,
// and NVIDIA's driver takes it (an R8 texel's 64 / 255 came back off by one bit, and so did quotients of
// operands near the ends of the exponent range).
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
  const at::Tensor fa = flushed(a), fb = flushed(b);
  const bool may_flush = GetParam() == "vulkan";
  expect_same_bits(ea.div(eb), a.div(b), flushed(fa.div(fb)), may_flush, "a / b");
  expect_same_bits(eb.div(ea), b.div(a), flushed(fb.div(fa)), may_flush, "b / a");
  const at::Tensor flushed_addcdiv = flushed(fa + flushed(flushed(fa.div(fb)) * 0.5));
  expect_same_bits(ea.addcdiv(ea, eb, 0.5), a.addcdiv(a, b, 0.5), flushed_addcdiv, may_flush, "addcdiv");
}

INSTANTIATE_TEST_SUITE_P(Backends, ElementwiseTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
