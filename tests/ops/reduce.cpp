// Rows for the reductions, statistics, norms, scans and softmax.
#include "tests/op_registry.h"

namespace ember::test {
namespace {

// var_mean and std_mean take a correction in ember and an unbiased flag in LibTorch 1.13's C++ API. Ember's
// empty dims reduce everything, as LibTorch's nullopt: LibTorch 1.13's gradient for an empty list divides
// by 1 - correction instead of N - correction.
at::OptionalIntArrayRef all_or(at::IntArrayRef dims) {
  return dims.empty() ? at::OptionalIntArrayRef() : at::OptionalIntArrayRef(dims);
}
std::tuple<Tensor, Tensor> var_mean_of(const Tensor& x, IntArrayRef dims, int64_t correction, bool keepdim) {
  return var_mean(x, dims, correction, keepdim);
}
std::tuple<at::Tensor, at::Tensor> var_mean_of(const at::Tensor& x, at::IntArrayRef dims, int64_t correction,
                                               bool keepdim) {
  return at::var_mean(x, all_or(dims), c10::optional<int64_t>(correction), keepdim);
}
std::tuple<Tensor, Tensor> std_mean_of(const Tensor& x, IntArrayRef dims, int64_t correction, bool keepdim) {
  return std_mean(x, dims, correction, keepdim);
}
std::tuple<at::Tensor, at::Tensor> std_mean_of(const at::Tensor& x, at::IntArrayRef dims, int64_t correction,
                                               bool keepdim) {
  return at::std_mean(x, all_or(dims), c10::optional<int64_t>(correction), keepdim);
}
// Both results in one tensor, so that a gradient goes through each.
template <class T>
T var_mean_sum(const T& x, std::vector<int64_t> dims, int64_t correction, bool keepdim) {
  auto [spread, mean] = var_mean_of(x, dims, correction, keepdim);
  return spread + mean;
}
template <class T>
T std_mean_sum(const T& x, std::vector<int64_t> dims, int64_t correction, bool keepdim) {
  auto [spread, mean] = std_mean_of(x, dims, correction, keepdim);
  return spread * 2 + mean;
}

const std::vector<DType> kNumericAndBool = [] {
  std::vector<DType> all = kNumeric;
  all.push_back(DType::Bool);
  return all;
}();

EMBER_OP_ROWS(sum_and_mean_rows) {
  return {
      op("sum", [](const auto& x) { return x[0].sum(); }).with_dtypes(kNumericAndBool).grad2(),
      op("sum dim", [](const auto& x) { return x[0].sum({-1}); }).with_dtypes(kNumericAndBool).grad(),
      op("sum dim keepdim", [](const auto& x) { return x[0].sum({0}, true); }).with_dtypes(kNumeric).grad(),
      op("nansum", [](const auto& x) { return x[0].log().nansum(); }).with_dtypes(kFloating),
      op("mean", [](const auto& x) { return x[0].mean(); }).with_dtypes(kFloating).grad2(),
      op("mean dim", [](const auto& x) { return x[0].mean({-1}, true); }).with_dtypes(kFloating).grad(),
      op("nanmean", [](const auto& x) { return x[0].log().nanmean({-1}); }).with_dtypes(kFloating),
      op("prod", [](const auto& x) { return x[0].prod(); }).with_dtypes(kNumericAndBool).in_range(-2, 2).grad(),
      op("prod dim", [](const auto& x) { return x[0].prod(-1); }).with_dtypes(kNumeric).in_range(-2, 2).grad(),
      op("count_nonzero", [](const auto& x) { return x[0].count_nonzero(); }).with_dtypes(kNumericAndBool),
      op("all", [](const auto& x) { return x[0].all(); }).with_dtypes(kNumericAndBool),
      op("any dim", [](const auto& x) { return x[0].any(-1); }).with_dtypes(kNumericAndBool),
  };
}

EMBER_OP_ROWS(extreme_rows) {
  return {
      op("max", [](const auto& x) { return x[0].max(); }).with_dtypes(kNumeric).grad(),
      op("max dim values", [](const auto& x) { return values_of(x[0].max(-1)); }).with_dtypes(kNumeric).grad(),
      op("max dim indices", [](const auto& x) { return indices_of(x[0].max(-1, true)); }).with_dtypes(kNumeric),
      op("min dim values", [](const auto& x) { return values_of(x[0].min(0)); }).with_dtypes(kNumeric).grad(),
      op("min", [](const auto& x) { return x[0].min(); }).with_dtypes(kNumeric).grad(),
      op("amax", [](const auto& x) { return x[0].amax({-1}); }).with_dtypes(kNumeric).grad(),
      op("amin", [](const auto& x) { return x[0].amin(); }).with_dtypes(kNumeric).grad(),
      op("argmax", [](const auto& x) { return x[0].argmax(); }).with_dtypes(kNumeric),
      op("argmin dim", [](const auto& x) { return x[0].argmin(-1); }).with_dtypes(kNumeric),
  };
}

EMBER_OP_ROWS(statistics_rows) {
  return {
      // One element divides by zero: LibTorch's gradient is inf for 0-dim and fails for [1] (1.13).
      op("var", [](const auto& x) { return x[0].var(); })
          .with_dtypes(kFloating)
          .with_cases({{{0}}, {{7}}, {{257}}, {{5, 3}}, {{2, 3, 65}}, {{33, 17}}})
          .grad2(),
      op("std dim", [](const auto& x) { return x[0].std({-1}, 0, true); }).with_dtypes(kFloating).grad(),
      op("norm", [](const auto& x) { return x[0].norm(); }).with_dtypes(kFloating).grad2(),
      op("norm 1 dim", [](const auto& x) { return x[0].norm(1, {-1}); }).with_dtypes(kFloating).grad(),
      op("norm inf", [](const auto& x) { return x[0].norm(INFINITY); }).with_dtypes(kFloating).grad(),
      op("norm 3", [](const auto& x) { return x[0].norm(3, {-1}, true); }).with_dtypes(kFloating).grad(),
      op("logsumexp", [](const auto& x) { return x[0].logsumexp({-1}); }).with_dtypes(kFloating).grad2(),
      op("softmax", [](const auto& x) { return x[0].softmax(-1); }).with_dtypes(kFloating).grad2(),
      op("log_softmax", [](const auto& x) { return x[0].log_softmax(0); }).with_dtypes(kFloating).grad(),
  };
}

EMBER_OP_ROWS(scan_rows) {
  return {
      op("cumsum", [](const auto& x) { return x[0].cumsum(-1); }).with_dtypes(kNumericAndBool).grad2(),
      op("cumprod", [](const auto& x) { return x[0].cumprod(0); }).with_dtypes(kNumeric).in_range(-2, 2).grad(),
      op("cummax values", [](const auto& x) { return values_of(x[0].cummax(-1)); }).with_dtypes(kNumeric).grad(),
      op("cummax indices", [](const auto& x) { return indices_of(x[0].cummax(0)); }).with_dtypes(kNumeric),
      op("cummin values", [](const auto& x) { return values_of(x[0].cummin(0)); }).with_dtypes(kNumeric).grad(),
      op("cummin indices", [](const auto& x) { return indices_of(x[0].cummin(-1)); }).with_dtypes(kNumeric),
      op("logcumsumexp", [](const auto& x) { return x[0].logcumsumexp(-1); }).with_dtypes(kFloating).grad(),
  };
}


// Reductions in pairs: one call gives two results, compared one at a time or summed for the gradients.
// Where a dim reduces one element, var's divisor N - 1 is 0: LibTorch 1.13 gives a 0-dim input the
// gradient inf (its own branch), and the mean's gradient alone where ember's node also gets the
// variance's zero gradient times inf (NaN); those shapes are left to the sum of both results.
EMBER_OP_ROWS(reduction_pair_rows) {
  const std::vector<Shapes> several_per_dim = {{{5, 7}}, {{2, 3, 4}}, {{0, 3}}, {{33, 17}}};
  return {
      op("var_mean", [](const auto& x) { return var_mean_sum(x[0], {-1}, 1, false); })
          .with_dtypes(kFloating)
          .with_cases(several_per_dim)
          .grad2(),
      op("var_mean all", [](const auto& x) { return var_mean_sum(x[0], {}, 0, false); }).with_dtypes(kNumeric).grad(),
      op("var_mean var", [](const auto& x) { return std::get<0>(var_mean_of(x[0], {0}, 1, true)); })
          .with_cases(several_per_dim)
          .grad(),
      op("var_mean mean", [](const auto& x) { return std::get<1>(var_mean_of(x[0], {0}, 1, true)); })
          .with_cases(several_per_dim)
          .grad(),
      op("std_mean", [](const auto& x) { return std_mean_sum(x[0], {0}, 1, true); }).with_dtypes(kFloating).grad2(),
      op("std_mean all", [](const auto& x) { return std_mean_sum(x[0], {}, 1, false); }).with_dtypes(kNumeric).grad(),
      op("std_mean std", [](const auto& x) { return std::get<0>(std_mean_of(x[0], {-1}, 0, false)); }).grad(),
      op("aminmax min", [](const auto& x) { return std::get<0>(x[0].aminmax()); }).with_dtypes(kAllTypes),
      op("aminmax max", [](const auto& x) { return std::get<1>(x[0].aminmax()); }).with_dtypes(kAllTypes),
      op("aminmax dim min", [](const auto& x) { return std::get<0>(x[0].aminmax(-1)); }).with_dtypes(kAllTypes),
      op("aminmax dim max keepdim", [](const auto& x) { return std::get<1>(x[0].aminmax(0, true)); })
          .with_dtypes(kAllTypes),
  };
}

}  // namespace
}  // namespace ember::test
