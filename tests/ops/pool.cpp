// Rows for pooling: max (with indices), average, adaptive and LP pooling in one and two dims, and max
// unpooling. ember calls nn::functional with LibTorch's options; LibTorch's side calls ATen's ops,
// which LibTorch's functionals forward to. Inputs are batched, unbatched, of batch 1 and of batch 0;
// sizes that leave a window too small are refused by both.
#include "nn/functional/pooling.h"
#include "tests/ops/nn_row.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;

const std::vector<Shapes> kCases2d = {{{2, 3, 6, 7}}, {{3, 5, 5}}, {{1, 1, 9, 8}}, {{0, 2, 4, 4}}, {{2, 2, 1, 1}}};
const std::vector<Shapes> kCases1d = {{{2, 3, 9}}, {{3, 8}}, {{1, 1, 17}}, {{0, 2, 6}}, {{2, 1}}};

// Small integers as floats: many windows hold equal maxima, where PyTorch takes the first.
std::vector<at::Tensor> tied_values(DType dtype, const Shapes& shapes, at::Generator& gen) {
  return {at::randint(-2, 3, shapes[0], gen, at::kLong).to(torch_dtype(dtype))};
}

// A max pooling's output and indices (kernel 2 over the last two dims of shapes[0]), for unpooling.
std::vector<at::Tensor> pooled_and_indices(DType dtype, const Shapes& shapes, at::Generator& gen) {
  auto [out, indices] = at::max_pool2d_with_indices(random_torch(shapes[0], DType::Float32, gen), {2, 2});
  return {out.to(torch_dtype(dtype)), indices};
}

// The same over the last dim only, for unpool1d.
std::vector<at::Tensor> pooled_and_indices_1d(DType dtype, const Shapes& shapes, at::Generator& gen) {
  auto [out, indices] = at::max_pool1d_with_indices(random_torch(shapes[0], DType::Float32, gen), {2});
  return {out.to(torch_dtype(dtype)), indices};
}

EMBER_OP_ROWS(pool_rows) {
  return {
      EMBER_NN_OP_PAIR("max_pool2d", 1, F::max_pool2d(x[0], F::MaxPool2dFuncOptions(2)), at::max_pool2d(x[0], {2, 2}))
          .with_dtypes(kFloating)
          .with_cases(kCases2d)
          .grad2(),
      EMBER_NN_OP_PAIR("max_pool2d padded dilated ceil", 1,
               F::max_pool2d(x[0], F::MaxPool2dFuncOptions({3, 2}).stride({2, 1}).padding(1).dilation({2, 1}).ceil_mode(true)),
               at::max_pool2d(x[0], {3, 2}, {2, 1}, {1, 1}, {2, 1}, true))
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 6, 7}}, {{3, 5, 5}}, {{1, 2, 10, 3}}, {{1, 1, 2, 2}}})
          .grad2(),
      EMBER_NN_OP_PAIR("max_pool2d indices", 1,
               indices_of(F::max_pool2d_with_indices(x[0], F::MaxPool2dFuncOptions(3).stride(2).padding(1))),
               indices_of(at::max_pool2d_with_indices(x[0], {3, 3}, {2, 2}, {1, 1})))
          .with_dtypes(kFloating)
          .with_cases(kCases2d)
          .with_inputs(tied_values),
      EMBER_NN_OP_PAIR("max_pool2d with indices values", 1,
               values_of(F::max_pool2d_with_indices(x[0], F::MaxPool2dFuncOptions({2, 3}).stride(1))),
               values_of(at::max_pool2d_with_indices(x[0], {2, 3}, {1, 1})))
          .with_dtypes(kFloating)
          .with_cases(kCases2d)
          .grad(),
      EMBER_NN_OP_PAIR("max_pool1d", 1, F::max_pool1d(x[0], F::MaxPool1dFuncOptions(3).stride(2).padding(1)),
               at::max_pool1d(x[0], {3}, {2}, {1}))
          .with_dtypes(kFloating)
          .with_cases(kCases1d)
          .grad2(),
      EMBER_NN_OP_PAIR("max_pool1d indices", 1,
               indices_of(F::max_pool1d_with_indices(x[0], F::MaxPool1dFuncOptions(2).dilation(2).ceil_mode(true))),
               indices_of(at::max_pool1d_with_indices(x[0], {2}, {2}, {0}, {2}, true)))
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 9}}, {{3, 8}}, {{1, 1, 17}}})
          .with_inputs(tied_values),
      EMBER_NN_OP_PAIR("avg_pool2d", 1, F::avg_pool2d(x[0], F::AvgPool2dFuncOptions(2)), at::avg_pool2d(x[0], {2, 2}))
          .with_dtypes(kFloating)
          .with_cases(kCases2d)
          .grad2(),
      EMBER_NN_OP_PAIR("avg_pool2d padded ceil without pad", 1,
               F::avg_pool2d(x[0], F::AvgPool2dFuncOptions({3, 2}).stride({2, 3}).padding({1, 1}).ceil_mode(true).count_include_pad(false)),
               at::avg_pool2d(x[0], {3, 2}, {2, 3}, {1, 1}, true, false))
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 6, 7}}, {{3, 5, 5}}, {{1, 2, 10, 3}}, {{1, 1, 2, 2}}})
          .grad2(),
      EMBER_NN_OP_PAIR("avg_pool2d padded with pad", 1,
               F::avg_pool2d(x[0], F::AvgPool2dFuncOptions(3).stride(2).padding(1).ceil_mode(true)),
               at::avg_pool2d(x[0], {3, 3}, {2, 2}, {1, 1}, true, true))
          .with_dtypes(kFloating)
          .with_cases(kCases2d)
          .grad(),
      EMBER_NN_OP_PAIR("avg_pool2d divisor", 1, F::avg_pool2d(x[0], F::AvgPool2dFuncOptions(2).stride(1).divisor_override(3)),
               at::avg_pool2d(x[0], {2, 2}, {1, 1}, {0, 0}, false, true, 3))
          .with_dtypes(kFloating)
          .with_cases(kCases2d)
          .grad2(),
      EMBER_NN_OP_PAIR("avg_pool1d", 1, F::avg_pool1d(x[0], F::AvgPool1dFuncOptions(3).stride(2).padding(1).count_include_pad(false)),
               at::avg_pool1d(x[0], {3}, {2}, {1}, false, false))
          .with_dtypes(kFloating)
          .with_cases(kCases1d)
          .grad2(),
      EMBER_NN_OP_PAIR("adaptive_avg_pool2d", 1, F::adaptive_avg_pool2d(x[0], F::AdaptiveAvgPool2dFuncOptions({3, 2})),
               at::adaptive_avg_pool2d(x[0], {3, 2}))
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 7, 5}}, {{3, 4, 4}}, {{1, 1, 2, 9}}, {{0, 2, 4, 4}}, {{2, 3, 0, 4}}})
          .grad2(),
      // LibTorch's backward refuses empty channels, which its forward takes.
      EMBER_NN_OP_PAIR("adaptive_avg_pool2d empty channels", 1,
               F::adaptive_avg_pool2d(x[0], F::AdaptiveAvgPool2dFuncOptions({3, 2})), at::adaptive_avg_pool2d(x[0], {3, 2}))
          .with_dtypes(kFloating)
          .with_cases({{{2, 0, 4, 4}}, {{0, 5, 4}}}),
      EMBER_NN_OP_PAIR("adaptive_avg_pool2d keeps a dim", 1,
               F::adaptive_avg_pool2d(x[0], F::AdaptiveAvgPool2dFuncOptions({std::nullopt, 4})),
               at::adaptive_avg_pool2d(x[0], {x[0].size(-2), 4}))
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 7, 5}}, {{3, 4, 9}}})
          .grad(),
      EMBER_NN_OP_PAIR("adaptive_avg_pool2d to one", 1, F::adaptive_avg_pool2d(x[0], F::AdaptiveAvgPool2dFuncOptions(1)),
               at::adaptive_avg_pool2d(x[0], {1, 1}))
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 7, 5}}, {{3, 4, 4}}})
          .grad(),
      EMBER_NN_OP_PAIR("adaptive_avg_pool1d", 1, F::adaptive_avg_pool1d(x[0], F::AdaptiveAvgPool1dFuncOptions(4)),
               at::adaptive_avg_pool1d(x[0], {4}))
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 9}}, {{3, 3}}, {{1, 1, 17}}, {{0, 2, 6}}})
          .grad2(),
      EMBER_NN_OP_PAIR("adaptive_max_pool2d", 1, F::adaptive_max_pool2d(x[0], F::AdaptiveMaxPool2dFuncOptions({3, 2})),
               std::get<0>(at::adaptive_max_pool2d(x[0], {3, 2})))
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 7, 5}}, {{3, 4, 4}}, {{1, 1, 2, 9}}, {{0, 2, 4, 4}}, {{2, 0, 4, 4}}})
          .grad2(),
      EMBER_NN_OP_PAIR("adaptive_max_pool2d indices", 1,
               indices_of(F::adaptive_max_pool2d_with_indices(x[0], F::AdaptiveMaxPool2dFuncOptions({4, std::nullopt}))),
               indices_of(at::adaptive_max_pool2d(x[0], {4, x[0].size(-1)})))
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 7, 5}}, {{3, 4, 4}}, {{1, 1, 2, 9}}})
          .with_inputs(tied_values),
      EMBER_NN_OP_PAIR("adaptive_max_pool1d", 1, F::adaptive_max_pool1d(x[0], F::AdaptiveMaxPool1dFuncOptions(4)),
               std::get<0>(at::adaptive_max_pool1d(x[0], {4})))
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 9}}, {{3, 3}}, {{1, 1, 17}}, {{0, 2, 6}}})
          .grad2(),
      EMBER_NN_OP_PAIR("max_unpool2d", 2, F::max_unpool2d(x[0], x[1], F::MaxUnpool2dFuncOptions(2)),
               at::max_unpool2d(x[0], x[1], {x[0].size(-2) * 2, x[0].size(-1) * 2}))
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 6, 8}}, {{3, 4, 4}}, {{1, 1, 2, 6}}})
          .with_inputs(pooled_and_indices)
          .constant_inputs({1})
          .without_broadcast_layout()
          .grad(),
      EMBER_NN_OP_PAIR("max_unpool1d", 2, F::max_unpool1d(x[0], x[1], F::MaxUnpool1dFuncOptions(2)),
               at::max_unpool2d(x[0].unsqueeze(-2), x[1].unsqueeze(-2), {1, x[0].size(-1) * 2}).squeeze(-2))
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 8}}, {{3, 6}}})
          .with_inputs(pooled_and_indices_1d)
          .constant_inputs({1})
          .without_broadcast_layout()
          .grad(),
      EMBER_NN_OP_PAIR("lp_pool2d", 1, F::lp_pool2d(x[0], F::LPPool2dFuncOptions(2, 2).stride(1)),
               (at::avg_pool2d(x[0].pow(2), {2, 2}, {1, 1}).sign() * at::avg_pool2d(x[0].pow(2), {2, 2}, {1, 1}).abs().relu())
                   .mul(4)
                   .pow(0.5))
          .with_dtypes({DType::Float32, DType::Float64})
          .with_cases({{{2, 3, 6, 7}}, {{3, 5, 5}}})
          .in_range(0.5, 2)
          .grad(),
      EMBER_NN_OP_PAIR("lp_pool1d", 1, F::lp_pool1d(x[0], F::LPPool1dFuncOptions(3, 2)),
               (at::avg_pool1d(x[0].pow(3), {2}).sign() * at::avg_pool1d(x[0].pow(3), {2}).abs().relu()).mul(2).pow(1.0 / 3))
          .with_dtypes({DType::Float32, DType::Float64})
          .with_cases({{{2, 3, 9}}, {{3, 8}}})
          .in_range(0.5, 2)
          .grad(),
  };
}

}  // namespace
}  // namespace ember::test
