// Rows for the fills, copies and sequences, made like an input (its sizes, dtype and device).
#include "tests/op_registry.h"

namespace ember::test {
namespace {

// Sequences sized and typed by an input; the factories take options, which ADL cannot route.
TensorOptions options_of(const Tensor& like) { return TensorOptions().dtype(like.dtype()).device(like.device()); }
Tensor arange_like(const Tensor& x, int64_t start, int64_t step) {
  return arange(start, x.numel(), step, options_of(x));
}
at::Tensor arange_like(const at::Tensor& x, int64_t start, int64_t step) {
  return at::arange(start, x.numel(), step, x.options());
}
Tensor linspace_like(const Tensor& x) { return linspace(-2, 5, x.numel(), options_of(x)); }
at::Tensor linspace_like(const at::Tensor& x) { return at::linspace(-2, 5, x.numel(), x.options()); }
Tensor logspace_like(const Tensor& x) { return logspace(-2, 1.5, x.numel(), 3.0, options_of(x)); }
at::Tensor logspace_like(const at::Tensor& x) { return at::logspace(-2, 1.5, x.numel(), 3.0, x.options()); }
Tensor eye_like(const Tensor& x) { return eye(x.numel() % 6, 4, options_of(x)); }
at::Tensor eye_like(const at::Tensor& x) { return at::eye(x.numel() % 6, 4, x.options()); }

EMBER_OP_ROWS(fill_and_copy_rows) {
  return {
      op("full_like", [](const auto& x) { return full_like(x[0], 3); }).with_dtypes(kAllTypes),
      op("zeros_like", [](const auto& x) { return zeros_like(x[0]); }).with_dtypes(kAllTypes),
      op("ones_like", [](const auto& x) { return ones_like(x[0]); }).with_dtypes(kAllTypes),
      op("fill_", [](const auto& x) { return x[0].clone().fill_(2); }).with_dtypes(kAllTypes),
      op("fill_ tensor", 2, [](const auto& x) { return x[0].clone().fill_(x[1].sum()); })
          .with_cases({{{5, 3}, {}}, {{}, {4}}})
          .grad(),
      op("zero_", [](const auto& x) { return (x[0] * 1).zero_(); }).grad(),
      op("contiguous", [](const auto& x) { return x[0].contiguous(); }).with_dtypes(kAllTypes).grad(),
      op("clone", [](const auto& x) { return x[0].clone(); }).with_dtypes(kAllTypes).grad(),
      op("copy_", 2, [](const auto& x) { return (x[0] * 1).copy_(x[1]); })
          .with_mixed({{DType::Float32, DType::Int32}, {DType::Float64, DType::Float16}})
          .grad(),
  };
}

EMBER_OP_ROWS(sequence_rows) {
  return {
      op("arange", [](const auto& x) { return arange_like(x[0], 0, 1); }).with_dtypes(kNumeric),
      op("arange step", [](const auto& x) { return arange_like(x[0], -3, 2); })
          .with_dtypes({DType::Float32, DType::Int64, DType::Float64}),
      op("linspace", [](const auto& x) { return linspace_like(x[0]); }).with_dtypes(kFloating),
      op("eye", [](const auto& x) { return eye_like(x[0]); }).with_dtypes(kAllTypes),
      op("logspace", [](const auto& x) { return logspace_like(x[0]); })
          .with_dtypes({DType::Float32, DType::Float64, DType::BFloat16, DType::Int64, DType::Int16}),
      op("new_full", [](const auto& x) { return x[0].new_full({2, 3}, 5); }).with_dtypes(kAllTypes),
      op("new_zeros", [](const auto& x) { return x[0].new_zeros({4}); }).with_dtypes(kAllTypes),
      op("new_ones", [](const auto& x) { return x[0].new_ones({0, 2}); }).with_dtypes(kAllTypes),
  };
}

}  // namespace
}  // namespace ember::test
