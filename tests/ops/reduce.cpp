// Rows for the reductions, statistics, norms, scans and softmax.
#include "tests/op_registry.h"

namespace ember::test {
namespace {

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

}  // namespace
}  // namespace ember::test
