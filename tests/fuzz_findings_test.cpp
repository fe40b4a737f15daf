// The bugs the differential fuzz test (tests/fuzz_test.cpp) found, each pinned as one direct comparison
// with LibTorch, so that a regression fails by name rather than by seed.
#include <cmath>
#include <limits>

#include "tests/oracle.h"

namespace ember::test {
namespace {

class FuzzFindingsTest : public BackendTest {
 protected:
  Tensor from(const at::Tensor& t) { return from_torch(t, device); }
  TensorOptions on(DType dtype) const { return TensorOptions().dtype(dtype).device(device); }

  // The first line of LibTorch's error for `f`, which must throw.
  static std::string torch_error(const std::function<void()>& f) {
    const std::string message = ::ember::test::torch_error(f);
    return message.substr(0, message.find('\n'));
  }
};

// A 0-dim operand of a wider dtype than the result's: it is converted to the result's dtype first.
TEST_P(FuzzFindingsTest, ZeroDimOperandsOfAnotherDtypeAreConverted) {
  const at::Tensor f32 = random_torch({3}, DType::Float32, 1), f16 = random_torch({3}, DType::Float16, 2);
  const at::Tensor f64 = at::scalar_tensor(27.8, at::kDouble);
  EXPECT_TENSOR_EQ(from(f32).add(from(f64)), f32.add(f64));
  EXPECT_TENSOR_EQ(from(f32).mul(from(f64)), f32.mul(f64));
  EXPECT_TENSOR_EQ(from(f16).add(from(f64)), f16.add(f64));
  const at::Tensor mask = at::tensor({1, 0, 1}).to(at::kBool);
  EXPECT_TENSOR_EQ(ember::where(from(mask), from(f64), from(f32)), at::where(mask, f64, f32));
  const at::Tensor bytes = at::tensor({5, 200, 0}, at::kByte);
  const at::Tensor minus3 = at::scalar_tensor(-3, at::kChar), minus5 = at::scalar_tensor(-5, at::kLong);
  EXPECT_TENSOR_EQ(from(bytes).floor_divide(from(minus3)), bytes.floor_divide(minus3));
  EXPECT_TENSOR_EQ(from(bytes).ge(from(minus5)), bytes.ge(minus5));
  Tensor ints = from(at::tensor({1, 2, 3}, at::kLong));
  ints.masked_fill_(from(mask), from(f64));
  EXPECT_TENSOR_EQ(ints, at::tensor({1, 2, 3}, at::kLong).masked_fill_(mask, f64));
}

TEST_P(FuzzFindingsTest, BoolInputsPyTorchHasNoKernelFor) {
  const Tensor b = ones({3}, on(kBool));
  expect_error<Error>([&] { b.abs(); }, torch_error([] { at::ones({3}, at::kBool).abs(); }));
  expect_error<Error>([&] { Tensor(b.clone()).abs_(); }, torch_error([] { at::ones({3}, at::kBool).abs_(); }));
  expect_error<Error>([&] { Tensor(b.clone()).neg_(); }, torch_error([] { at::ones({3}, at::kBool).neg_(); }));
  expect_error<Error>([&] { b.floor(); }, torch_error([] { at::ones({3}, at::kBool).floor(); }));
  expect_error<Error>([&] { Tensor(b.clone()).relu_(); }, torch_error([] { at::ones({3}, at::kBool).relu_(); }));
  expect_error<Error>([&] { b.fmod(b); }, torch_error([] { at::ones({3}, at::kBool).fmod(at::ones({3}, at::kBool)); }));
  expect_error<Error>([&] { b.bitwise_left_shift(b); },
                      torch_error([] { at::ones({3}, at::kBool).bitwise_left_shift(at::ones({3}, at::kBool)); }));
  expect_error<Error>([&] { b.clamp_max(true); }, torch_error([] { at::ones({3}, at::kBool).clamp_max(true); }));
  // argmax over a dim of size 1 runs no kernel, so bool is fine there.
  const at::Tensor column = at::ones({4, 1}, at::kBool);
  EXPECT_TENSOR_EQ(from(column).argmax(1), column.argmax(1));
}

TEST_P(FuzzFindingsTest, ScalarsAreCheckedAndConverted) {
  const at::Tensor i8 = at::zeros({4}, at::kChar), index = at::tensor({1, 2}, at::kLong);
  expect_error<Error>([&] { from(i8).add(from(i8), 2.5); }, torch_error([&] { i8.add(i8, 2.5); }));
  expect_error<Error>([&] { from(i8).add(from(i8), 300); }, torch_error([&] { i8.add(i8, 300); }));
  expect_error<Error>([&] { from(i8).pow(300); }, torch_error([&] { i8.pow(300); }));
  expect_error<Error>([&] { Tensor(from(i8)).scatter_(0, from(index), 1e40); },
                      torch_error([&] { i8.clone().scatter_(0, index, 1e40); }));
  expect_error<Error>([&] { Tensor(from(i8)).index_fill_(0, from(index), 300); },
                      torch_error([&] { i8.clone().index_fill_(0, index, 300); }));
  // Any nonzero value is true in a bool tensor, INT64_MIN (whose low bits are 0) included.
  const int64_t low_bits_zero = std::numeric_limits<int64_t>::min();
  const at::Tensor flags = at::zeros({4}, at::kBool);
  Tensor scattered = from(flags);
  scattered.scatter_(0, from(index), low_bits_zero);
  EXPECT_TENSOR_EQ(scattered, flags.clone().scatter_(0, index, low_bits_zero));
  Tensor put = from(flags);
  put.index_put_({from(index)}, -INFINITY);
  EXPECT_TENSOR_EQ(put, flags.clone().index_put_({index}, at::scalar_tensor(-INFINITY, at::kBool)));
}

TEST_P(FuzzFindingsTest, SequencesConvertLikePyTorch) {
  expect_error<Error>([&] { arange(0, 10, 0.5, on(kInt32)); }, torch_error([] { at::arange(0, 10, 0.5, at::kInt); }));
  EXPECT_TENSOR_EQ(arange(0.5, 10, 3, on(kInt32)), at::arange(0.5, 10, 3, at::kInt));
  EXPECT_TENSOR_EQ(arange(-3, 3, 1e40, on(kFloat32)), at::arange(-3, 3, 1e40, at::kFloat));
  expect_error<Error>([&] { arange(0, 1e40, 1, on(kFloat32)); }, torch_error([] { at::arange(0, 1e40, 1, at::kFloat); }));
  expect_error<Error>([&] { linspace(-1, 1e300, 16, on(kBFloat16)); },
                      torch_error([] { at::linspace(-1, 1e300, 16, at::kBFloat16); }));
  expect_error<Error>([&] { ember::empty({int64_t{1} << 32, int64_t{1} << 32, 0}, on(kFloat32)); },
                      torch_error([] { at::empty({int64_t{1} << 32, int64_t{1} << 32, 0}); }));
}

TEST_P(FuzzFindingsTest, EmptyTensorsAndIndicesSkipWhatPyTorchSkips) {
  // Filling is idempotent: an expanded tensor may be filled.
  Tensor expanded = zeros({1, 3}, on(kFloat32)).expand({4, 3});
  expanded.fill_(2);
  EXPECT_TENSOR_EQ(expanded, at::full({4, 3}, 2.0));
  Tensor empty_expanded = zeros({1, 0}, on(kFloat32)).expand({4, 0});
  empty_expanded.copy_(zeros({4, 0}, on(kFloat32)));
  // An empty index checks nothing of its own; indices past the end of an empty region are not read.
  const at::Tensor self = random_torch({3, 5, 0}, DType::Float32, 3);
  const at::Tensor wide_index = at::zeros({2, 6, 0}, at::kFloat);
  EXPECT_TENSOR_EQ(from(self).gather(0, from(wide_index)), self.gather(0, wide_index));
  const at::Tensor far = at::tensor({-3}, at::kLong);
  EXPECT_TENSOR_EQ(from(at::zeros({2, 0})).index({from(far)}), at::zeros({2, 0}).index({far}));
  Tensor nothing = from(at::zeros({0, 2, 2}, at::kShort));
  nothing.index_copy_(2, from(far), from(at::zeros({0, 2, 1}, at::kShort)));
  EXPECT_EQ(nothing.numel(), 0);
  EXPECT_TENSOR_EQ(from(at::zeros({0})).tril(1), at::zeros({0}).tril(1));
  EXPECT_TENSOR_EQ(from(at::zeros({0, 9}, at::kInt)).log_softmax(-1), at::zeros({0, 9}, at::kInt).log_softmax(-1));
  EXPECT_TENSOR_EQ(from(at::zeros({4, 0}, at::kBool)).mm(from(at::zeros({0, 3}, at::kBool))),
                   at::zeros({4, 0}, at::kBool).mm(at::zeros({0, 3}, at::kBool)));
}

TEST_P(FuzzFindingsTest, ZeroDimViews) {
  const at::Tensor s = at::scalar_tensor(2.5);
  EXPECT_TENSOR_EQ(from(s).movedim(0, -1), s.movedim(0, -1));
  expect_error<IndexError>([&] { from(s).flatten(0, 7); }, torch_error([&] { s.flatten(0, 7); }));
}

// A denormal exponent is not a whole number: a negative base gives NaN. NVIDIA's Vulkan driver, flushing
// float32 denormals, took it for 0 and gave 1; so did float64's overflow to infinity come back finite.
TEST_P(FuzzFindingsTest, PowKeepsDenormalExponentsAndInfinities) {
  const at::Tensor bases = at::tensor({-2.0f, 2.0f, 0.0f, -0.0f});
  EXPECT_TENSOR_EQ(from(bases).pow(1e-45), bases.pow(1e-45));
  EXPECT_TENSOR_EQ(from(bases).pow(-1e-45), bases.pow(-1e-45));
  const at::Tensor doubles = at::tensor({0.0, -0.0, 1e-300, -1e-300, 1e300});
  for (double exponent : {-1.0, -0.5, -2.0, -3.0, 2.0}) {
    SCOPED_TRACE(exponent);
    EXPECT_TENSOR_EQ(from(doubles).pow(exponent), doubles.pow(exponent));
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, FuzzFindingsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
