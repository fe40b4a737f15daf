// Rows for pooling: max (with indices), average, adaptive and LP pooling in one and two dims, max, average
// and adaptive pooling in three, max unpooling in one to three, and fractional max pooling in two and
// three dims (its samples given, so both sides agree). ember calls nn::functional with LibTorch's options;
// LibTorch's side calls ATen's ops, which LibTorch's functionals forward to. Inputs are batched,
// unbatched, of batch 1 and of batch 0; sizes that leave a window too small are refused by both.
#include "nn/functional/fractional_max_pool.h"
#include "nn/functional/pooling.h"
#include "tests/ops/nn_row.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;

const std::vector<Shapes> kCases2d = {{{2, 3, 6, 7}}, {{3, 5, 5}}, {{1, 1, 9, 8}}, {{0, 2, 4, 4}}, {{2, 2, 1, 1}}};
const std::vector<Shapes> kCases3d = {{{2, 3, 4, 6, 5}}, {{3, 4, 5, 5}}, {{1, 1, 5, 4, 3}}, {{0, 2, 4, 4, 4}}};
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

// The same over the last three dims, for unpool3d.
std::vector<at::Tensor> pooled_and_indices_3d(DType dtype, const Shapes& shapes, at::Generator& gen) {
  auto [out, indices] = at::max_pool3d_with_indices(random_torch(shapes[0], DType::Float32, gen), {2, 2, 2});
  return {out.to(torch_dtype(dtype)), indices};
}

// The same over the last dim only, for unpool1d.
std::vector<at::Tensor> pooled_and_indices_1d(DType dtype, const Shapes& shapes, at::Generator& gen) {
  auto [out, indices] = at::max_pool1d_with_indices(random_torch(shapes[0], DType::Float32, gen), {2});
  return {out.to(torch_dtype(dtype)), indices};
}

// An input (random, or small integers for `tied`) and fractional pooling's samples for it: (N, C, D)
// in [0, 1), N one for an unbatched input. The rows leave out the broadcast layout: PyTorch's CPU kernel
// reads the samples in memory order, which an expanded samples tensor does not hold.
InputMaker with_samples(size_t spatial_dims, bool tied = false) {
  return [spatial_dims, tied](DType dtype, const Shapes& shapes, at::Generator& gen) {
    const std::vector<int64_t>& sizes = shapes[0];
    const bool batched = sizes.size() == spatial_dims + 2;
    const int64_t channels = sizes[sizes.size() - spatial_dims - 1];
    at::Tensor input = tied ? tied_values(dtype, shapes, gen)[0] : random_torch(sizes, dtype, gen);
    at::Tensor samples = at::rand({batched ? sizes[0] : 1, channels, static_cast<int64_t>(spatial_dims)}, gen)
                             .to(torch_dtype(dtype));
    return std::vector<at::Tensor>{input, samples};
  };
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
      // LibTorch's CPU kernel unpools float and double only (MaxUnpool3dTest covers the other dtypes).
      EMBER_NN_OP_PAIR("max_unpool3d", 2, F::max_unpool3d(x[0], x[1], F::MaxUnpool3dFuncOptions(2)),
               at::max_unpool3d(x[0], x[1], {x[0].size(-3) * 2, x[0].size(-2) * 2, x[0].size(-1) * 2}, {2, 2, 2},
                                {0, 0, 0}))
          .with_dtypes({DType::Float32, DType::Float64})
          .with_cases({{{2, 3, 4, 6, 4}}, {{3, 4, 4, 2}}, {{1, 1, 2, 6, 4}}})
          .with_inputs(pooled_and_indices_3d)
          .constant_inputs({1})
          .without_broadcast_layout()
          .grad2(),
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
      EMBER_NN_OP_PAIR("max_pool3d", 1, F::max_pool3d(x[0], F::MaxPool3dFuncOptions(2)),
                       at::max_pool3d(x[0], {2, 2, 2}))
          .with_dtypes(kFloating)
          .with_cases(kCases3d)
          .grad2(),
      EMBER_NN_OP_PAIR("max_pool3d padded dilated ceil", 1,
               F::max_pool3d(x[0], F::MaxPool3dFuncOptions({3, 2, 2}).stride({2, 1, 2}).padding({1, 1, 0})
                                       .dilation({1, 2, 1}).ceil_mode(true)),
               at::max_pool3d(x[0], {3, 2, 2}, {2, 1, 2}, {1, 1, 0}, {1, 2, 1}, true))
          .with_dtypes(kFloating)
          .with_cases({{{2, 2, 5, 6, 5}}, {{2, 4, 5, 6}}, {{1, 1, 2, 3, 2}}})
          .grad2(),
      EMBER_NN_OP_PAIR("max_pool3d indices", 1,
               indices_of(F::max_pool3d_with_indices(x[0], F::MaxPool3dFuncOptions(3).stride(2).padding(1))),
               indices_of(at::max_pool3d_with_indices(x[0], {3, 3, 3}, {2, 2, 2}, {1, 1, 1})))
          .with_dtypes(kFloating)
          .with_cases(kCases3d)
          .with_inputs(tied_values),
      EMBER_NN_OP_PAIR("avg_pool3d", 1, F::avg_pool3d(x[0], F::AvgPool3dFuncOptions(2)),
                       at::avg_pool3d(x[0], {2, 2, 2}))
          .with_dtypes(kFloating)
          .with_cases(kCases3d)
          .grad2(),
      EMBER_NN_OP_PAIR("avg_pool3d padded ceil without pad", 1,
               F::avg_pool3d(x[0], F::AvgPool3dFuncOptions({3, 2, 3}).stride({2, 3, 2}).padding({1, 1, 1})
                                       .ceil_mode(true).count_include_pad(false)),
               at::avg_pool3d(x[0], {3, 2, 3}, {2, 3, 2}, {1, 1, 1}, true, false))
          .with_dtypes(kFloating)
          .with_cases({{{2, 2, 5, 6, 5}}, {{2, 4, 5, 6}}, {{1, 1, 3, 2, 3}}})
          .grad2(),
      EMBER_NN_OP_PAIR("avg_pool3d padded with pad", 1,
               F::avg_pool3d(x[0], F::AvgPool3dFuncOptions(3).stride(2).padding(1).ceil_mode(true)),
               at::avg_pool3d(x[0], {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, true, true))
          .with_dtypes(kFloating)
          .with_cases(kCases3d)
          .grad(),
      EMBER_NN_OP_PAIR("avg_pool3d divisor", 1,
               F::avg_pool3d(x[0], F::AvgPool3dFuncOptions(2).stride(1).divisor_override(3)),
               at::avg_pool3d(x[0], {2, 2, 2}, {1, 1, 1}, {0, 0, 0}, false, true, 3))
          .with_dtypes(kFloating)
          .with_cases(kCases3d)
          .grad2(),
      EMBER_NN_OP_PAIR("adaptive_avg_pool3d", 1,
               F::adaptive_avg_pool3d(x[0], F::AdaptiveAvgPool3dFuncOptions({3, 2, 4})),
               at::adaptive_avg_pool3d(x[0], {3, 2, 4}))
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 7, 5, 6}}, {{3, 4, 4, 5}}, {{1, 1, 2, 9, 3}}, {{0, 2, 4, 4, 4}}})
          .grad2(),
      EMBER_NN_OP_PAIR("adaptive_avg_pool3d keeps dims", 1,
               F::adaptive_avg_pool3d(x[0], F::AdaptiveAvgPool3dFuncOptions({std::nullopt, 3, std::nullopt})),
               at::adaptive_avg_pool3d(x[0], {x[0].size(-3), 3, x[0].size(-1)}))
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 4, 7, 5}}, {{3, 4, 9, 2}}})
          .grad(),
      EMBER_NN_OP_PAIR("adaptive_avg_pool3d to one", 1,
               F::adaptive_avg_pool3d(x[0], F::AdaptiveAvgPool3dFuncOptions(1)),
               at::adaptive_avg_pool3d(x[0], {1, 1, 1}))
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 4, 7, 5}}, {{3, 4, 4, 2}}})
          .grad(),
      EMBER_NN_OP_PAIR("adaptive_max_pool3d", 1,
               F::adaptive_max_pool3d(x[0], F::AdaptiveMaxPool3dFuncOptions({3, 2, 4})),
               std::get<0>(at::adaptive_max_pool3d(x[0], {3, 2, 4})))
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 7, 5, 6}}, {{3, 4, 4, 5}}, {{1, 1, 2, 9, 3}}, {{0, 2, 4, 4, 4}}})
          .grad2(),
      EMBER_NN_OP_PAIR("adaptive_max_pool3d indices", 1,
               indices_of(F::adaptive_max_pool3d_with_indices(x[0],
                                                              F::AdaptiveMaxPool3dFuncOptions({4, std::nullopt, 2}))),
               indices_of(at::adaptive_max_pool3d(x[0], {4, x[0].size(-2), 2})))
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 7, 5, 6}}, {{3, 4, 4, 5}}, {{1, 1, 2, 9, 3}}})
          .with_inputs(tied_values),
      EMBER_NN_OP_PAIR("fractional_max_pool2d", 2,
               F::fractional_max_pool2d(x[0], F::FractionalMaxPool2dFuncOptions(2).output_size(ExpandingArray<2>({4, 3}))._random_samples(x[1])),
               std::get<0>(at::fractional_max_pool2d(x[0], {2, 2}, {4, 3}, x[1])))
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 7, 8}}, {{3, 9, 6}}, {{1, 1, 5, 4}}, {{0, 2, 6, 6}}, {{0, 5, 4}}})
          .with_inputs(with_samples(2))
          .constant_inputs({1})
          .without_broadcast_layout()
          .recorded_as("FractionalMaxPool2DBackward0")
          .grad2(),
      EMBER_NN_OP_PAIR("fractional_max_pool2d indices", 2,
               indices_of(F::fractional_max_pool2d_with_indices(x[0], F::FractionalMaxPool2dFuncOptions({3, 2}).output_size(ExpandingArray<2>({3, 5}))._random_samples(x[1]))),
               std::get<1>(at::fractional_max_pool2d(x[0], {3, 2}, {3, 5}, x[1])))
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 7, 8}}, {{3, 9, 6}}, {{1, 2, 5, 7}}})
          .with_inputs(with_samples(2, true))
          .constant_inputs({1})
          .without_broadcast_layout(),
      // One output along a dim: its window ends at the input's end.
      EMBER_NN_OP_PAIR("fractional_max_pool2d to one", 2,
               F::fractional_max_pool2d(x[0], F::FractionalMaxPool2dFuncOptions(3).output_size(ExpandingArray<2>({1, 2}))._random_samples(x[1])),
               std::get<0>(at::fractional_max_pool2d(x[0], {3, 3}, {1, 2}, x[1])))
          .with_dtypes({DType::Float32, DType::Float64})
          .with_cases({{{2, 2, 3, 5}}, {{2, 7, 4}}})
          .with_inputs(with_samples(2))
          .constant_inputs({1})
          .without_broadcast_layout()
          .grad(),
      EMBER_NN_OP_PAIR("fractional_max_pool2d ratio", 2,
               F::fractional_max_pool2d(x[0], F::FractionalMaxPool2dFuncOptions(2).output_ratio(0.5)._random_samples(x[1])),
               torch::nn::functional::fractional_max_pool2d(
                   x[0], torch::nn::functional::FractionalMaxPool2dFuncOptions(2).output_ratio(0.5)._random_samples(x[1])))
          .with_dtypes({DType::Float32, DType::Float64})
          .with_cases({{{2, 3, 9, 8}}, {{3, 6, 11}}})
          .with_inputs(with_samples(2))
          .constant_inputs({1})
          .without_broadcast_layout()
          .grad(),
      EMBER_NN_OP_PAIR("fractional_max_pool3d", 2,
               F::fractional_max_pool3d(x[0], F::FractionalMaxPool3dFuncOptions({2, 1, 2}).output_size(ExpandingArray<3>({3, 2, 4}))._random_samples(x[1])),
               std::get<0>(at::fractional_max_pool3d(x[0], {2, 1, 2}, {3, 2, 4}, x[1])))
          .with_dtypes(kFloating)
          .with_cases({{{2, 2, 5, 4, 6}}, {{2, 5, 3, 6}}, {{0, 1, 5, 3, 6}}})
          .with_inputs(with_samples(3))
          .constant_inputs({1})
          .without_broadcast_layout()
          .recorded_as("FractionalMaxPool3DBackward0")
          .grad2(),
      EMBER_NN_OP_PAIR("fractional_max_pool3d indices", 2,
               indices_of(F::fractional_max_pool3d_with_indices(x[0], F::FractionalMaxPool3dFuncOptions(2).output_size(ExpandingArray<3>({2, 3, 2}))._random_samples(x[1]))),
               std::get<1>(at::fractional_max_pool3d(x[0], {2, 2, 2}, {2, 3, 2}, x[1])))
          .with_dtypes(kFloating)
          .with_cases({{{2, 2, 5, 5, 6}}, {{2, 4, 5, 4}}})
          .with_inputs(with_samples(3, true))
          .constant_inputs({1})
          .without_broadcast_layout(),
  };
}

}  // namespace
}  // namespace ember::test
