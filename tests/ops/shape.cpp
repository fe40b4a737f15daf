// Rows for views, joining and splitting: what they return must equal LibTorch's, values and sizes, over
// every layout (views of views included).
#include "tests/op_registry.h"

namespace ember::test {
namespace {

Tensor cat_of(const Tensor& a, const Tensor& b, int64_t dim) { return cat({a, b}, dim); }
at::Tensor cat_of(const at::Tensor& a, const at::Tensor& b, int64_t dim) { return at::cat({a, b}, dim); }
Tensor stack_of(const Tensor& a, const Tensor& b, int64_t dim) { return stack({a, b}, dim); }
at::Tensor stack_of(const at::Tensor& a, const at::Tensor& b, int64_t dim) { return at::stack({a, b}, dim); }

EMBER_OP_ROWS(view_rows) {
  const std::vector<Shapes> matrices = {{{5, 7}}, {{2, 3, 4}}, {{0, 3}}, {{33, 17}}};
  return {
      op("transpose", [](const auto& x) { return x[0].transpose(0, -1) * 1; }).with_dtypes(kAllTypes).grad(),
      op("permute", [](const auto& x) { return x[0].permute({1, 0}).contiguous(); })
          .with_cases({{{5, 7}}, {{0, 3}}})
          .grad(),
      op("narrow", [](const auto& x) { return x[0].narrow(-1, 1, 2); }).with_cases(matrices).grad(),
      op("narrow_copy", [](const auto& x) { return x[0].narrow_copy(-1, 1, 2); })
          .with_dtypes(kAllTypes)
          .with_cases(matrices),
      op("select", [](const auto& x) { return x[0].select(-1, -1); }).with_cases(matrices).grad(),
      op("slice step", [](const auto& x) { return x[0].slice(-1, 0, {}, 3); })
          .with_cases(matrices)
          .grad(),
      op("unfold", [](const auto& x) { return x[0].unfold(-1, 2, 1); }).with_cases(matrices).grad(),
      op("diagonal", [](const auto& x) { return x[0].diagonal(1); }).with_cases(matrices).grad(),
      op("reshape", [](const auto& x) { return x[0].reshape({-1}); }).with_dtypes(kAllTypes).grad(),
      op("flatten", [](const auto& x) { return x[0].flatten(); }).grad(),
      op("unsqueeze", [](const auto& x) { return x[0].unsqueeze(0); }).grad(),
      op("squeeze", [](const auto& x) { return x[0].unsqueeze(-1).squeeze(); }).grad(),
      op("expand", [](const auto& x) { return x[0].unsqueeze(0).expand({3, -1, -1}).contiguous(); })
          .with_cases(matrices)
          .grad(),
      op("movedim", [](const auto& x) { return x[0].movedim(0, -1).contiguous(); }).with_cases(matrices).grad(),
  };
}

// The in-place views change a copy that is not a leaf, so that the gradient goes through their record.
// squeeze_'s nodes have PyTorch 2's numbers, which count squeeze(dims) (SqueezeBackward2 in ember too);
// LibTorch 1.13 has no squeeze(dims) and numbers them one lower.
EMBER_OP_ROWS(inplace_view_rows) {
#define EMBER_INPLACE_VIEW(call) [](const auto& x) { auto y = x[0] * 1; y.call; return y; }
  const std::vector<Shapes> matrices = {{{5, 7}}, {{0, 3}}, {{4}}, {{}}};
  return {
      op("t_", EMBER_INPLACE_VIEW(t_())).with_dtypes(kAllTypes).with_cases(matrices).grad(),
      op("transpose_", EMBER_INPLACE_VIEW(transpose_(0, -1))).with_dtypes(kAllTypes).grad(),
      op("swapaxes_", EMBER_INPLACE_VIEW(swapaxes_(-1, 0))).grad(),
      op("squeeze_", EMBER_INPLACE_VIEW(unsqueeze_(1).squeeze_()))
          .with_dtypes(kAllTypes)
          .grad()
          .recorded_as("SqueezeBackward3"),
      op("squeeze_ dim", EMBER_INPLACE_VIEW(unsqueeze_(-1).squeeze_(-1))).grad().recorded_as("SqueezeBackward4"),
      op("unsqueeze_", EMBER_INPLACE_VIEW(unsqueeze_(0))).with_dtypes(kAllTypes).with_cases(matrices).grad(),
  };
#undef EMBER_INPLACE_VIEW
}

Tensor repeat_by(const Tensor& x, const Tensor& counts) { return x.repeat_interleave(counts, 0); }
at::Tensor repeat_by(const at::Tensor& x, const at::Tensor& counts) { return x.repeat_interleave(counts, 0); }

EMBER_OP_ROWS(repeat_rows) {
  const std::vector<Shapes> matrices = {{{5, 7}}, {{2, 3, 4}}, {{0, 3}}, {{}}, {{4}}};
  return {
      op("repeat", [](const auto& x) { return x[0].repeat({2, 1, 3}); }).with_dtypes(kAllTypes).with_cases(matrices).grad2(),
      op("tile", [](const auto& x) { return x[0].tile({2, 2}); }).with_dtypes(kAllTypes).with_cases(matrices).grad(),
      op("repeat_interleave scalar", [](const auto& x) { return x[0].repeat_interleave(3); })
          .with_dtypes(kAllTypes)
          .grad2(),
      op("repeat_interleave dim", [](const auto& x) { return x[0].repeat_interleave(2, -1); })
          .with_cases(matrices)
          .grad(),
      op("repeat_interleave tensor", 2, [](const auto& x) { return repeat_by(x[0], x[1]); })
          .with_dtypes(kNumeric)
          .with_cases({{{5, 3}, {5}}, {{4}, {4}}, {{0, 2}, {0}}})
          .with_inputs([](DType dtype, const Shapes& shapes, at::Generator& gen) {
            return std::vector<at::Tensor>{random_torch(shapes[0], dtype, gen),
                                           at::randint(0, 4, shapes[1], gen, at::kLong)};
          })
          .grad(),
  };
}

EMBER_OP_ROWS(splitting_rows) {
  const std::vector<Shapes> cases = {{{7, 5}}, {{4, 6, 2}}, {{0, 3}}, {{33, 17}}};
  return {
      op("tensor_split sections last", [](const auto& x) { return x[0].tensor_split(3, -1).back(); })
          .with_cases(cases)
          .grad(),
      op("tensor_split indices middle", [](const auto& x) { return x[0].tensor_split({1, 4}, 0)[1]; })
          .with_cases(cases)
          .grad(),
      op("hsplit", [](const auto& x) { return x[0].hsplit({2}).front(); }).with_cases(cases).grad(),
      op("vsplit", [](const auto& x) { return x[0].vsplit(1).front(); }).with_cases(cases).grad(),
      op("dsplit", [](const auto& x) { return x[0].dsplit(2)[1]; }).with_cases({{{4, 6, 2}}, {{1, 1, 4}}}).grad(),
  };
}

EMBER_OP_ROWS(joining_rows) {
  return {
      op("cat", 2, [](const auto& x) { return cat_of(x[0], x[1], -1); })
          .with_dtypes(kAllTypes)
          .with_cases({{{5, 3}, {5, 4}}, {{7}, {0}}, {{2, 0, 3}, {2, 0, 5}}, {{33, 17}, {33, 2}}})
          .grad(),
      op("cat promoting", 2, [](const auto& x) { return cat_of(x[0], x[1], 0); })
          .with_mixed({{DType::Int32, DType::Float32}, {DType::Bool, DType::Int64}})
          .with_cases({{{2, 3}, {4, 3}}}),
      op("stack", 2, [](const auto& x) { return stack_of(x[0], x[1], 1); })
          .with_dtypes(kAllTypes)
          .with_cases({{{5, 3}, {5, 3}}, {{0}, {0}}})
          .grad(),
      op("split second piece", [](const auto& x) { return x[0].split(2, -1)[1]; })
          .with_cases({{{5, 7}}, {{3, 4}}})
          .grad(),
      op("chunk last piece", [](const auto& x) { return x[0].chunk(3, 0).back(); })
          .with_cases({{{7, 2}}, {{13}}})
          .grad(),
  };
}


// Reversal, rotation, circular shifts and differences: copies with their own nodes (or PyTorch's
// composition, for diff).
EMBER_OP_ROWS(flip_rows) {
  const std::vector<Shapes> matrices = {{{5, 7}}, {{2, 3, 4}}, {{0, 3}}, {{33, 17}}};
  return {
      op("flip", [](const auto& x) { return x[0].flip({0, -1}); }).with_dtypes(kAllTypes).grad2(),
      op("flip no dims", [](const auto& x) { return x[0].flip({}); }).grad(),
      op("fliplr", [](const auto& x) { return x[0].fliplr(); }).with_dtypes(kAllTypes).grad(),
      op("flipud", [](const auto& x) { return x[0].flipud(); }).with_dtypes(kAllTypes).grad(),
      op("roll", [](const auto& x) { return x[0].roll({1}, {-1}); }).with_dtypes(kAllTypes).grad2(),
      op("roll two dims", [](const auto& x) { return x[0].roll({-7, 2}, {0, 1}); }).with_cases(matrices).grad(),
      op("roll flattened", [](const auto& x) { return x[0].roll({4}); }).with_dtypes(kAllTypes).grad(),
      op("rot90", [](const auto& x) { return x[0].rot90(); }).with_dtypes(kAllTypes).with_cases(matrices).grad2(),
      op("rot90 twice", [](const auto& x) { return x[0].rot90(2, {1, 0}); }).with_cases(matrices).grad(),
      op("rot90 three times", [](const auto& x) { return x[0].rot90(-1, {0, -1}).contiguous(); })
          .with_cases(matrices)
          .grad(),
      op("rot90 none", [](const auto& x) { return x[0].rot90(4); }).with_cases(matrices).grad(),
      op("diff", [](const auto& x) { return x[0].diff(); }).with_dtypes(kAllTypes).grad2(),
      op("diff twice dim 0", [](const auto& x) { return x[0].diff(2, 0); }).with_dtypes(kAllTypes).grad(),
      op("diff past the size", [](const auto& x) { return x[0].diff(9, 0); }).grad(),
      op("diff prepend append", 3, [](const auto& x) { return x[0].diff(1, 1, x[1], x[2]); })
          .with_dtypes(kAllTypes)
          .with_cases({{{2, 3}, {2, 1}, {2, 2}}, {{2, 3}, {3, 1}, {2, 2}}, {{4, 0}, {4, 2}, {4, 1}}, {{3}, {1}, {1}}})
          .grad(),
      op("diff prepend promoting", 2, [](const auto& x) { return x[0].diff(1, 0, x[1]); })
          .with_mixed({{DType::Int64, DType::Float32}, {DType::Float32, DType::Float64}})
          .with_cases({{{4}, {2}}}),
  };
}

}  // namespace
}  // namespace ember::test
