// ember::testing::assert_close against torch.testing.assert_close of PyTorch 1.13. LibTorch's C++ API has
// no assert_close, so the expected reports are what
//   /usr/bin/python3 -c 'import torch; torch.testing.assert_close(actual, expected, ...)'
// prints for the same inputs (built here with the same LibTorch ops): mismatch counts and shares, the
// greatest differences and where, tolerances per dtype and mixed, NaN and infinities, scalars, integers
// and bools, shape, dtype and stride mismatches, Python's number formatting, and the options.
// oracle.h first: its headers name gtest's namespace as `testing::` from inside namespace ember, where
// ember::testing would otherwise be found.
#include "tests/oracle.h"

#include "ember/testing.h"

namespace ember::test {
namespace {

using ember::testing::AssertCloseOptions;
using ember::testing::AssertionError;
using ember::testing::assert_close;

// A 1-D LibTorch tensor of `dtype` (float32 by default, as torch.tensor of Python floats) from doubles.
at::Tensor values(std::vector<double> v, at::ScalarType dtype = at::kFloat) {
  return at::tensor(v, at::TensorOptions().dtype(at::kDouble)).to(dtype);
}

class AssertCloseTest : public BackendTest {
 protected:
  Tensor from(const at::Tensor& t) { return from_torch(t, device); }
  void expect_pass(const at::Tensor& actual, const at::Tensor& expected, const AssertCloseOptions& options = {}) {
    EXPECT_NO_THROW(assert_close(from(actual), from(expected), options));
  }
  void expect_report(const at::Tensor& actual, const at::Tensor& expected, const std::string& report,
                     const AssertCloseOptions& options = {}) {
    expect_error<AssertionError>([&] { assert_close(from(actual), from(expected), options); }, report);
  }
  // The float32 pair of the report in the brief: 3 of 12 elements off.
  static std::pair<at::Tensor, at::Tensor> three_off() {
    const at::Tensor a = at::arange(12.0, at::kFloat).reshape({3, 4});
    at::Tensor b = a.clone();
    b[1][2] += 0.5;
    b[0][0] += 1e-6;  // within atol
    b[2][3] = 0.3;
    b[0][1] = 2;
    return {a, b};
  }
  void SetUp() override {
    BackendTest::SetUp();
    if (device && !device->supports(DType::Float64)) {
      GTEST_SKIP() << "the reports' digits are float64 differences; this device has no float64";
    }
  }
};

TEST_P(AssertCloseTest, Float32Report) {
  const auto [a, b] = three_off();
  const std::string report =
      "Tensor-likes are not close!\n\nMismatched elements: 3 / 12 (25.0%)\n"
      "Greatest absolute difference: 10.699999988079071 at index (2, 3) (up to 1e-05 allowed)\n"
      "Greatest relative difference: 35.666665209664295 at index (2, 3) (up to 1.3e-06 allowed)";
  expect_report(a, b, report);
  for (const auto& [name, x] : layouts_of(a, device)) {
    SCOPED_TRACE(name);
    EXPECT_THROW(assert_close(x, from(b)), AssertionError);
    EXPECT_NO_THROW(assert_close(x, from(a)));
  }
  expect_pass(a, a + 1e-7);
  expect_pass(a, a);
  expect_report(a, b,
                "Tensor-likes are not close!\n\nMismatched elements: 2 / 12 (16.7%)\n"
                "Greatest absolute difference: 10.699999988079071 at index (2, 3) (up to 0.2 allowed)\n"
                "Greatest relative difference: 35.666665209664295 at index (2, 3) (up to 0.1 allowed)",
                {.rtol = 0.1, .atol = 0.2});
  expect_report(a, b,
                "Tensor-likes are not equal!\n\nMismatched elements: 4 / 12 (33.3%)\n"
                "Greatest absolute difference: 10.699999988079071 at index (2, 3)\n"
                "Greatest relative difference: 35.666665209664295 at index (2, 3)",
                {.rtol = 0, .atol = 0});
  expect_report(a, b, "custom", {.msg = "custom"});
  // Gradients play no part.
  EXPECT_NO_THROW(assert_close(from(a).requires_grad_() * 1, from(a)));
}

TEST_P(AssertCloseTest, AttributeMismatches) {
  const auto [a, b] = three_off();
  expect_report(a, a.t(), "The values for attribute 'shape' do not match: torch.Size([3, 4]) != torch.Size([4, 3]).");
  expect_report(at::zeros({0, 3}), at::zeros({3, 0}),
                "The values for attribute 'shape' do not match: torch.Size([0, 3]) != torch.Size([3, 0]).");
  expect_report(a, a.to(at::kDouble), "The values for attribute 'dtype' do not match: torch.float32 != torch.float64.");
  expect_report(at::ones({1}, at::kChar), at::ones({1}, at::kByte),
                "The values for attribute 'dtype' do not match: torch.int8 != torch.uint8.");
  expect_report(at::scalar_tensor(0.0, at::kDouble), at::scalar_tensor(-2.0),
                "The values for attribute 'dtype' do not match: torch.float64 != torch.float32.");
  // Strides are compared only when asked; ember's layouts are made on the device to compare them.
  const Tensor x = from(a);
  const Tensor transposed = from(a.t().contiguous()).t();
  EXPECT_NO_THROW(assert_close(x, transposed));
  expect_error<AssertionError>([&] { assert_close(x, transposed, {.check_stride = true}); },
                               "The values for attribute 'stride()' do not match: (4, 1) != (1, 3).");
  const Tensor stepped = from(at::zeros({3})).slice(0, 0, std::nullopt, 2);
  expect_error<AssertionError>([&] { assert_close(stepped, from(at::zeros({2})), {.check_stride = true}); },
                               "The values for attribute 'stride()' do not match: (2,) != (1,).");
  EXPECT_NO_THROW(assert_close(from(at::scalar_tensor(1.0)), from(at::scalar_tensor(1.0)), {.check_stride = true}));
  EXPECT_NO_THROW(assert_close(x, from(a), {.check_device = true}));
  expect_error<Error>([&] { assert_close(x, x, {.rtol = 1}); },
                      "Both 'rtol' and 'atol' must be either specified or omitted, but got no atol.");
  expect_error<Error>([&] { assert_close(x, x, {.atol = 1}); },
                      "Both 'rtol' and 'atol' must be either specified or omitted, but got no rtol.");
}

TEST_P(AssertCloseTest, MixedDtypesWithoutTheDtypeCheck) {
  const auto [a, b] = three_off();
  expect_pass(a, a.to(at::kDouble), {.check_dtype = false});
  const std::string f32_report =
      "Tensor-likes are not close!\n\nMismatched elements: 3 / 12 (25.0%)\n"
      "Greatest absolute difference: 10.699999988079071 at index (2, 3) (up to 1e-05 allowed)\n"
      "Greatest relative difference: 35.666665209664295 at index (2, 3) (up to 1.3e-06 allowed)";
  expect_report(a, b.to(at::kDouble), f32_report, {.check_dtype = false});
  // The larger of the two dtypes' tolerances applies.
  expect_report(a.to(at::kHalf), b,
                "Tensor-likes are not close!\n\nMismatched elements: 3 / 12 (25.0%)\n"
                "Greatest absolute difference: 10.699999988079071 at index (2, 3) (up to 1e-05 allowed)\n"
                "Greatest relative difference: 35.666665209664295 at index (2, 3) (up to 0.001 allowed)",
                {.check_dtype = false});
  expect_report(values({1, 2}, at::kLong), values({1.0, 2.5}, at::kFloat),
                "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
                "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\n"
                "Greatest relative difference: 0.2 at index (1,) (up to 1.3e-06 allowed)",
                {.check_dtype = false});
  expect_report(values({1}, at::kBool), values({2}, at::kLong),
                "Tensor-likes are not equal!\n\nMismatched elements: 1 / 1 (100.0%)\n"
                "Greatest absolute difference: 1 at index (0,)\nGreatest relative difference: 0.5 at index (0,)",
                {.check_dtype = false});
  expect_report(values({1.0}, at::kDouble), values({1.001}, at::kFloat),
                "Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\n"
                "Greatest absolute difference: 0.001000046730041504 at index (0,) (up to 1e-05 allowed)\n"
                "Greatest relative difference: 0.0009990476357202463 at index (0,) (up to 1.3e-06 allowed)",
                {.check_dtype = false});
}

TEST_P(AssertCloseTest, DefaultTolerancesPerDtype) {
  expect_pass(values({1.0, 2.0}, at::kDouble), values({1.0, 2.0000001}, at::kDouble));
  expect_report(values({1.0, 2.0}, at::kBFloat16), values({1.0, 2.5}, at::kBFloat16),
                "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
                "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\n"
                "Greatest relative difference: 0.2 at index (1,) (up to 0.016 allowed)");
  expect_report(values({1.0, 2.0}, at::kHalf), values({1.0, 2.5}, at::kHalf),
                "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
                "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\n"
                "Greatest relative difference: 0.2 at index (1,) (up to 0.001 allowed)");
  expect_pass(values({1.0, 2.0}, at::kHalf), values({1.0, 2.001}, at::kHalf));
  expect_report(values({0.0}, at::kDouble), values({1e16}, at::kDouble),
                "Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\n"
                "Greatest absolute difference: 1e+16 at index (0,) (up to 1e-07 allowed)\n"
                "Greatest relative difference: 1.0 at index (0,) (up to 1e-07 allowed)");
}

TEST_P(AssertCloseTest, IntegersAndBoolsAreExact) {
  const auto [a, b] = three_off();
  expect_report(a.to(at::kInt), b.to(at::kInt),
                "Tensor-likes are not equal!\n\nMismatched elements: 2 / 12 (16.7%)\n"
                "Greatest absolute difference: 11 at index (2, 3)\nGreatest relative difference: inf at index (2, 3)");
  expect_report(values({1, 2, 3}, at::kLong), values({1, 5, 0}, at::kLong),
                "Tensor-likes are not equal!\n\nMismatched elements: 2 / 3 (66.7%)\n"
                "Greatest absolute difference: 3 at index (1,)\nGreatest relative difference: inf at index (2,)");
  expect_report(values({4, 1}, at::kLong), values({3, 1}, at::kLong),
                "Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\n"
                "Greatest absolute difference: 1 at index (0,)\n"
                "Greatest relative difference: 0.3333333432674408 at index (0,)");
  expect_report(values({4, 1}, at::kLong), values({3, 1}, at::kLong),
                "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
                "Greatest absolute difference: 1 at index (0,) (up to 0.5 allowed)\n"
                "Greatest relative difference: 0.3333333432674408 at index (0,) (up to 0.1 allowed)",
                {.rtol = 0.1, .atol = 0.5});
  expect_report(values({1, 0}, at::kBool), values({0, 0}, at::kBool),
                "Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\n"
                "Greatest absolute difference: 1 at index (0,)\nGreatest relative difference: inf at index (0,)");
  expect_report(values({0, 250}, at::kByte), values({5, 1}, at::kByte),
                "Tensor-likes are not equal!\n\nMismatched elements: 2 / 2 (100.0%)\n"
                "Greatest absolute difference: 249 at index (1,)\nGreatest relative difference: 249.0 at index (1,)");
  expect_pass(values({3, -7}, at::kInt), values({3, -7}, at::kInt));
}

TEST_P(AssertCloseTest, Scalars) {
  expect_report(at::scalar_tensor(1.0), at::scalar_tensor(1.5),
                "Scalars are not close!\n\nAbsolute difference: 0.5 (up to 1e-05 allowed)\n"
                "Relative difference: 0.3333333333333333 (up to 1.3e-06 allowed)");
  expect_report(at::scalar_tensor(1.0), at::scalar_tensor(0.0),
                "Scalars are not close!\n\nAbsolute difference: 1.0 (up to 1e-05 allowed)\n"
                "Relative difference: inf (up to 1.3e-06 allowed)");
  expect_report(at::scalar_tensor(1, at::kLong), at::scalar_tensor(4, at::kLong),
                "Scalars are not equal!\n\nAbsolute difference: 3\nRelative difference: 0.75");
  expect_report(at::scalar_tensor(1, at::kLong), at::scalar_tensor(0, at::kLong),
                "Scalars are not equal!\n\nAbsolute difference: 1\nRelative difference: inf");
  expect_report(at::scalar_tensor(true, at::kBool), at::scalar_tensor(false, at::kBool),
                "Scalars are not equal!\n\nAbsolute difference: 1\nRelative difference: inf");
  expect_report(at::scalar_tensor(1.0, at::kHalf), at::scalar_tensor(1.1, at::kHalf),
                "Scalars are not close!\n\nAbsolute difference: 0.099609375 (up to 1e-05 allowed)\n"
                "Relative difference: 0.0905861456483126 (up to 0.001 allowed)");
  expect_pass(at::scalar_tensor(2.0), at::scalar_tensor(2.0));
}

TEST_P(AssertCloseTest, NanAndInfinities) {
  const at::Tensor nan = values({1.0, NAN}, at::kFloat);
  const std::string nan_report =
      "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
      "Greatest absolute difference: nan at index (1,) (up to 1e-05 allowed)\n"
      "Greatest relative difference: nan at index (1,) (up to 1.3e-06 allowed)";
  expect_report(nan, nan, nan_report);
  expect_pass(nan, nan, {.equal_nan = true});
  expect_report(values({1.0, 2.0}, at::kFloat), nan, nan_report);
  expect_report(nan, values({1.0, 2.0}, at::kFloat), nan_report, {.equal_nan = true});
  const at::Tensor inf = values({1.0, INFINITY}, at::kFloat);
  expect_pass(inf, inf);
  expect_report(inf, values({1.0, -INFINITY}, at::kFloat),
                "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
                "Greatest absolute difference: inf at index (1,) (up to 1e-05 allowed)\n"
                "Greatest relative difference: nan at index (1,) (up to 1.3e-06 allowed)");
}

TEST_P(AssertCloseTest, NumbersPrintAsPython) {
  expect_report(values({1e20, 2.0}, at::kFloat), values({1.1e20, 2.0}, at::kFloat),
                "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
                "Greatest absolute difference: 9.999996681971565e+18 at index (0,) (up to 1e-05 allowed)\n"
                "Greatest relative difference: 0.0909090618310971 at index (0,) (up to 1.3e-06 allowed)");
  expect_report(values({1e-20, 2.0}, at::kFloat), values({1.1e-3, 2.0}, at::kFloat),
                "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
                "Greatest absolute difference: 0.0010999999940395355 at index (0,) (up to 1e-05 allowed)\n"
                "Greatest relative difference: 1.0 at index (0,) (up to 1.3e-06 allowed)");
  expect_report(values({0.0}, at::kDouble), values({1e15}, at::kDouble),
                "Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\n"
                "Greatest absolute difference: 1000000000000000.0 at index (0,) (up to 1e-07 allowed)\n"
                "Greatest relative difference: 1.0 at index (0,) (up to 1e-07 allowed)");
  expect_report(values({0.0}, at::kDouble), values({-0.0001}, at::kDouble),
                "Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\n"
                "Greatest absolute difference: 0.0001 at index (0,) (up to 1e-07 allowed)\n"
                "Greatest relative difference: 1.0 at index (0,) (up to 1e-07 allowed)");
  expect_report(at::full({3}, 1.0 / 3, at::kFloat), at::full({3}, 0.3, at::kFloat),
                "Tensor-likes are not close!\n\nMismatched elements: 3 / 3 (100.0%)\n"
                "Greatest absolute difference: 0.03333333134651184 at index (0,) (up to 1e-05 allowed)\n"
                "Greatest relative difference: 0.11111110007321437 at index (0,) (up to 1.3e-06 allowed)");
}

TEST_P(AssertCloseTest, ShapesAndIndices) {
  expect_report(at::zeros({2, 2, 2}), at::ones({2, 2, 2}),
                "Tensor-likes are not close!\n\nMismatched elements: 8 / 8 (100.0%)\n"
                "Greatest absolute difference: 1.0 at index (0, 0, 0) (up to 1e-05 allowed)\n"
                "Greatest relative difference: 1.0 at index (0, 0, 0) (up to 1.3e-06 allowed)");
  expect_report(values({1.0, 2.0, 3.0}), values({2.0, 3.0, 4.0}),
                "Tensor-likes are not close!\n\nMismatched elements: 3 / 3 (100.0%)\n"
                "Greatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)\n"
                "Greatest relative difference: 0.5 at index (0,) (up to 1.3e-06 allowed)");
  expect_report(at::zeros({3}), values({1.0, 1.0, 0.0}),
                "Tensor-likes are not close!\n\nMismatched elements: 2 / 3 (66.7%)\n"
                "Greatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)\n"
                "Greatest relative difference: 1.0 at index (0,) (up to 1.3e-06 allowed)");
  expect_report(at::zeros({3000}), at::ones({3000}),
                "Tensor-likes are not close!\n\nMismatched elements: 3000 / 3000 (100.0%)\n"
                "Greatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)\n"
                "Greatest relative difference: 1.0 at index (0,) (up to 1.3e-06 allowed)");
  expect_pass(at::zeros({0, 3}), at::zeros({0, 3}));
}

INSTANTIATE_TEST_SUITE_P(Backends, AssertCloseTest, ::testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
