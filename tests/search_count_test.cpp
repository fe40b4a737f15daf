// searchsorted, bucketize, isin, bincount, histc, median and nanmedian against LibTorch 1.13 where a row
// cannot say it: bad calls with LibTorch's messages word for word, NaN and infinities (in the values, in
// the searched sequence, in a median's slice), ranges that come from the data, and the ops without a
// derivative.
#include <limits>

#include "tests/oracle.h"
#include "tests/same_error.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

class SearchCountTest : public BackendTest {
 protected:
  Tensor from(const at::Tensor& t) { return from_torch(t, device); }
  at::Tensor floats(std::vector<double> values) { return at::tensor(values, at::kFloat); }
  void same(const std::function<void()>& ember_call, const std::function<void()>& torch_call, const char* what) {
    expect_same_error(ember_call, torch_call, what);
  }
};

TEST_P(SearchCountTest, SearchingRefusesWhatLibTorchRefuses) {
  const at::Tensor seq = at::arange(6, at::kFloat).view({2, 3}), v = at::rand({4}), s = at::scalar_tensor(1.0);
  const at::Tensor sorter = at::arange(3).expand({2, 3}).contiguous();
  same([&] { bucketize(from(v), from(seq)); }, [&] { at::bucketize(v, seq); }, "bucketize with 2-D boundaries");
  same([&] { bucketize(from(v), from(s)); }, [&] { at::bucketize(v, s); }, "bucketize with 0-dim boundaries");
  same([&] { searchsorted(from(seq), from(v)); }, [&] { at::searchsorted(seq, v); }, "values of another rank");
  same([&] { searchsorted(from(seq), from(at::rand({3, 2}))); }, [&] { at::searchsorted(seq, at::rand({3, 2})); },
       "leading dims that differ");
  same([&] { searchsorted(from(s), from(v)); }, [&] { at::searchsorted(s, v); }, "a 0-dim sequence");
  same([&] { searchsorted(from(seq), from(s)); }, [&] { at::searchsorted(seq, s); }, "a 0-dim value and a 2-D sequence");
  same([&] { searchsorted(from(seq), 2.0); }, [&] { at::searchsorted(seq, 2.0); }, "a number and a 2-D sequence");
  same([&] { searchsorted(from(v), from(v), false, false, "middle"); },
       [&] { at::searchsorted(v, v, false, false, "middle"); }, "an unknown side");
  same([&] { searchsorted(from(v), from(v), false, true, "left"); },
       [&] { at::searchsorted(v, v, false, true, "left"); }, "side left with right");
  same([&] { searchsorted(from(seq), from(seq), false, false, std::nullopt, from(sorter.to(at::kInt))); },
       [&] { at::searchsorted(seq, seq, false, false, c10::nullopt, sorter.to(at::kInt)); }, "an int32 sorter");
  same([&] { searchsorted(from(seq), from(seq), false, false, std::nullopt, from(sorter.narrow(1, 0, 2))); },
       [&] { at::searchsorted(seq, seq, false, false, c10::nullopt, sorter.narrow(1, 0, 2)); },
       "a sorter of other sizes");
}

TEST_P(SearchCountTest, IsinRefusesWhatLibTorchRefuses) {
  const at::Tensor i = at::arange(4), b = i > 1, h = i.to(at::kBFloat16);
  same([&] { isin(from(b), from(i)); }, [&] { at::isin(b, i); }, "isin of bools");
  same([&] { isin(from(i), from(b)); }, [&] { at::isin(i, b); }, "isin in bools");
  same([&] { isin(from(i), true); }, [&] { at::isin(i, true); }, "isin in a bool");
  same([&] { isin(from(h), from(i)); }, [&] { at::isin(h, i); }, "isin of bfloat16");
  same([&] { isin(from(h), from(i.to(at::kHalf))); }, [&] { at::isin(h, i.to(at::kHalf)); }, "bfloat16 and half");
  same([&] { searchsorted(from(b), from(b)); }, [&] { at::searchsorted(b, b); }, "searchsorted of bools");
}

TEST_P(SearchCountTest, SearchingMatchesLibTorchAtNaNAndInfinities) {
  const at::Tensor values = floats({kNaN, -kInf, kInf, 1, 2, 2.5, -0.0, 0});
  for (const at::Tensor& seq : {floats({-kInf, 0, 1, 2, 2, kInf}), floats({0, 1, 2, kNaN, kNaN}),
                                floats({kNaN}), floats({-0.0, 0, 0})}) {
    SCOPED_TRACE(::testing::PrintToString(seq));
    for (const bool right : {false, true}) {
      EXPECT_TENSOR_EQ(searchsorted(from(seq), from(values), false, right), at::searchsorted(seq, values, false, right));
      EXPECT_TENSOR_EQ(bucketize(from(values), from(seq), true, right), at::bucketize(values, seq, true, right));
    }
    // An unsorted sequence with its sorter: NaN last, as argsort puts it.
    const at::Tensor shuffled = seq.flip({0});
    const at::Tensor order = shuffled.argsort();
    EXPECT_TENSOR_EQ(searchsorted(from(shuffled), from(values), false, false, "right", from(order)),
                     at::searchsorted(shuffled, values, false, false, "right", order));
  }
}

TEST_P(SearchCountTest, IsinMatchesLibTorchAtNaNAndSignedZeros) {
  const at::Tensor elements = floats({kNaN, 1, -0.0, 0, kInf, 3});
  for (const at::Tensor& test : {floats({kNaN, 0, kInf}), floats({-0.0}), floats({kNaN}), floats({})}) {
    SCOPED_TRACE(::testing::PrintToString(test));
    EXPECT_TENSOR_EQ(isin(from(elements), from(test)), at::isin(elements, test));
    EXPECT_TENSOR_EQ(isin(from(elements), from(test), true, true), at::isin(elements, test, true, true));
  }
  // An expanded test tensor, which LibTorch 1.13 refuses to view flat: compared with its copy.
  const at::Tensor column = floats({kInf, 3}).view({2, 1});
  EXPECT_TENSOR_EQ(isin(from(elements), from(column).expand({2, 3})),
                   at::isin(elements, column.expand({2, 3}).contiguous()));
  // Large enough for LibTorch's sorting algorithm rather than its pairwise one.
  const at::Tensor many = at::randint(-20, 20, {300}), few = at::randint(-20, 20, {200});
  EXPECT_TENSOR_EQ(isin(from(many), from(few)), at::isin(many, few));
  EXPECT_TENSOR_EQ(isin(from(many), from(few.to(at::kDouble) + 0.5)), at::isin(many, few.to(at::kDouble) + 0.5));
}

TEST_P(SearchCountTest, CountingRefusesWhatLibTorchRefuses) {
  const at::Tensor i = at::tensor({1, 3, 0}), f = floats({1, 2});
  same([&] { from(i.view({1, 3})).bincount(); }, [&] { i.view({1, 3}).bincount(); }, "bincount of a matrix");
  same([&] { from(at::scalar_tensor(2, at::kLong)).bincount(); }, [&] { at::scalar_tensor(2, at::kLong).bincount(); },
       "bincount of a 0-dim");
  same([&] { from(i - 2).bincount(); }, [&] { (i - 2).bincount(); }, "bincount of a negative value");
  same([&] { from(f).bincount(); }, [&] { f.bincount(); }, "bincount of floats");
  same([&] { from(i > 0).bincount(); }, [&] { (i > 0).bincount(); }, "bincount of bools");
  same([&] { from(i).bincount({}, -1); }, [&] { i.bincount({}, -1); }, "bincount with a negative minlength");
  same([&] { from(i).bincount(from(f)); }, [&] { i.bincount(f); }, "bincount with too few weights");
  same([&] { from(i).bincount(from(floats({1, 2, 3}).view({1, 3}))); },
       [&] { i.bincount(floats({1, 2, 3}).view({1, 3})); }, "bincount with 2-D weights");
  same([&] { from(i).histc(); }, [&] { i.histc(); }, "histc of integers");
  same([&] { from(f).histc(0); }, [&] { f.histc(0); }, "histc with no bins");
  same([&] { from(f).histc(-3); }, [&] { f.histc(-3); }, "histc with negative bins");
  same([&] { from(f).histc(4, 2, 1); }, [&] { f.histc(4, 2, 1); }, "histc with min above max");
  same([&] { from(f > 1).histc(); }, [&] { (f > 1).histc(); }, "histc of bools");
  same([&] { from(f).histc(4, 0, kInf); }, [&] { f.histc(4, 0, kInf); }, "histc up to infinity");
  same([&] { from(floats({1, kInf})).histc(); }, [&] { floats({1, kInf}).histc(); }, "histc of data reaching inf");
  same([&] { from(floats({kNaN})).histc(); }, [&] { floats({kNaN}).histc(); }, "histc of NaN data");
}

TEST_P(SearchCountTest, CountingMatchesLibTorchAtItsBoundaries) {
  const at::Tensor x = floats({-1, 0, 0.5, 1, 1.5, 2, 3, kNaN, -kInf, kInf});
  EXPECT_TENSOR_EQ(from(x).histc(4, 0, 2), x.histc(4, 0, 2));          // 2 goes into the last bin
  const at::Tensor finite = floats({-1, 0, 0.5, 1, 1.5, 2, 3});
  EXPECT_TENSOR_EQ(from(finite).histc(3, -1, -1), finite.histc(3, -1, -1));  // min == max: the data's range
  EXPECT_TENSOR_EQ(from(floats({2, 2, 2})).histc(5), floats({2, 2, 2}).histc(5));  // one value: [1, 3]
  EXPECT_TENSOR_EQ(from(floats({})).histc(3), floats({}).histc(3));
  const at::Tensor wide = at::randn({1000}, at::kDouble) * 3;
  EXPECT_TENSOR_EQ(from(wide).histc(17), wide.histc(17));
  EXPECT_TENSOR_EQ(from(wide.to(at::kFloat)).histc(100, -2, 2), wide.to(at::kFloat).histc(100, -2, 2));
  const at::Tensor empty = at::zeros({0}, at::kLong);
  EXPECT_TENSOR_EQ(from(empty).bincount(), empty.bincount());
  EXPECT_TENSOR_EQ(from(empty).bincount({}, 4), empty.bincount({}, 4));
  EXPECT_TENSOR_EQ(from(empty).bincount(from(floats({}))), empty.bincount(floats({})));
  const at::Tensor counted = at::tensor({4, 0, 4, 2}, at::kByte);
  EXPECT_TENSOR_EQ(from(counted).bincount({}, 2), counted.bincount({}, 2));  // minlength below the largest
  const at::Tensor half_weights = floats({0.5, 1, 2, 4}).to(at::kHalf);
  EXPECT_TENSOR_EQ(from(counted).bincount(from(half_weights)), counted.bincount(half_weights));
}

TEST_P(SearchCountTest, MedianMatchesLibTorchAtNaN) {
  const at::Tensor x = floats({1, kNaN, 3, kNaN, 2, 7, 5, 4, -1, 0, kNaN, kNaN}).view({3, 4});
  EXPECT_TENSOR_EQ(from(x).median(), x.median());
  EXPECT_TENSOR_EQ(from(x).nanmedian(), x.nanmedian());
  EXPECT_TENSOR_EQ(from(floats({kNaN, kNaN})).nanmedian(), floats({kNaN, kNaN}).nanmedian());
  for (const int64_t dim : {0, 1}) {
    SCOPED_TRACE(dim);
    const auto [values, indices] = from(x).median(dim);
    const auto [torch_values, torch_indices] = x.median(dim);
    EXPECT_TENSOR_EQ(values, torch_values);
    EXPECT_TENSOR_EQ(indices, torch_indices);
    const auto [nan_values, nan_indices] = from(x).nanmedian(dim, true);
    const auto [torch_nan_values, torch_nan_indices] = x.nanmedian(dim, true);
    EXPECT_TENSOR_EQ(nan_values, torch_nan_values);
    EXPECT_TENSOR_EQ(nan_indices, torch_nan_indices);
  }
  EXPECT_TENSOR_EQ(from(floats({})).median(), floats({}).median());
  EXPECT_TENSOR_EQ(from(at::zeros({0, 3})).median(), at::zeros({0, 3}).median());
}

TEST_P(SearchCountTest, MedianGradientsAreSharedAsLibTorchShares) {
  // Ties share median()'s gradient; NaN does when the median is NaN.
  for (const at::Tensor& t : {floats({1, 2, 2, 3, 2}), floats({1, kNaN, kNaN, 0}), floats({4, kNaN, 4, 1})}) {
    SCOPED_TRACE(::testing::PrintToString(t));
    for (const bool ignore_nan : {false, true}) {
      const at::Tensor u = t.clone().requires_grad_(true);
      const Tensor x = from(t).requires_grad_(true);
      (ignore_nan ? x.nanmedian() : x.median()).backward();
      (ignore_nan ? u.nanmedian() : u.median()).backward();
      EXPECT_TENSOR_EQ(x.grad(), u.grad());
    }
  }
}

TEST_P(SearchCountTest, MedianRefusesWhatLibTorchRefusesAndEmptyIntegers) {
  const at::Tensor m = at::zeros({0, 3}), v = floats({1, 2});
  same([&] { from(m).median(0); }, [&] { m.median(0); }, "median along an empty dim");
  same([&] { from(m).nanmedian(0); }, [&] { m.nanmedian(0); }, "nanmedian along an empty dim");
  same([&] { from(v).median(1); }, [&] { v.median(1); }, "median past the dims");
  same([&] { from(v > 1).median(); }, [&] { (v > 1).median(); }, "median of bools");
  same([&] { from(v > 1).nanmedian(0); }, [&] { (v > 1).nanmedian(0); }, "nanmedian of bools along a dim");
  // LibTorch returns NaN converted to the integer dtype, whatever the host makes of it; ember refuses.
  try {
    from(at::zeros({0}, at::kLong)).median();
    ADD_FAILURE() << "median() of an empty integer tensor did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "median() of an empty Long tensor has no value: it would be NaN, which integers cannot hold");
  }
}

TEST_P(SearchCountTest, SearchesAndCountsHaveNoDerivative) {
  const at::Tensor t = at::rand({5}).requires_grad_(true);
  const Tensor x = from(t.detach()).requires_grad_(true);
  const at::Tensor i = at::tensor({0, 2, 2, 1, 0});
  expect_same_backward_error(from(i).bincount(x), i.bincount(t));
  // histc's result never requires grad, and the searches give integers, which carry no history.
  EXPECT_EQ(x.histc(4).requires_grad(), t.histc(4).requires_grad());
  EXPECT_FALSE(searchsorted(std::get<0>(x.sort()), x).requires_grad());
  EXPECT_FALSE(isin(x, x).requires_grad());
}

INSTANTIATE_TEST_SUITE_P(Backends, SearchCountTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
