// unique, unique_consecutive, mode, quantile and nanquantile against LibTorch 1.13 where a row cannot say
// it: bad calls with LibTorch's messages word for word, NaN and signed zeros, the outputs not asked for,
// and unique's missing derivative.
//
// LibTorch's CPU orders NaN by hash (unique) or leaves it where its comparator cannot move it (mode), and
// counts a NaN in unique 0 times. Ember sorts NaN last, each NaN a value of its own, as PyTorch's sorted
// semantics say. Its oracle here is LibTorch on the same input with each NaN replaced by a distinct finite
// value above all others, in input order, mapped back to NaN afterwards.
#include <cmath>
#include <limits>

#include "tests/oracle.h"
#include "tests/same_error.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

class DistinctQuantileTest : public BackendTest {
 protected:
  Tensor from(const at::Tensor& t) { return from_torch(t, device); }
  at::Tensor floats(std::vector<double> values) { return at::tensor(values, at::kFloat); }
  void same(const std::function<void()>& ember_call, const std::function<void()>& torch_call, const char* what) {
    expect_same_error(ember_call, torch_call, what);
  }
};

// Each NaN of x as a distinct value above every other element (1000 + its flat position), and back.
constexpr double kNaNStandIn = 1000;
at::Tensor nan_as_large(const at::Tensor& x) {
  const at::Tensor stand_ins = at::arange(x.numel(), x.options()).view(x.sizes()) + kNaNStandIn;
  return at::where(x.isnan(), stand_ins, x);
}
at::Tensor large_as_nan(const at::Tensor& x) { return at::where(x >= kNaNStandIn, at::full_like(x, kNaN), x); }

TEST_P(DistinctQuantileTest, UniqueRefusesWhatLibTorchRefuses) {
  const at::Tensor h = at::arange(4).to(at::kHalf), s = at::scalar_tensor(5), x = at::zeros({2, 3});
  same([&] { from(h).unique(); }, [&] { at::_unique2(h); }, "unique of half");
  same([&] { from(h).unique(true, false, false, 0); }, [&] { at::unique_dim(h, 0); }, "unique_dim of half");
  same([&] { from(h).unique_consecutive(); }, [&] { at::unique_consecutive(h); }, "unique_consecutive of half");
  same([&] { from(s).unique(true, false, false, 0); }, [&] { at::unique_dim(s, 0); }, "a 0-dim tensor's dim 0");
  same([&] { from(s).unique(true, false, false, -1); }, [&] { at::unique_dim(s, -1); }, "a 0-dim tensor's dim -1");
  same([&] { from(x).unique(true, false, false, 2); }, [&] { at::unique_dim(x, 2); }, "dim 2 of a 2-D tensor");
  same([&] { from(x).unique_consecutive(false, false, -3); }, [&] { at::unique_consecutive(x, false, false, -3); },
       "unique_consecutive's dim -3 of a 2-D tensor");
  const at::Tensor one = at::arange(3);
  same([&] { from(one).unique_consecutive(false, false, 1); }, [&] { at::unique_consecutive(one, false, false, 1); },
       "unique_consecutive's dim 1 of a 1-D tensor");
  const at::Tensor rows_empty = at::zeros({0, 3}), both_empty = at::zeros({0, 0});
  same([&] { from(rows_empty).unique(true, false, false, 1); }, [&] { at::unique_dim(rows_empty, 1); },
       "a zero-sized dim that is not the chosen one");
  same([&] { from(both_empty).unique(true, false, false, 0); }, [&] { at::unique_dim(both_empty, 0); },
       "two zero-sized dims");
  same([&] { from(rows_empty).unique_consecutive(false, false, 1); },
       [&] { at::unique_consecutive(rows_empty, false, false, 1); }, "unique_consecutive of a zero-sized other dim");
}

TEST_P(DistinctQuantileTest, UniqueLeavesEmptyWhatWasNotAskedFor) {
  const at::Tensor t = at::tensor({3, 1, 2, 1, 3});
  const Tensor x = from(t);
  {
    const auto [values, inverse, counts] = x.unique();
    const auto [torch_values, torch_inverse, torch_counts] = at::_unique2(t);
    EXPECT_TENSOR_EQ(values, torch_values);
    EXPECT_TENSOR_EQ(inverse, torch_inverse);
    EXPECT_TENSOR_EQ(counts, torch_counts);
  }
  {
    const auto [values, inverse, counts] = x.unique_consecutive();
    const auto [torch_values, torch_inverse, torch_counts] = at::unique_consecutive(t);
    EXPECT_TENSOR_EQ(values, torch_values);
    EXPECT_TENSOR_EQ(inverse, torch_inverse);
    EXPECT_TENSOR_EQ(counts, torch_counts);
  }
  // LibTorch fills the inverse whenever the counts are asked for, and unique_dim fills both always;
  // ember computes only what was asked for.
  {
    const auto [values, inverse, counts] = x.unique(true, false, true);
    EXPECT_EQ(inverse.numel(), 0);
    EXPECT_TENSOR_EQ(counts, std::get<2>(at::_unique2(t, true, false, true)));
  }
  {
    const auto [values, inverse, counts] = x.unique(true, false, false, 0);
    EXPECT_TENSOR_EQ(values, std::get<0>(at::unique_dim(t, 0)));
    EXPECT_EQ(inverse.numel(), 0);
    EXPECT_EQ(counts.numel(), 0);
  }
}

TEST_P(DistinctQuantileTest, UniqueAtNaNAndSignedZeros) {
  auto expect_unique = [&](const at::Tensor& t, std::optional<int64_t> dim) {
    const auto [values, inverse, counts] = from(t).unique(true, true, true, dim);
    const at::Tensor stand_in = nan_as_large(t);
    const auto [torch_values, torch_inverse, torch_counts] =
        dim ? at::unique_dim(stand_in, *dim, true, true, true) : at::_unique2(stand_in, true, true, true);
    EXPECT_TENSOR_EQ(values, large_as_nan(torch_values));
    EXPECT_TENSOR_EQ(inverse, torch_inverse);
    EXPECT_TENSOR_EQ(counts, torch_counts);
  };
  expect_unique(floats({kNaN, 1, kNaN, 2, 1}), std::nullopt);
  expect_unique(floats({kNaN, kNaN, kNaN}), std::nullopt);
  expect_unique(floats({2, kNaN, 1, 3, kNaN, 0}).view({3, 2}), std::nullopt);
  expect_unique(floats({1, kNaN, 1, kNaN, 0, 1}).view({3, 2}), 0);
  expect_unique(floats({2, kNaN, 1, kNaN, 2, kNaN, 1, 0}).view({4, 2}), 0);

  const at::Tensor runs = floats({1, kNaN, kNaN, 2, kNaN});
  const auto [values, inverse, counts] = from(runs).unique_consecutive(true, true);
  const auto [torch_values, torch_inverse, torch_counts] = at::unique_consecutive(nan_as_large(runs), true, true);
  EXPECT_TENSOR_EQ(values, large_as_nan(torch_values));
  EXPECT_TENSOR_EQ(inverse, torch_inverse);
  EXPECT_TENSOR_EQ(counts, torch_counts);

  // -0.0 and 0.0 are one value; the first one seen is kept, and LibTorch keeps the same one.
  auto signs = [](const at::Tensor& t) { return at::signbit(t); };
  for (const at::Tensor& t : {floats({-0.0, 0.0, 1}), floats({0.0, -0.0, 1}), floats({1, -0.0, 0.0, -0.0})}) {
    const Tensor x = from(t);
    EXPECT_TENSOR_EQ(from(signs(to_torch(std::get<0>(x.unique())))), signs(std::get<0>(at::_unique2(t))));
    EXPECT_TENSOR_EQ(from(signs(to_torch(std::get<0>(x.unique_consecutive())))),
                     signs(std::get<0>(at::unique_consecutive(t))));
    EXPECT_TENSOR_EQ(from(signs(to_torch(std::get<0>(x.unique(true, false, false, 0))))),
                     signs(std::get<0>(at::unique_dim(t, 0))));
  }
}

TEST_P(DistinctQuantileTest, UniqueHasNoDerivative) {
  const at::Tensor t = at::rand({5}).requires_grad_(true);
  const Tensor x = from(t.detach()).requires_grad_(true);
  const at::Tensor rows = at::rand({3, 2}).requires_grad_(true);
  const Tensor r = from(rows.detach()).requires_grad_(true);
  expect_same_backward_error(std::get<0>(x.unique()), std::get<0>(at::_unique2(t)));
  expect_same_backward_error(std::get<0>(r.unique(true, false, false, 0)), std::get<0>(at::unique_dim(rows, 0)));
  expect_same_backward_error(std::get<0>(x.unique_consecutive()), std::get<0>(at::unique_consecutive(t)));
  expect_same_backward_error(std::get<0>(r.unique_consecutive(false, false, 1)),
                             std::get<0>(at::unique_consecutive(rows, false, false, 1)));
  EXPECT_FALSE(std::get<1>(x.unique(true, true, true)).requires_grad());
  EXPECT_FALSE(std::get<2>(x.unique(true, true, true)).requires_grad());
}

TEST_P(DistinctQuantileTest, ModeAtNaNAndSignedZerosAndItsErrors) {
  for (const at::Tensor& t : {floats({kNaN, kNaN, 1}), floats({kNaN, 1, 1}), floats({kNaN, kNaN, 1, 1}),
                              floats({1, 1, kNaN, kNaN}), floats({kNaN, 3, kNaN, 3, 2, 2})}) {
    const auto [values, indices] = from(t).mode();
    const auto [torch_values, torch_indices] = nan_as_large(t).mode();
    EXPECT_TENSOR_EQ(values, large_as_nan(torch_values));
    EXPECT_TENSOR_EQ(indices, torch_indices);
  }
  // The sign of a zero is the last occurrence's, as LibTorch's.
  for (const at::Tensor& t : {floats({-0.0, 0.0, 1}), floats({0.0, -0.0, 1}), floats({0.0, 0.0, -0.0})}) {
    const auto [values, indices] = from(t).mode();
    const auto [torch_values, torch_indices] = t.mode();
    EXPECT_TENSOR_EQ(from(at::signbit(to_torch(values))), at::signbit(torch_values));
    EXPECT_TENSOR_EQ(indices, torch_indices);
  }
  const at::Tensor v = at::zeros({0}), m = at::zeros({2, 0}), s = at::scalar_tensor(5.0);
  same([&] { from(v).mode(); }, [&] { v.mode(); }, "mode of nothing");
  same([&] { from(m).mode(1); }, [&] { m.mode(1); }, "mode along an empty dim");
  same([&] { from(s).mode(1); }, [&] { s.mode(1); }, "mode past a 0-dim tensor's dims");
  same([&] { from(m).mode(-3); }, [&] { m.mode(-3); }, "mode past the dims");
}

TEST_P(DistinctQuantileTest, QuantileRefusesWhatLibTorchRefuses) {
  const at::Tensor x = at::rand({3, 4}), q = at::tensor({0.25, 0.5}, at::kFloat);
  const at::Tensor i = at::arange(4), h = x.to(at::kHalf), e = at::zeros({0, 3});
  same([&] { from(x).quantile(1.5); }, [&] { x.quantile(1.5); }, "q above 1");
  same([&] { from(x).quantile(-0.1); }, [&] { x.quantile(-0.1); }, "q below 0");
  same([&] { from(x).quantile(2.5e10); }, [&] { x.quantile(2.5e10); }, "a large q");
  same([&] { from(x).nanquantile(kNaN); }, [&] { x.nanquantile(kNaN); }, "q NaN");
  same([&] { from(x).quantile(from(q + 1)); }, [&] { x.quantile(q + 1); }, "q values above 1");
  same([&] { from(x).quantile(from(q.view({2, 1}))); }, [&] { x.quantile(q.view({2, 1})); }, "a 2-D q");
  same([&] { from(x).quantile(from(q.to(at::kDouble))); }, [&] { x.quantile(q.to(at::kDouble)); }, "q of another dtype");
  same([&] { from(i).quantile(0.5); }, [&] { i.quantile(0.5); }, "integers");
  same([&] { from(h).quantile(from(q.to(at::kHalf))); }, [&] { h.quantile(q.to(at::kHalf)); }, "half");
  same([&] { from(e).quantile(0.5, 1); }, [&] { e.quantile(0.5, 1); }, "an empty input");
  same([&] { from(x).quantile(0.5, {}, false, "Linear"); }, [&] { x.quantile(0.5, {}, false, "Linear"); },
       "an unknown interpolation");
  same([&] { from(x).quantile(0.5, 2); }, [&] { x.quantile(0.5, 2); }, "a dim out of range");
  const int64_t too_long = (int64_t{1} << 24) + 1;  // ranks in float32 stop being exact integers
  const at::Tensor long_slice = at::zeros({too_long});
  same([&] { zeros({too_long}, TensorOptions().device(device)).quantile(0.5); }, [&] { long_slice.quantile(0.5); },
       "a slice longer than 2^24");
  // The order of the checks: each call fails two of them.
  same([&] { from(e).quantile(1.5, 0, false, "bad"); }, [&] { e.quantile(1.5, 0, false, "bad"); }, "q, then the mode");
  same([&] { from(e).quantile(0.5, 0, false, "bad"); }, [&] { e.quantile(0.5, 0, false, "bad"); },
       "the mode, then the size");
  same([&] { from(i).quantile(from(q.view({2, 1}))); }, [&] { i.quantile(q.view({2, 1})); },
       "q's dims, then the dtype");
  same([&] { from(i).quantile(0.5, 3); }, [&] { i.quantile(0.5, 3); }, "the dtype, then the dim");
  same([&] { from(x).quantile(from(q + 1), 3); }, [&] { x.quantile(q + 1, 3); }, "the dim, then q's values");
}

TEST_P(DistinctQuantileTest, QuantilesAtNaNWithTheirGradients) {
  const at::Tensor m = floats({1, kNaN, 3, kNaN, kNaN, kNaN, 4, 5, 6, kNaN, 2, kNaN}).view({4, 3});
  const at::Tensor q = at::tensor({0.0, 0.5, 0.7, 1.0}, at::kFloat);
  for (const char* interpolation : {"linear", "lower", "higher", "midpoint", "nearest"}) {
    SCOPED_TRACE(interpolation);
    EXPECT_TENSOR_EQ(from(m).quantile(from(q), 1, false, interpolation), m.quantile(q, 1, false, interpolation));
    EXPECT_TENSOR_EQ(from(m).nanquantile(from(q), 1, true, interpolation), m.nanquantile(q, 1, true, interpolation));
    EXPECT_TENSOR_EQ(from(m).nanquantile(0.4, {}, false, interpolation), m.nanquantile(0.4, {}, false, interpolation));
  }
  // The gradient goes to the NaN a quantile returns, and past it for nanquantile.
  const at::Tensor t = floats({3, kNaN, 1});
  for (bool ignore_nan : {false, true}) {
    const at::Tensor u = t.clone().requires_grad_(true);
    const Tensor x = from(t).requires_grad_(true);
    (ignore_nan ? x.nanquantile(0.5) : x.quantile(0.5)).backward();
    (ignore_nan ? u.nanquantile(0.5) : u.quantile(0.5)).backward();
    EXPECT_TENSOR_EQ(x.grad(), u.grad());
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, DistinctQuantileTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
