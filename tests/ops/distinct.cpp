// Rows for distinct values, modes and quantiles: unique (of elements and of slices), unique_consecutive,
// mode, quantile and nanquantile. Integers come from a narrow range and floats are rounded to halves, so
// that equal values, runs and ties are common.
#include "tests/op_registry.h"

namespace ember::test {
namespace {

// Few distinct values in any dtype: integers as drawn (in_range), floats rounded to halves.
template <class T>
T tied(const T& x) {
  return x.is_floating_point() ? (x * 2).round() / 2 : x;
}

// torch.unique's LibTorch spellings: _unique2 for the elements, unique_dim for slices.
std::tuple<Tensor, Tensor, Tensor> unique_of(const Tensor& x, std::optional<int64_t> dim = std::nullopt) {
  return x.unique(true, true, true, dim);
}
std::tuple<at::Tensor, at::Tensor, at::Tensor> unique_of(const at::Tensor& x,
                                                         std::optional<int64_t> dim = std::nullopt) {
  return dim ? at::unique_dim(x, *dim, true, true, true) : at::_unique2(x, true, true, true);
}

// unique's dtypes (PyTorch has no half kernel for it).
const std::vector<DType> kUniqueDTypes = {DType::Float32, DType::BFloat16, DType::Float64, DType::UInt8, DType::Int8,
                                          DType::Int16,   DType::Int32,    DType::Int64,   DType::Bool};
// 0-dim, one element, empty, and inputs long enough to sort in several tiles (4096 elements a tile).
const std::vector<Shapes> kElementCases = {{{5, 7}}, {{}}, {{1}}, {{0}}, {{0, 3}}, {{2, 3, 4}}, {{9000}}};
// Slices along dim 0, 1 or -1 of these: one empty dim is allowed where it is the one chosen.
const std::vector<Shapes> kSliceCases = {{{6, 3}}, {{5, 2, 3}}, {{1, 4}}, {{0, 3}}, {{40, 2}}};
const std::vector<Shapes> kModeCases = {{{5, 7}}, {{6, 16}}, {{}}, {{1}}, {{0, 3}}};
// quantile's node is that of PyTorch's last step, an in-place squeeze_(dim): SqueezeBackward3 in LibTorch
// 1.13, SqueezeBackward4 in ember's numbering, which is PyTorch 2's (see shape.cpp).
const char* kQuantileNode = "SqueezeBackward4";
const std::vector<Shapes> kQuantileCases = {{{5, 7}, {4}}, {{6, 4}, {}}, {{1}, {3}}, {{}, {2}}, {{33, 17}, {0}}};

EMBER_OP_ROWS(distinct_rows) {
  return {
      op("unique", [](const auto& x) { return std::get<0>(unique_of(tied(x[0]))); })
          .with_dtypes(kUniqueDTypes)
          .in_range(-3, 3)
          .with_cases(kElementCases),
      op("unique inverse", [](const auto& x) { return std::get<1>(unique_of(tied(x[0]))); })
          .with_dtypes({DType::Float32, DType::Int64, DType::Bool})
          .in_range(-3, 3)
          .with_cases(kElementCases),
      op("unique counts", [](const auto& x) { return std::get<2>(unique_of(tied(x[0]))); })
          .with_dtypes({DType::Float64, DType::Int16, DType::Bool})
          .in_range(-3, 3)
          .with_cases(kElementCases),
      op("unique along dim 0", [](const auto& x) { return std::get<0>(unique_of(tied(x[0]), 0)); })
          .with_dtypes(kUniqueDTypes)
          .in_range(-1, 1)
          .with_cases(kSliceCases),
      op("unique along dim 1 inverse", [](const auto& x) { return std::get<1>(unique_of(tied(x[0]), 1)); })
          .with_dtypes({DType::Float32, DType::Int32})
          .in_range(-1, 1)
          .with_cases({{{3, 6}}, {{2, 5, 3}}, {{4, 1}}, {{3, 0}}}),
      op("unique along the last dim counts", [](const auto& x) { return std::get<2>(unique_of(tied(x[0]), -1)); })
          .with_dtypes({DType::Float64, DType::UInt8})
          .in_range(-1, 1)
          .with_cases({{{3, 6}}, {{2, 3, 7}}, {{40}}}),
      op("unique consecutive", [](const auto& x) { return std::get<0>(unique_consecutive(tied(x[0]), true, true, {})); })
          .with_dtypes(kUniqueDTypes)
          .in_range(-1, 1)
          .with_cases(kElementCases),
      op("unique consecutive inverse",
         [](const auto& x) { return std::get<1>(unique_consecutive(tied(x[0]), true, true, {})); })
          .with_dtypes({DType::Float32, DType::Int8})
          .in_range(-1, 1)
          .with_cases(kElementCases),
      op("unique consecutive counts",
         [](const auto& x) { return std::get<2>(unique_consecutive(tied(x[0]), true, true, {})); })
          .with_dtypes({DType::BFloat16, DType::Int64})
          .in_range(-1, 1)
          .with_cases(kElementCases),
      op("unique consecutive along dim 0",
         [](const auto& x) { return std::get<0>(unique_consecutive(tied(x[0]), true, true, 0)); })
          .with_dtypes({DType::Float32, DType::Int64, DType::Bool})
          .in_range(0, 1)
          .with_cases(kSliceCases),
      op("unique consecutive along dim 1 counts",
         [](const auto& x) { return std::get<2>(unique_consecutive(tied(x[0]), true, true, 1)); })
          .with_dtypes({DType::Float64, DType::Int32})
          .in_range(0, 1)
          .with_cases({{{3, 6}}, {{2, 5, 3}}, {{3, 0}}, {{7}}}),
      // PyTorch's CPU reports the last occurrence only for slices of up to 16 (its sort is stable there);
      // longer slices compare the values.
      op("mode", [](const auto& x) { return values_of(tied(x[0]).mode()); })
          .with_dtypes(kAllTypes)
          .in_range(-3, 3)
          .with_cases({{{5, 7}}, {{6, 40}}, {{}}, {{1}}, {{0, 3}}}),
      op("mode indices", [](const auto& x) { return indices_of(tied(x[0]).mode(0, true)); })
          .with_dtypes({DType::Float32, DType::Int64, DType::Bool})
          .in_range(-2, 2)
          .with_cases({{{7, 5}}, {{16, 3}}, {{}}, {{1}}, {{4}}}),
      op("mode gradient", [](const auto& x) { return values_of(x[0].mode(-1, true)); }).with_cases(kModeCases).grad2(),
      op("quantile", 2, [](const auto& x) { return x[0].quantile(x[1]); })
          .in_ranges({{-3, 3}, {0, 1}})
          .with_cases(kQuantileCases)
          .grad()
          .recorded_as(kQuantileNode),
      op("quantile of a number along dim 0", [](const auto& x) { return x[0].quantile(0.3, 0, true); })
          .with_cases({{{5, 7}}, {{1}}, {{}}, {{33, 17}}})
          .grad()
          .recorded_as(kQuantileNode),
      op("quantile lower", 2, [](const auto& x) { return x[0].quantile(x[1], -1, false, "lower"); })
          .in_ranges({{-3, 3}, {0, 1}})
          .with_cases(kQuantileCases)
          .constant_inputs({1})  // q only picks ranks: nothing of it reaches the result
          .grad()
          .recorded_as(kQuantileNode),
      op("quantile higher", 2, [](const auto& x) { return x[0].quantile(x[1], 0, false, "higher"); })
          .in_ranges({{-3, 3}, {0, 1}})
          .with_cases(kQuantileCases),
      op("quantile midpoint", 2, [](const auto& x) { return x[0].quantile(x[1], {}, true, "midpoint"); })
          .in_ranges({{-3, 3}, {0, 1}})
          .with_cases(kQuantileCases)
          .constant_inputs({1})  // q only picks ranks: nothing of it reaches the result
          .grad()
          .recorded_as(kQuantileNode),
      // Ranks at halves, where nearest rounds half to even.
      op("quantile nearest", [](const auto& x) { return x[0].quantile(0.5, -1, false, "nearest"); })
          .with_cases({{{3, 4}}, {{5, 2}}, {{2, 6}}, {{1}}}),
      op("nanquantile", 2, [](const auto& x) { return x[0].nanquantile(x[1], 0); })
          .in_ranges({{-3, 3}, {0, 1}})
          .with_cases(kQuantileCases)
          .grad()
          .recorded_as(kQuantileNode),
  };
}

}  // namespace
}  // namespace ember::test
