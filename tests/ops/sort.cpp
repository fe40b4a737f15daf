// Rows for sorting and selection: sort (stable, both directions), argsort, msort, topk, kthvalue.
#include "tests/op_registry.h"

namespace ember::test {
namespace {

EMBER_OP_ROWS(sort_rows) {
  // Integer inputs in a narrow range tie often: stable sorts must keep the original order.
  return {
      op("sort values", [](const auto& x) { return values_of(x[0].sort(-1)); }).with_dtypes(kAllTypes).grad(),
      op("sort stable descending values", [](const auto& x) { return values_of(x[0].sort(true, 0, true)); })
          .with_dtypes(kAllTypes)
          .grad(),
      op("sort stable indices", [](const auto& x) { return indices_of(x[0].sort(true, -1, false)); })
          .with_dtypes(kAllTypes)
          .in_range(-3, 3),
      op("sort stable descending indices", [](const auto& x) { return indices_of(x[0].sort(true, 0, true)); })
          .with_dtypes(kAllTypes)
          .in_range(-3, 3),
      op("argsort stable", [](const auto& x) { return x[0].argsort(true, -1, true); })
          .with_dtypes(kNumeric)
          .in_range(-3, 3),
      op("msort", [](const auto& x) { return x[0].msort(); }).with_dtypes(kNumeric).grad(),
      op("topk values", [](const auto& x) { return values_of(x[0].topk(1, -1)); }).with_dtypes(kNumeric).grad(),
      op("topk smallest", [](const auto& x) { return values_of(x[0].topk(2, 0, false)); })
          .with_dtypes(kNumeric)
          .with_cases({{{5, 7}}, {{3}}, {{4, 0}}, {{33, 17}}})
          .grad(),
      op("topk indices", [](const auto& x) { return indices_of(x[0].topk(3, -1)); })
          .with_dtypes({DType::Float32, DType::Float64})
          .with_cases({{{5, 7}}, {{3}}, {{257}}}),
      op("kthvalue", [](const auto& x) { return values_of(x[0].kthvalue(1, -1)); })
          .with_dtypes(kNumeric)
          .grad(),
      // Which of several equal values kthvalue reports is PyTorch's quickselect's choice: no ties here.
      op("kthvalue keepdim indices", [](const auto& x) { return indices_of(x[0].kthvalue(2, 0, true)); })
          .with_dtypes({DType::Float32, DType::Float64})
          .without_broadcast_layout()
          .with_cases({{{5, 7}}, {{3}}, {{33, 17}}}),
  };
}

}  // namespace
}  // namespace ember::test
