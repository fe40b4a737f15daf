// The ops ember composes of others (flip, roll, rot90, diff, heaviside, logaddexp, xlogy, outer, addmv,
// addr, kron, tensordot, trace, diag_embed, cross, var_mean, std_mean, aminmax) against LibTorch 1.13 where
// a row cannot say it: bad calls with LibTorch's messages word for word, boundary values (infinities,
// NaN, signed zeros, empty dims), what the in-place forms leave behind, the ops without a derivative, and
// var_mean's gradient through its mean alone.
#include <limits>

#include "tests/oracle.h"
#include "tests/same_error.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

class ComposedOpsTest : public BackendTest {
 protected:
  Tensor from(const at::Tensor& t) { return from_torch(t, device); }
  at::Tensor floats(std::vector<double> values) { return at::tensor(values, at::kFloat); }
};

TEST_P(ComposedOpsTest, ReversalsAndShiftsRefuseWhatLibTorchRefuses) {
  const at::Tensor m = at::arange(6, at::kFloat).view({2, 3}), v = at::arange(3, at::kFloat);
  const at::Tensor s = at::scalar_tensor(5.0);
  const auto same = [&](auto ember_call, auto torch_call, const char* what) {
    expect_same_error(ember_call, torch_call, what);
  };
  same([&] { from(m).flip({0, -2}); }, [&] { m.flip({0, -2}); }, "flip with a dim twice");
  same([&] { from(m).flip({2}); }, [&] { m.flip({2}); }, "flip past the dims");
  same([&] { from(s).flip({1}); }, [&] { s.flip({1}); }, "flip of a 0-dim past its dim");
  same([&] { from(v).fliplr(); }, [&] { v.fliplr(); }, "fliplr of a vector");
  same([&] { from(s).flipud(); }, [&] { s.flipud(); }, "flipud of a 0-dim");
  same([&] { from(m).roll({1, 2}, {0}); }, [&] { m.roll({1, 2}, {0}); }, "roll with more shifts than dims");
  same([&] { from(m).roll({1, 2}); }, [&] { m.roll({1, 2}); }, "roll with two shifts and no dims");
  same([&] { from(m).roll({}, {0}); }, [&] { m.roll({}, {0}); }, "roll without shifts");
  same([&] { from(m).roll({1}, {-3}); }, [&] { m.roll({1}, {-3}); }, "roll past the dims");
  same([&] { from(s).roll({1}, {0}); }, [&] { s.roll({1}, {0}); }, "roll of a 0-dim along a dim");
  same([&] { from(m).rot90(1, {0}); }, [&] { m.rot90(1, {0}); }, "rot90 with one dim");
  same([&] { from(m).rot90(1, {0, -2}); }, [&] { m.rot90(1, {0, -2}); }, "rot90 in one dim twice");
  same([&] { from(m).rot90(1, {0, 2}); }, [&] { m.rot90(1, {0, 2}); }, "rot90 past the dims by the rank");
  same([&] { from(m).rot90(1, {-3, 1}); }, [&] { m.rot90(1, {-3, 1}); }, "rot90 with dim0 out of range");
  same([&] { from(m).rot90(1, {1, 5}); }, [&] { m.rot90(1, {1, 5}); }, "rot90 with dim1 out of range");
  same([&] { from(v).rot90(); }, [&] { v.rot90(); }, "rot90 of a vector");
  same([&] { from(s).diff(); }, [&] { s.diff(); }, "diff of a 0-dim");
  same([&] { from(v).diff(1, 1); }, [&] { v.diff(1, 1); }, "diff past the dims");
  same([&] { from(m).diff(1, 1, from(v)); }, [&] { m.diff(1, 1, v); }, "diff with a prepend of another rank");
  same([&] { from(m).diff(1, 1, {}, from(m.t())); }, [&] { m.diff(1, 1, {}, m.t()); },
       "diff with an append of other sizes");
  same([&] { from(m).diff(1, 0, from(s)); }, [&] { m.diff(1, 0, s); }, "diff with a 0-dim prepend");
}

TEST_P(ComposedOpsTest, ReversalsAndShiftsAtTheirBoundaries) {
  const at::Tensor s = at::scalar_tensor(5.0), empty = at::zeros({0, 3}), v = at::arange(1, 6, at::kLong);
  EXPECT_TENSOR_EQ(from(s).flip({0}), s.flip({0}));
  EXPECT_TENSOR_EQ(from(s).roll({3}), s.roll({3}));
  EXPECT_TENSOR_EQ(from(empty).roll({1}, {0}), empty.roll({1}, {0}));
  EXPECT_TENSOR_EQ(from(empty).roll({1}, {7}), empty.roll({1}, {7}));  // empty: no dim check, as LibTorch
  EXPECT_TENSOR_EQ(from(v).roll({-7}), v.roll({-7}));
  EXPECT_TENSOR_EQ(from(v).roll({1, 1}, {0, 0}), v.roll({1, 1}, {0, 0}));
  for (int64_t n : {0, -1, 5, 7}) {
    SCOPED_TRACE(n);
    EXPECT_TENSOR_EQ(from(v).diff(n, 0, from(v.narrow(0, 0, 2))), v.diff(n, 0, v.narrow(0, 0, 2)));
  }
  // flip and rot90 copy: a later write to the input does not show.
  Tensor x = from(at::arange(6, at::kFloat).view({2, 3}));
  const Tensor flipped = x.flip({}), turned = x.rot90(4), rolled = x.roll({3});
  x.fill_(-1);
  EXPECT_TENSOR_EQ(flipped, at::arange(6, at::kFloat).view({2, 3}));
  EXPECT_TENSOR_EQ(turned, at::arange(6, at::kFloat).view({2, 3}));
  EXPECT_TENSOR_EQ(rolled, at::arange(6, at::kFloat).view({2, 3}).roll({3}));
}

TEST_P(ComposedOpsTest, BinaryCompositesAtInfinitiesNansAndZeros) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const at::Tensor a = floats({-inf, inf, inf, -inf, nan, nan, 1000, -1000, 0, -0.0});
  const at::Tensor b = floats({-inf, inf, -inf, 2, 1, -inf, 1000, -1000, -0.0, 3});
  EXPECT_TENSOR_EQ(from(a).logaddexp(from(b)), a.logaddexp(b));
  EXPECT_TENSOR_EQ(from(a).logaddexp2(from(b)), a.logaddexp2(b));
  EXPECT_TENSOR_EQ(from(a).xlogy(from(b)), a.xlogy(b));
  EXPECT_TENSOR_EQ(from(b).xlogy(from(a)), b.xlogy(a));
  const at::Tensor values = floats({0.5, 0.5, 0.5, nan, 0.5, 0.5, 0.5, 0.5, 7, -2});
  EXPECT_TENSOR_EQ(from(a).heaviside(from(values)), a.heaviside(values));
  EXPECT_TENSOR_EQ(xlogy(0.0, from(b)), at::xlogy(0.0, b));
  EXPECT_TENSOR_EQ(from(at::arange(4, at::kInt)).xlogy(0.0), at::arange(4, at::kInt).xlogy(0.0));
}

TEST_P(ComposedOpsTest, BinaryCompositesRefuseWhatLibTorchRefuses) {
  const at::Tensor f = at::rand({3}), d = f.to(at::kDouble), i = at::arange(3), big = at::rand({2, 3});
  const auto same = [&](auto ember_call, auto torch_call, const char* what) {
    expect_same_error(ember_call, torch_call, what);
  };
  same([&] { from(f).heaviside(from(d)); }, [&] { f.heaviside(d); }, "heaviside of two dtypes");
  same([&] { from(i).heaviside(from(f)); }, [&] { i.heaviside(f); }, "heaviside of an integer by floats");
  same([&] { from(i).logaddexp(from(i)); }, [&] { i.logaddexp(i); }, "logaddexp of integers");
  same([&] { from(i > 0).logaddexp2(from(i > 0)); }, [&] { (i > 0).logaddexp2(i > 0); }, "logaddexp2 of bools");
  // The in-place forms check before they write: self is left as it was.
  Tensor self = from(f);
  same([&] { self.heaviside_(from(big)); }, [&] { f.clone().heaviside_(big); }, "heaviside_ into a smaller self");
  same([&] { self.xlogy_(from(big)); }, [&] { f.clone().xlogy_(big); }, "xlogy_ into a smaller self");
  Tensor integers = from(i);
  same([&] { integers.xlogy_(from(f)); }, [&] { i.clone().xlogy_(f); }, "xlogy_ into integers");
  same([&] { integers.xlogy_(2); }, [&] { i.clone().xlogy_(2); }, "xlogy_ of a number into integers");
  EXPECT_TENSOR_EQ(self, f);
  EXPECT_TENSOR_EQ(integers, i);

  Tensor target = from(f);
  Tensor& returned = target.xlogy_(from(d));
  EXPECT_TRUE(returned.is_same(target));
  EXPECT_TENSOR_EQ(target, f.clone().xlogy_(d));
  Tensor& stepped = target.heaviside_(from(f));
  EXPECT_TRUE(stepped.is_same(target));
}

TEST_P(ComposedOpsTest, ProductsRefuseWhatLibTorchRefuses) {
  const at::Tensor v3 = at::rand({3}), v4 = at::rand({4}), m = at::rand({3, 4}), m2 = at::rand({2, 3});
  const auto same = [&](auto ember_call, auto torch_call, const char* what) {
    expect_same_error(ember_call, torch_call, what);
  };
  same([&] { from(m).outer(from(v4)); }, [&] { m.outer(v4); }, "outer of a matrix");
  same([&] { ger(from(v3), from(m)); }, [&] { at::ger(v3, m); }, "ger by a matrix");
  same([&] { from(v3).addmv(from(m), from(v3)); }, [&] { v3.addmv(m, v3); }, "addmv with a short vector");
  same([&] { from(v4).addmv(from(m), from(v4)); }, [&] { v4.addmv(m, v4); }, "addmv with a long input");
  same([&] { from(m).addmv(from(m), from(v4)); }, [&] { m.addmv(m, v4); }, "addmv with a matrix input");
  same([&] { from(v3).addmv(from(v3), from(v4)); }, [&] { v3.addmv(v3, v4); }, "addmv with a vector for mat");
  same([&] { from(v3).addmv(from(m), from(v4.to(at::kDouble))); }, [&] { v3.addmv(m, v4.to(at::kDouble)); },
       "addmv of two dtypes");
  same([&] { from(m).addr(from(m), from(v4)); }, [&] { m.addr(m, v4); }, "addr with a matrix vec1");
  same([&] { from(m).addr(from(v3), from(at::scalar_tensor(1.0))); }, [&] { m.addr(v3, at::scalar_tensor(1.0)); },
       "addr with a 0-dim vec2");
  same([&] { from(m.t()).addr(from(v3), from(v4)); }, [&] { m.t().addr(v3, v4); }, "addr with a transposed input");
  const at::Tensor i3 = at::arange(3), i4 = at::arange(4), im = at::ones({3, 4}, at::kLong);
  same([&] { from(im).addr(from(i3), from(i4), 0.5); }, [&] { im.addr(i3, i4, 0.5); }, "addr of integers by beta 0.5");
  same([&] { from(im).addr(from(i3), from(i4), 1, 0.5); }, [&] { im.addr(i3, i4, 1, 0.5); },
       "addr of integers by alpha 0.5");
  same([&] { from(v3).trace(); }, [&] { v3.trace(); }, "trace of a vector");
  same([&] { from(m > 0.5).trace(); }, [&] { (m > 0.5).trace(); }, "trace of bools");
  same([&] { from(v3).diag_embed(0, 0, -2); }, [&] { v3.diag_embed(0, 0, -2); }, "diag_embed in one dim twice");
  same([&] { from(v3).diag_embed(0, 0, 2); }, [&] { v3.diag_embed(0, 0, 2); }, "diag_embed past the dims");
  same([&] { from(at::scalar_tensor(1.0)).diag_embed(); }, [&] { at::scalar_tensor(1.0).diag_embed(); },
       "diag_embed of a 0-dim");
  same([&] { tensordot(from(m), from(m2), {1}, {0}); }, [&] { at::tensordot(m, m2, {1}, {0}); },
       "tensordot of different sizes");
  same([&] { tensordot(from(m), from(m2), {0, 1}, {0}); }, [&] { at::tensordot(m, m2, {0, 1}, {0}); },
       "tensordot with lists of two lengths");
  same([&] { tensordot(from(m), from(m2), {1, -1}, {0, 1}); }, [&] { at::tensordot(m, m2, {1, -1}, {0, 1}); },
       "tensordot with a dim twice");
  same([&] { tensordot(from(m), from(m2.to(at::kDouble)), {0}, {1}); },
       [&] { at::tensordot(m, m2.to(at::kDouble), {0}, {1}); }, "tensordot of two dtypes");
  EXPECT_THROW(tensordot(from(m), from(m2), -1), Error);  // Python's check: LibTorch takes lists only
}

TEST_P(ComposedOpsTest, CrossRefusesWhatLibTorchRefuses) {
  const at::Tensor a = at::rand({2, 3}), b = at::rand({4, 3}), c = at::rand({3, 2}), v = at::rand({3});
  const auto same = [&](auto ember_call, auto torch_call, const char* what) {
    expect_same_error(ember_call, torch_call, what);
  };
  same([&] { from(at::rand({2, 2})).cross(from(at::rand({2, 2}))); }, [&] { at::rand({2, 2}).cross(at::rand({2, 2})); },
       "cross without a dim of size 3");
  same([&] { from(c).cross(from(c), 1); }, [&] { c.cross(c, 1); }, "cross along a dim of size 2");
  same([&] { linalg_cross(from(c), from(c)); }, [&] { at::linalg_cross(c, c); }, "linalg_cross along a dim of size 2");
  same([&] { from(a).cross(from(b)); }, [&] { a.cross(b); }, "cross of shapes that do not broadcast");
  same([&] { from(a).cross(from(v)); }, [&] { a.cross(v); }, "cross of two ranks");
  same([&] { from(at::rand({3, 3})).cross(from(at::rand({1, 3}))); },
       [&] { at::rand({3, 3}).cross(at::rand({1, 3})); }, "cross picking dim 0 of the first input");
  same([&] { from(a).cross(from(a), 2); }, [&] { a.cross(a, 2); }, "cross past the dims");
  same([&] { linalg_cross(from(at::scalar_tensor(1.0)), from(at::scalar_tensor(1.0))); },
       [&] { at::linalg_cross(at::scalar_tensor(1.0), at::scalar_tensor(1.0)); }, "linalg_cross of 0-dims");
  same([&] { from(at::scalar_tensor(1.0)).cross(from(at::scalar_tensor(1.0))); },
       [&] { at::scalar_tensor(1.0).cross(at::scalar_tensor(1.0)); }, "cross of 0-dims");
  same([&] { from(v).cross(from(v.to(at::kDouble))); }, [&] { v.cross(v.to(at::kDouble)); }, "cross of two dtypes");
  same([&] { from(v > 0).cross(from(v > 0)); }, [&] { (v > 0).cross(v > 0); }, "cross of bools");
}

TEST_P(ComposedOpsTest, ReductionPairsAtTheirBoundaries) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const at::Tensor x = floats({3, nan, -1, 2, 0, 7}).view({2, 3}), empty = at::zeros({0, 3});
  const auto expect_pair = [&](const std::tuple<Tensor, Tensor>& actual,
                               const std::tuple<at::Tensor, at::Tensor>& expected) {
    EXPECT_TENSOR_EQ(std::get<0>(actual), std::get<0>(expected));
    EXPECT_TENSOR_EQ(std::get<1>(actual), std::get<1>(expected));
  };
  expect_pair(from(x).aminmax(), x.aminmax());
  expect_pair(from(x).aminmax(1), x.aminmax(1));
  expect_pair(from(x).aminmax(std::nullopt, true), x.aminmax(c10::nullopt, true));
  expect_pair(from(empty).aminmax(1), empty.aminmax(1));
  expect_pair(from(at::scalar_tensor(5.0)).aminmax(0), at::scalar_tensor(5.0).aminmax(0));
  expect_pair(var_mean(from(empty), {0}), at::var_mean(empty, {0}));
  expect_pair(std_mean(from(empty), {1}), at::std_mean(empty, {1}));
  expect_pair(var_mean(from(at::scalar_tensor(5.0))), at::var_mean(at::scalar_tensor(5.0)));
  expect_pair(std_mean(from(x), {}, 0), at::std_mean(x, at::OptionalIntArrayRef(at::IntArrayRef{}), 0, false));

  const auto same = [&](auto ember_call, auto torch_call, const char* what) {
    expect_same_error(ember_call, torch_call, what);
  };
  same([&] { from(empty).aminmax(); }, [&] { empty.aminmax(); }, "aminmax of nothing");
  same([&] { from(empty).aminmax(0); }, [&] { empty.aminmax(0); }, "aminmax along an empty dim");
  same([&] { from(x).aminmax(2); }, [&] { x.aminmax(2); }, "aminmax past the dims");
  const at::Tensor i = at::arange(4);
  same([&] { var_mean(from(i)); }, [&] { at::var_mean(i); }, "var_mean of integers");
  same([&] { std_mean(from(i > 1)); }, [&] { at::std_mean(i > 1); }, "std_mean of bools");
  same([&] { var_mean(from(x), {2}); }, [&] { at::var_mean(x, {2}); }, "var_mean past the dims");
}

// Where a reduced dim has N <= correction the spread's gradient factor is infinite; a caller who uses only
// the mean still gets the mean's gradient, as in PyTorch, not 0 * inf.
TEST_P(ComposedOpsTest, ReductionPairsGiveTheMeansGradientWhenOnlyTheMeanIsUsed) {
  const at::Tensor t = at::rand({1, 3});
  for (const bool is_std : {false, true}) {
    SCOPED_TRACE(is_std ? "std_mean" : "var_mean");
    const at::Tensor u = t.clone().requires_grad_(true);
    const Tensor x = from(t).requires_grad_(true);
    const auto [ember_spread, ember_mean] = is_std ? std_mean(x, {0}) : var_mean(x, {0});
    const auto [torch_spread, torch_mean] = is_std ? at::std_mean(u, {0}) : at::var_mean(u, {0});
    ember_mean.sum().backward();
    torch_mean.sum().backward();
    EXPECT_TENSOR_EQ(x.grad(), u.grad());
  }
}

TEST_P(ComposedOpsTest, HeavisideAndAminmaxHaveNoDerivative) {
  const at::Tensor t = at::rand({4}).requires_grad_(true);
  const Tensor x = from(t.detach()).requires_grad_(true);
  expect_same_backward_error(x.heaviside(x), t.heaviside(t));
  expect_same_backward_error(std::get<0>(x.aminmax()), std::get<0>(t.aminmax()));
  expect_same_backward_error(std::get<1>(x.aminmax(0)), std::get<1>(t.aminmax(0)));
}

// LibTorch 1.13's TraceBackward0 fills every (columns + 1)-th element, which for a matrix taller than
// wide reaches past the diagonal; ember's gradient is the diagonal's, as the gradient of diagonal().sum().
TEST_P(ComposedOpsTest, TraceOfATallMatrixGetsTheDiagonalsGradient) {
  const at::Tensor t = at::rand({5, 2}, at::kDouble).requires_grad_(true);
  const Tensor x = from(t.detach()).requires_grad_(true);
  x.trace().backward();
  t.diagonal().sum().backward();
  EXPECT_TENSOR_EQ(x.grad(), t.grad());
}

INSTANTIATE_TEST_SUITE_P(Backends, ComposedOpsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
