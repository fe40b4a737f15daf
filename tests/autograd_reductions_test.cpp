// Gradients of the reductions, scans and softmaxes against LibTorch: every layout, negative, multiple
// and kept dims, 0-dim and empty inputs, ties for the extremes, zeros for the products, and second
// order for the smooth ones.
#include "tests/autograd_oracle.h"

#include <torch/csrc/autograd/function.h>

#include <limits>

#include "runtime/stream.h"
#include "tensor/ops_support.h"

namespace ember::test {
namespace {

class AutogradReductionsTest : public BackendTest {
 protected:
  // One input, differentiated; `second` also compares the second-order terms.
  void check(const at::Tensor& x, const std::string& context, const std::function<Tensor(const Tensor&)>& ember_fn,
             const std::function<at::Tensor(const at::Tensor&)>& torch_fn, bool second = false) {
    GradCase test;
    test.inputs = {x};
    test.context = context;
    const EmberFn e = [&](const std::vector<Tensor>& in) { return ember_fn(in[0]); };
    const TorchFn t = [&](const std::vector<at::Tensor>& in) { return torch_fn(in[0]); };
    expect_grads_match(device, test, e, t);
    if (second) expect_second_order_match(device, test, e, t);
  }
};

at::Tensor uniform(std::vector<int64_t> sizes, uint64_t seed, double low = -2, double high = 2,
                   DType dtype = DType::Float32) {
  return random_torch(std::move(sizes), dtype, seed, low, high);
}

// Small integers as floats: many equal values, so the extremes have ties.
at::Tensor with_ties(std::vector<int64_t> sizes, uint64_t seed) { return uniform(std::move(sizes), seed, -3, 3).round(); }

const double kInf = std::numeric_limits<double>::infinity();

TEST_P(AutogradReductionsTest, SumMeanAndNansum) {
  const at::Tensor x = uniform({33, 17}, 1);
  check(x, "sum()", [](const Tensor& a) { return a.sum(); }, [](const at::Tensor& a) { return a.sum(); }, true);
  check(x, "sum(-1)", [](const Tensor& a) { return a.sum({-1}); }, [](const at::Tensor& a) { return a.sum(-1); });
  check(x, "sum({0,1}, keepdim)", [](const Tensor& a) { return a.sum({1, 0}, true); },
        [](const at::Tensor& a) { return a.sum({1, 0}, true); });
  check(x, "mean()", [](const Tensor& a) { return a.mean(); }, [](const at::Tensor& a) { return a.mean(); }, true);
  check(x, "mean(0, keepdim)", [](const Tensor& a) { return a.mean({0}, true); },
        [](const at::Tensor& a) { return a.mean(0, true); });
  check(uniform({3, 4, 5}, 2), "mean({-1,0})", [](const Tensor& a) { return a.mean({-1, 0}); },
        [](const at::Tensor& a) { return a.mean({-1, 0}); });
  check(uniform({}, 3), "sum 0-dim", [](const Tensor& a) { return a.sum({0}); },
        [](const at::Tensor& a) { return a.sum(0); });
  check(uniform({}, 3), "mean 0-dim", [](const Tensor& a) { return a.mean(); }, [](const at::Tensor& a) { return a.mean(); });
  check(uniform({0, 3}, 4), "sum of empty", [](const Tensor& a) { return a.sum({0}); },
        [](const at::Tensor& a) { return a.sum(0); });
  check(uniform({7}, 5, -2, 2, DType::Float64), "mean float64", [](const Tensor& a) { return a.mean(); },
        [](const at::Tensor& a) { return a.mean(); });
  check(uniform({5, 6}, 6, -2, 2, DType::Float16), "sum float16", [](const Tensor& a) { return a.sum({1}); },
        [](const at::Tensor& a) { return a.sum(1); });
  check(x, "sum(dtype=float64)", [](const Tensor& a) { return a.sum({1}, false, DType::Float64); },
        [](const at::Tensor& a) { return a.sum(1, false, at::kDouble); });
  // Second order through a nonlinear input: d/dx of sum(x^3)'s gradient.
  check(uniform({4, 5}, 7), "mean(x*x*x, 1)", [](const Tensor& a) { return (a * a * a).mean({1}); },
        [](const at::Tensor& a) { return (a * a * a).mean(1); }, true);

  // NaNs get no gradient from nansum; nanmean divides by the count of the others.
  at::Tensor nans = uniform({6, 5}, 8);
  nans.index_put_({0, 1}, NAN);
  nans.index_put_({3, 1}, NAN);
  nans.index_put_({3, 4}, NAN);
  check(nans, "nansum()", [](const Tensor& a) { return a.nansum(); }, [](const at::Tensor& a) { return at::nansum(a); });
  check(nans, "nansum(1, keepdim)", [](const Tensor& a) { return a.nansum({1}, true); },
        [](const at::Tensor& a) { return at::nansum(a, {1}, true); });
  check(nans, "nanmean(-1)", [](const Tensor& a) { return a.nanmean({-1}); },
        [](const at::Tensor& a) { return at::nanmean(a, {-1}); });
  check(nans, "nanmean()", [](const Tensor& a) { return a.nanmean(); }, [](const at::Tensor& a) { return at::nanmean(a); });
}

TEST_P(AutogradReductionsTest, ProdWithAndWithoutZeros) {
  const at::Tensor x = uniform({5, 7}, 11, 0.5, 1.5) * (uniform({5, 7}, 12) > 0).to(at::kFloat).mul(2).sub(1);
  check(x, "prod()", [](const Tensor& a) { return a.prod(); }, [](const at::Tensor& a) { return a.prod(); });
  check(x, "prod(-1)", [](const Tensor& a) { return a.prod(-1); }, [](const at::Tensor& a) { return a.prod(-1); }, true);
  check(x, "prod(0, keepdim)", [](const Tensor& a) { return a.prod(0, true); },
        [](const at::Tensor& a) { return a.prod(0, true); });
  // Row 1 has one zero, row 3 two, row 4 three; column 2 has one zero at row 1 and then two more.
  at::Tensor zeros = x.clone();
  zeros.index_put_({1, 2}, 0);
  zeros.index_put_({3, 0}, 0);
  zeros.index_put_({3, 6}, 0);
  zeros.index_put_({4, 2}, 0);
  zeros.index_put_({4, 3}, 0);
  zeros.index_put_({4, 5}, 0);
  check(zeros, "prod(1) with zeros", [](const Tensor& a) { return a.prod(1); }, [](const at::Tensor& a) { return a.prod(1); });
  check(zeros, "prod(0) with zeros", [](const Tensor& a) { return a.prod(0); }, [](const at::Tensor& a) { return a.prod(0); });
  // Second order is exact for groups with at most one zero.
  check(zeros.slice(0, 0, 3), "prod(1) with one zero a row", [](const Tensor& a) { return a.prod(1); },
        [](const at::Tensor& a) { return a.prod(1); }, true);
  at::Tensor one_zero = x.clone();
  one_zero.index_put_({2, 3}, 0);
  check(one_zero, "prod() with one zero", [](const Tensor& a) { return a.prod(); },
        [](const at::Tensor& a) { return a.prod(); }, true);
  check(zeros, "prod() with zeros", [](const Tensor& a) { return a.prod(); }, [](const at::Tensor& a) { return a.prod(); });
  check(uniform({}, 13), "prod 0-dim", [](const Tensor& a) { return a.prod(0); }, [](const at::Tensor& a) { return a.prod(0); });
  check(uniform({3, 0}, 14), "prod of empty rows", [](const Tensor& a) { return a.prod(1); },
        [](const at::Tensor& a) { return a.prod(1); });
  check(uniform({6}, 15, 0.5, 1.5, DType::Float64), "prod float64", [](const Tensor& a) { return a.prod(); },
        [](const at::Tensor& a) { return a.prod(); });
}

TEST_P(AutogradReductionsTest, ExtremesSplitTiesOrFollowTheIndex) {
  const at::Tensor ties = with_ties({6, 9}, 21);
  check(ties, "max() ties", [](const Tensor& a) { return a.max(); }, [](const at::Tensor& a) { return a.max(); });
  check(ties, "min() ties", [](const Tensor& a) { return a.min(); }, [](const at::Tensor& a) { return a.min(); });
  check(ties, "amax(1) ties", [](const Tensor& a) { return a.amax({1}); }, [](const at::Tensor& a) { return a.amax(1); });
  check(ties, "amin({0,-1}, keepdim) ties", [](const Tensor& a) { return a.amin({0, -1}, true); },
        [](const at::Tensor& a) { return a.amin({0, -1}, true); });
  check(ties, "amax(-2, keepdim) ties", [](const Tensor& a) { return a.amax({-2}, true); },
        [](const at::Tensor& a) { return a.amax(-2, true); });
  check(uniform({}, 22), "max() 0-dim", [](const Tensor& a) { return a.max(); }, [](const at::Tensor& a) { return a.max(); });

  const at::Tensor x = uniform({7, 33}, 23);
  check(x, "max(1)", [](const Tensor& a) { return std::get<0>(a.max(1)); },
        [](const at::Tensor& a) { return std::get<0>(a.max(1)); });
  check(x, "min(-2, keepdim)", [](const Tensor& a) { return std::get<0>(a.min(-2, true)); },
        [](const at::Tensor& a) { return std::get<0>(a.min(-2, true)); });
  check(uniform({2, 3, 4}, 24), "max(1) of 3 dims", [](const Tensor& a) { return std::get<0>(a.max(1)); },
        [](const at::Tensor& a) { return std::get<0>(a.max(1)); });
  check(uniform({}, 25), "min(0) 0-dim", [](const Tensor& a) { return std::get<0>(a.min(0)); },
        [](const at::Tensor& a) { return std::get<0>(a.min(0)); });
  check(uniform({9}, 26, -2, 2, DType::Float64), "max(0) float64", [](const Tensor& a) { return std::get<0>(a.max(0)); },
        [](const at::Tensor& a) { return std::get<0>(a.max(0)); });
  check(uniform({4, 9}, 27, -2, 2, DType::Float16), "amax(1) float16", [](const Tensor& a) { return a.amax({1}); },
        [](const at::Tensor& a) { return a.amax(1); });

  // The indices carry no gradient, and the values' gradient reaches only the indexed element.
  Tensor a = from_torch(x, device).requires_grad_(true);
  auto [values, indices] = a.max(0);
  EXPECT_TRUE(values.requires_grad());
  EXPECT_FALSE(indices.requires_grad());
}

TEST_P(AutogradReductionsTest, VarianceAndStandardDeviation) {
  const at::Tensor x = uniform({9, 8}, 31);
  check(x, "var()", [](const Tensor& a) { return a.var(); }, [](const at::Tensor& a) { return a.var(); }, true);
  check(x, "std()", [](const Tensor& a) { return a.std(); }, [](const at::Tensor& a) { return a.std(); }, true);
  check(x, "var(1, correction 0, keepdim)", [](const Tensor& a) { return a.var({1}, 0, true); },
        [](const at::Tensor& a) { return at::var(a, at::IntArrayRef{1}, c10::optional<int64_t>(0), true); }, true);
  check(x, "std({-1,0}, correction 2)", [](const Tensor& a) { return a.std({-1, 0}, 2); },
        [](const at::Tensor& a) { return at::std(a, at::IntArrayRef{-1, 0}, c10::optional<int64_t>(2), false); });
  check(x, "std(0)", [](const Tensor& a) { return a.std({0}); }, [](const at::Tensor& a) { return a.std(0); }, true);
  // A constant row has std 0, whose gradient PyTorch takes as 0.
  at::Tensor constant_row = x.clone();
  constant_row[2].fill_(0.5);
  check(constant_row, "std(1) with a constant row", [](const Tensor& a) { return a.std({1}); },
        [](const at::Tensor& a) { return a.std(1); });
  check(uniform({11}, 32, -2, 2, DType::Float64), "var float64", [](const Tensor& a) { return a.var({0}); },
        [](const at::Tensor& a) { return a.var(0); }, true);
  check(uniform({4, 6}, 33, -2, 2, DType::Float16), "std float16", [](const Tensor& a) { return a.std({1}); },
        [](const at::Tensor& a) { return a.std(1); });
}

TEST_P(AutogradReductionsTest, Norms) {
  at::Tensor x = uniform({6, 7}, 41);
  x[3].zero_();  // a zero row: subgradient 0
  for (double p : {2.0, 1.0, kInf, -kInf, 3.0}) {
    const std::string name = "norm(" + std::to_string(p) + ", 1)";
    check(x, name, [p](const Tensor& a) { return a.norm(p, {1}); }, [p](const at::Tensor& a) { return at::norm(a, p, {1}); });
  }
  const at::Tensor nonzero = uniform({5, 4}, 42, 0.5, 2);
  check(nonzero, "norm(0.5, -1, keepdim)", [](const Tensor& a) { return a.norm(0.5, {-1}, true); },
        [](const at::Tensor& a) { return at::norm(a, 0.5, {-1}, true); });
  check(nonzero, "norm(0, 1)", [](const Tensor& a) { return a.norm(0, {1}); },
        [](const at::Tensor& a) { return at::norm(a, 0, {1}); });
  check(x, "norm()", [](const Tensor& a) { return a.norm(); }, [](const at::Tensor& a) { return a.norm(); }, true);
  check(uniform({5, 6}, 43), "norm(2, 0)", [](const Tensor& a) { return a.norm(2, {0}); },
        [](const at::Tensor& a) { return at::norm(a, 2, {0}); }, true);
  check(uniform({5, 6}, 44), "norm(3, {0,1})", [](const Tensor& a) { return a.norm(3, {0, 1}); },
        [](const at::Tensor& a) { return at::norm(a, 3, at::IntArrayRef{0, 1}); }, true);
  check(uniform({6, 3}, 45), "norm(1, 0, keepdim)", [](const Tensor& a) { return a.norm(1, {0}, true); },
        [](const at::Tensor& a) { return at::norm(a, 1, {0}, true); });
  check(with_ties({4, 8}, 46), "norm(inf) ties", [](const Tensor& a) { return a.norm(kInf); },
        [](const at::Tensor& a) { return a.norm(kInf); });
  check(uniform({9}, 47, -2, 2, DType::Float64), "norm float64", [](const Tensor& a) { return a.norm(); },
        [](const at::Tensor& a) { return a.norm(); }, true);
  check(uniform({4, 5}, 48, -2, 2, DType::Float16), "norm float16", [](const Tensor& a) { return a.norm(2, {1}); },
        [](const at::Tensor& a) { return at::norm(a, 2, {1}); });
  check(uniform({}, 49), "norm 0-dim", [](const Tensor& a) { return a.norm(); }, [](const at::Tensor& a) { return a.norm(); });
}

TEST_P(AutogradReductionsTest, LogSumExp) {
  const at::Tensor x = uniform({7, 9}, 51, -4, 4);
  check(x, "logsumexp(1)", [](const Tensor& a) { return a.logsumexp({1}); },
        [](const at::Tensor& a) { return a.logsumexp(1); }, true);
  check(x, "logsumexp({0,-1}, keepdim)", [](const Tensor& a) { return a.logsumexp({0, -1}, true); },
        [](const at::Tensor& a) { return a.logsumexp(at::IntArrayRef{0, -1}, true); }, true);
  check(uniform({3, 4, 5}, 52, -2, 2, DType::Float64), "logsumexp float64", [](const Tensor& a) { return a.logsumexp({-2}); },
        [](const at::Tensor& a) { return a.logsumexp(-2); });
  check(uniform({}, 53), "logsumexp 0-dim", [](const Tensor& a) { return a.logsumexp({0}); },
        [](const at::Tensor& a) { return a.logsumexp(0); });
}

TEST_P(AutogradReductionsTest, CumsumAndCumprod) {
  const at::Tensor x = uniform({6, 9}, 61);
  check(x, "cumsum(1)", [](const Tensor& a) { return a.cumsum(1); }, [](const at::Tensor& a) { return a.cumsum(1); });
  check(x, "cumsum(-2)", [](const Tensor& a) { return a.cumsum(-2); }, [](const at::Tensor& a) { return a.cumsum(-2); });
  check(x, "cumsum(0, float64)", [](const Tensor& a) { return a.cumsum(0, DType::Float64); },
        [](const at::Tensor& a) { return a.cumsum(0, at::kDouble); });
  check(uniform({}, 62), "cumsum 0-dim", [](const Tensor& a) { return a.cumsum(0); },
        [](const at::Tensor& a) { return a.cumsum(0); });
  check(uniform({0, 4}, 63), "cumsum empty", [](const Tensor& a) { return a.cumsum(0); },
        [](const at::Tensor& a) { return a.cumsum(0); });
  check(uniform({33}, 64, -2, 2, DType::Float64), "cumsum float64", [](const Tensor& a) { return a.cumsum(0); },
        [](const at::Tensor& a) { return a.cumsum(0); });

  const at::Tensor y = uniform({5, 7}, 65, 0.5, 1.5) * (uniform({5, 7}, 66) > 0).to(at::kFloat).mul(2).sub(1);
  check(y, "cumprod(1)", [](const Tensor& a) { return a.cumprod(1); }, [](const at::Tensor& a) { return a.cumprod(1); }, true);
  check(y, "cumprod(-2)", [](const Tensor& a) { return a.cumprod(-2); }, [](const at::Tensor& a) { return a.cumprod(-2); });
  // Zeros: row 0 first, row 1 last, row 2 in the middle, row 3 two zeros, row 4 none.
  at::Tensor zeros = y.clone();
  zeros.index_put_({0, 0}, 0);
  zeros.index_put_({1, 6}, 0);
  zeros.index_put_({2, 3}, 0);
  zeros.index_put_({3, 1}, 0);
  zeros.index_put_({3, 4}, 0);
  check(zeros, "cumprod(1) with zeros", [](const Tensor& a) { return a.cumprod(1); },
        [](const at::Tensor& a) { return a.cumprod(1); });
  // Second order is exact for rows with at most one zero.
  check(zeros.slice(0, 0, 3), "cumprod(1) with one zero a row", [](const Tensor& a) { return a.cumprod(1); },
        [](const at::Tensor& a) { return a.cumprod(1); }, true);
  check(zeros, "cumprod(0) with zeros", [](const Tensor& a) { return a.cumprod(0); },
        [](const at::Tensor& a) { return a.cumprod(0); });
  check(uniform({}, 67), "cumprod 0-dim", [](const Tensor& a) { return a.cumprod(0); },
        [](const at::Tensor& a) { return a.cumprod(0); });
  check(uniform({8}, 68, 0.5, 1.5, DType::Float64), "cumprod float64", [](const Tensor& a) { return a.cumprod(0); },
        [](const at::Tensor& a) { return a.cumprod(0); });
}

TEST_P(AutogradReductionsTest, SoftmaxAndLogSoftmax) {
  const at::Tensor x = uniform({7, 33}, 71, -4, 4);
  check(x, "softmax(1)", [](const Tensor& a) { return a.softmax(1); }, [](const at::Tensor& a) { return a.softmax(1); }, true);
  check(x, "softmax(0)", [](const Tensor& a) { return a.softmax(0); }, [](const at::Tensor& a) { return a.softmax(0); });
  check(x, "log_softmax(-1)", [](const Tensor& a) { return a.log_softmax(-1); },
        [](const at::Tensor& a) { return a.log_softmax(-1); }, true);
  check(uniform({2, 3, 4}, 72), "log_softmax(1)", [](const Tensor& a) { return a.log_softmax(1); },
        [](const at::Tensor& a) { return a.log_softmax(1); }, true);
  check(x, "softmax(1, float64)", [](const Tensor& a) { return a.softmax(1, DType::Float64); },
        [](const at::Tensor& a) { return a.softmax(1, at::kDouble); });
  check(uniform({5, 6}, 73, -2, 2, DType::Float64), "softmax float64", [](const Tensor& a) { return a.softmax(0); },
        [](const at::Tensor& a) { return a.softmax(0); }, true);
  // LibTorch's CPU softmax takes no float16; ember computes float16 in float32 and rounds once, so the
  // oracle does the same.
  check(uniform({4, 9}, 74, -2, 2, DType::Float16), "softmax float16", [](const Tensor& a) { return a.softmax(1); },
        [](const at::Tensor& a) { return a.to(at::kFloat).softmax(1).to(at::kHalf); });
  check(uniform({4, 9}, 75, -2, 2, DType::Float16), "log_softmax float16", [](const Tensor& a) { return a.log_softmax(1); },
        [](const at::Tensor& a) { return a.to(at::kFloat).log_softmax(1).to(at::kHalf); });
  check(uniform({}, 76), "softmax 0-dim", [](const Tensor& a) { return a.softmax(0); },
        [](const at::Tensor& a) { return a.softmax(0); });
  check(uniform({0, 5}, 77), "log_softmax empty", [](const Tensor& a) { return a.log_softmax(1); },
        [](const at::Tensor& a) { return a.log_softmax(1); });
}

TEST_P(AutogradReductionsTest, NodeNamesMatchLibTorch) {
  const at::Tensor values = uniform({3, 4}, 81, 0.5, 2);
  Tensor x = from_torch(values, device).requires_grad_(true);
  at::Tensor t = values.clone().requires_grad_(true);
  const std::vector<std::pair<Tensor, at::Tensor>> cases = {
      {x.sum(), t.sum()},
      {x.sum({1}), t.sum(1)},
      {x.nansum(), at::nansum(t)},
      {x.nanmean({1}), at::nanmean(t, {1})},
      {x.mean(), t.mean()},
      {x.mean({0}), t.mean(0)},
      {x.prod(), t.prod()},
      {x.prod(1), t.prod(1)},
      {x.max(), t.max()},
      {x.min(), t.min()},
      {std::get<0>(x.max(1)), std::get<0>(t.max(1))},
      {std::get<0>(x.min(0)), std::get<0>(t.min(0))},
      {x.amax({1}), t.amax(1)},
      {x.amin(), t.amin()},
      {x.var({1}), t.var(1)},
      {x.std(), t.std()},
      {x.norm(), t.norm()},
      {x.norm(1, {1}), at::norm(t, 1, {1})},
      {x.logsumexp({1}), t.logsumexp(1)},
      {x.cumsum(1), t.cumsum(1)},
      {x.cumprod(0), t.cumprod(0)},
      {x.softmax(1), t.softmax(1)},
      {x.log_softmax(0), t.log_softmax(0)},
  };
  for (const auto& [ours, theirs] : cases) {
    ASSERT_TRUE(ours.grad_fn());
    EXPECT_EQ(ours.grad_fn()->name(), theirs.grad_fn()->name());
  }
}

TEST_P(AutogradReductionsTest, BackwardDoesNotWaitOnTheHost) {
  Tensor x = from_torch(uniform({5, 6}, 91), device).requires_grad_(true);
  const Tensor out = std::get<0>(x.max(1)).sum() + x.amax({0}).sum() + x.prod(1).sum() + x.cumprod(1).sum() +
                     x.norm(kInf, {1}).sum() + x.std({1}).sum() + x.softmax(0).sum();
  const auto stream = detail::stream_for(*device);
  const uint64_t waits = stream->stats().host_waits;
  out.backward();
  EXPECT_EQ(stream->stats().host_waits, waits);
  EXPECT_TRUE(x.grad().defined());
}

INSTANTIATE_TEST_SUITE_P(Backends, AutogradReductionsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
