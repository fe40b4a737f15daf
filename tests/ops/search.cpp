// Rows for searching and counting: searchsorted, bucketize, isin, bincount, histc, and median and
// nanmedian (a sorted selection). Integer inputs in a narrow range tie often, which is where "left" and
// "right" searches differ.
#include "tests/op_registry.h"

namespace ember::test {
namespace {

// Searched sequences, values and counted inputs: N-D sequences with the values' leading dims, 1-D ones
// with values of any shape (0-dim too), and empty ones.
const std::vector<Shapes> kSearchCases = {{{4, 6}, {4, 5}},    {{7}, {3, 5}}, {{0}, {4}},    {{5}, {}},
                                          {{3, 0}, {3, 2}},    {{1}, {9}},    {{2, 3, 33}, {2, 3, 4}},
                                          {{6}, {2, 0}}};
const std::vector<Shapes> kBucketCases = {{{3, 5}, {7}}, {{4}, {1}}, {{}, {6}}, {{9}, {0}}, {{2, 0}, {4}}};

// Even and odd lengths, one element, 0-dim, and (along a dim) no slices of a non-empty dim. The median
// of no elements is NaN, which integers cannot hold: SearchCountTest compares it in floats.
const std::vector<Shapes> kMedianCases = {{{5, 7}}, {{6, 4}}, {{1}}, {{}}, {{33, 17}}};
const std::vector<Shapes> kMedianAlongCases = {{{5, 7}}, {{6, 4}}, {{1}}, {{}}, {{33, 17}}, {{0, 3}}};

template <class T>
T sorted(const T& x) { return values_of(x.sort(-1)); }

EMBER_OP_ROWS(search_rows) {
  return {
      op("searchsorted", 2, [](const auto& x) { return searchsorted(sorted(x[0]), x[1]); })
          .with_dtypes(kNumeric)
          .with_cases(kSearchCases),
      op("searchsorted of ties", 2, [](const auto& x) { return searchsorted(sorted(x[0]), x[1]); })
          .with_dtypes(kIntegral)
          .in_range(-3, 3)
          .with_cases(kSearchCases),
      op("searchsorted right int32", 2, [](const auto& x) { return searchsorted(sorted(x[0]), x[1], true, true); })
          .with_dtypes({DType::Int64, DType::Int16})
          .in_range(-3, 3)
          .with_cases(kSearchCases),
      op("searchsorted side right", 2,
         [](const auto& x) { return searchsorted(sorted(x[0]), x[1], false, false, "right"); })
          .with_dtypes({DType::Int32, DType::Float32})
          .in_range(-3, 3)
          .with_cases(kSearchCases),
      // The sorter's order of equal elements is argsort's choice; the sorted values, and so the result,
      // are the same whichever it is.
      op("searchsorted with sorter", 2,
         [](const auto& x) { return searchsorted(x[0], x[1], false, true, {}, x[0].argsort(-1, false)); })
          .with_dtypes({DType::Int8, DType::Float64})
          .in_range(-3, 3)
          .with_cases(kSearchCases),
      op("searchsorted promoting", 2, [](const auto& x) { return searchsorted(sorted(x[0]), x[1]); })
          .with_mixed({{DType::Int64, DType::Float32}, {DType::Float16, DType::Float64}, {DType::UInt8, DType::Int8}})
          .in_range(-3, 3)
          .with_cases(kSearchCases),
      op("searchsorted of a number", 1, [](const auto& x) { return searchsorted(sorted(x[0]), 1.5); })
          .with_dtypes({DType::Float32, DType::Int64})
          .in_range(-3, 3)
          .with_cases({{{7}}, {{0}}, {{1}}}),
      op("bucketize", 2, [](const auto& x) { return bucketize(x[0], sorted(x[1])); })
          .with_dtypes(kNumeric)
          .in_range(-3, 3)
          .with_cases(kBucketCases),
      op("bucketize right int32", 2, [](const auto& x) { return bucketize(x[0], sorted(x[1]), true, true); })
          .with_dtypes({DType::Int32, DType::Float64})
          .in_range(-3, 3)
          .with_cases(kBucketCases),
      op("bucketize a number", 1, [](const auto& x) { return bucketize(2, sorted(x[0])); })
          .with_dtypes({DType::Int64, DType::Float32})
          .in_range(-3, 3)
          .with_cases({{{7}}, {{0}}}),
      // bool and bfloat16 are refused, as in PyTorch (SearchCountTest). LibTorch 1.13's isin fails on an
      // expanded test tensor of two dims or more (it views it flat), where ember's works: no broadcast layout.
      op("isin", 2, [](const auto& x) { return isin(x[0], x[1]); })
          .with_dtypes({DType::Float32, DType::Float16, DType::Float64, DType::UInt8, DType::Int8, DType::Int16,
                        DType::Int32, DType::Int64})
          .in_range(-3, 3)
          .with_cases({{{4, 5}, {3}}, {{6}, {2, 2}}, {{}, {5}}, {{3}, {}}, {{0}, {3}}, {{3, 2}, {0}}})
          .without_broadcast_layout(),
      op("isin inverted", 2, [](const auto& x) { return isin(x[0], x[1], false, true); })
          .with_dtypes({DType::Int64, DType::Float32})
          .in_range(-3, 3)
          .with_cases({{{4, 5}, {3}}, {{3, 2}, {0}}}),
      op("isin promoting", 2, [](const auto& x) { return isin(x[0], x[1]); })
          .with_mixed({{DType::Int64, DType::Float32}, {DType::Float64, DType::Int16}, {DType::UInt8, DType::Int8}})
          .in_range(-3, 3)
          .with_cases({{{4, 5}, {3}}, {{7}, {2, 3}}})
          .without_broadcast_layout(),
      op("isin of numbers", 1, [](const auto& x) { return isin(x[0], 2) ^ isin(1, x[0]); })
          .with_dtypes({DType::Int32, DType::Float64})
          .in_range(-3, 3)
          .with_cases({{{4, 5}}, {{}}, {{0}}}),
      op("bincount", [](const auto& x) { return x[0].bincount(); })
          .with_dtypes(kIntegral)
          .in_range(0, 9)
          .with_cases({{{30}}, {{1}}, {{0}}}),
      op("bincount weighted", 2, [](const auto& x) { return x[0].bincount(x[1], 12); })
          .with_mixed({{DType::Int64, DType::Float32},
                       {DType::UInt8, DType::Float64},
                       {DType::Int16, DType::Int32},
                       {DType::Int32, DType::Float16}})
          .in_ranges({{0, 9}, {-2, 2}})
          .with_cases({{{30}, {30}}, {{0}, {0}}, {{1}, {1}}}),
      op("histc", [](const auto& x) { return x[0].histc(10); })
          .with_dtypes(kFloating)
          .with_cases({{{40}}, {{3, 5}}, {{1}}, {{}}, {{0}}}),
      op("histc over a range", [](const auto& x) { return x[0].histc(7, -2.5, 3); })
          .with_dtypes({DType::Float32, DType::Float64})
          .with_cases({{{40}}, {{6, 7}}, {{0}}}),
      // Gradients only in float32 and float64: in narrower floats equal values are likely, and which of
      // them a dim's median reports is PyTorch's selection's choice.
      op("median", [](const auto& x) { return x[0].median(); }).with_dtypes(kNumeric).with_cases(kMedianCases),
      op("median gradient", [](const auto& x) { return x[0].median(); }).with_cases(kMedianCases).grad2(),
      op("median along a dim", [](const auto& x) { return values_of(x[0].median(-1)); })
          .with_dtypes(kNumeric)
          .with_cases(kMedianAlongCases),
      op("median along a dim gradient", [](const auto& x) { return values_of(x[0].median(-1)); })
          .with_cases(kMedianAlongCases)
          .grad2(),
      op("median keepdim indices", [](const auto& x) { return indices_of(x[0].median(0, true)); })
          .without_broadcast_layout()
          .with_cases({{{5, 7}}, {{4}}, {{33, 17}}, {{}}}),
      op("nanmedian", [](const auto& x) { return x[0].nanmedian(); }).with_dtypes(kNumeric).with_cases(kMedianCases),
      op("nanmedian gradient", [](const auto& x) { return x[0].nanmedian(); }).with_cases(kMedianCases).grad(),
      op("nanmedian along a dim", [](const auto& x) { return values_of(x[0].nanmedian(-1, true)); })
          .with_dtypes(kNumeric)
          .with_cases(kMedianAlongCases),
      op("nanmedian along a dim gradient", [](const auto& x) { return values_of(x[0].nanmedian(-1, true)); })
          .with_cases(kMedianAlongCases)
          .grad(),
  };
}

}  // namespace
}  // namespace ember::test
