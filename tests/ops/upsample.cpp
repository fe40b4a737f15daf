// Rows for interpolate (nearest, nearest-exact, linear, bilinear with and without align_corners, area; by
// size and by scale factor), pixel_shuffle and pixel_unshuffle. ember calls nn::functional with
// LibTorch's options; LibTorch's side calls the ATen ops its functional forwards to.
#include <cmath>

#include "nn/functional/pixelshuffle.h"
#include "nn/functional/upsampling.h"
#include "tests/ops/nn_row.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;

// A one-input row: `ember_call` and `torch_call` use x, the inputs.
#define UPSAMPLE_ROW(name, ember_call, torch_call) EMBER_NN_OP_PAIR(name, 1, ember_call, torch_call)

const std::vector<Shapes> kCases2d = {{{2, 3, 5, 4}}, {{1, 1, 3, 7}}, {{0, 2, 4, 4}}, {{2, 2, 1, 1}}, {{2, 0, 3, 3}}};
const std::vector<Shapes> kCases1d = {{{2, 3, 5}}, {{1, 1, 9}}, {{0, 2, 4}}, {{2, 2, 1}}};

F::InterpolateFuncOptions sized(std::vector<int64_t> size) { return F::InterpolateFuncOptions().size(size); }
F::InterpolateFuncOptions scaled(std::vector<double> scale) { return F::InterpolateFuncOptions().scale_factor(scale); }

int64_t scaled_size(const at::Tensor& x, int64_t dim, double scale) {
  return static_cast<int64_t>(std::floor(static_cast<double>(x.size(dim)) * scale));
}

EMBER_OP_ROWS(upsample_rows) {
  return {
      UPSAMPLE_ROW("interpolate nearest", F::interpolate(x[0], sized({7, 3})), at::upsample_nearest2d(x[0], {7, 3}))
          .with_dtypes(kFloating)
          .with_cases(kCases2d)
          .grad2(),
      UPSAMPLE_ROW("interpolate nearest uint8", F::interpolate(x[0], sized({8, 9})), at::upsample_nearest2d(x[0], {8, 9}))
          .with_dtypes({DType::UInt8})
          .with_cases(kCases2d),
      UPSAMPLE_ROW("interpolate nearest scale", F::interpolate(x[0], scaled({2.0, 1.5})),
                   at::upsample_nearest2d(x[0], {scaled_size(x[0], 2, 2.0), scaled_size(x[0], 3, 1.5)}, 2.0, 1.5))
          .with_dtypes(kFloating)
          .with_cases(kCases2d)
          .grad(),
      UPSAMPLE_ROW("interpolate nearest scale recomputed",
                   F::interpolate(x[0], scaled({1.7, 0.6}).recompute_scale_factor(true)),
                   at::upsample_nearest2d(x[0], {scaled_size(x[0], 2, 1.7), scaled_size(x[0], 3, 0.6)}))
          .with_dtypes({DType::Float32, DType::Float64})
          .with_cases({{{2, 3, 5, 4}}, {{1, 1, 3, 7}}})
          .grad(),
      UPSAMPLE_ROW("interpolate nearest 1d", F::interpolate(x[0], sized({11})), at::upsample_nearest1d(x[0], {11}))
          .with_dtypes(kFloating)
          .with_cases(kCases1d)
          .grad2(),
      UPSAMPLE_ROW("interpolate nearest-exact", F::interpolate(x[0], sized({7, 3}).mode(kNearestExact)),
                   at::_upsample_nearest_exact2d(x[0], {7, 3}))
          .with_dtypes(kFloating)
          .with_cases(kCases2d)
          .grad(),
      UPSAMPLE_ROW("interpolate nearest-exact 1d", F::interpolate(x[0], scaled({1.5}).mode(kNearestExact)),
                   at::_upsample_nearest_exact1d(x[0], at::IntArrayRef{scaled_size(x[0], 2, 1.5)}, c10::optional<double>(1.5)))
          .with_dtypes({DType::Float32, DType::Float64})
          .with_cases(kCases1d)
          .grad(),
      UPSAMPLE_ROW("interpolate bilinear", F::interpolate(x[0], sized({7, 3}).mode(kBilinear).align_corners(false)),
                   at::upsample_bilinear2d(x[0], {7, 3}, false))
          .with_dtypes(kFloating)
          .with_cases(kCases2d)
          .grad2(),
      UPSAMPLE_ROW("interpolate bilinear align_corners",
                   F::interpolate(x[0], sized({8, 9}).mode(kBilinear).align_corners(true)),
                   at::upsample_bilinear2d(x[0], {8, 9}, true))
          .with_dtypes(kFloating)
          .with_cases(kCases2d)
          .grad2(),
      UPSAMPLE_ROW("interpolate bilinear scale", F::interpolate(x[0], scaled({1.7, 0.6}).mode(kBilinear)),
                   at::upsample_bilinear2d(x[0], {scaled_size(x[0], 2, 1.7), scaled_size(x[0], 3, 0.6)}, false, 1.7, 0.6))
          .with_dtypes({DType::Float32, DType::Float64})
          .with_cases({{{2, 3, 5, 4}}, {{1, 1, 3, 7}}, {{1, 2, 9, 12}}})
          .grad(),
      UPSAMPLE_ROW("interpolate linear", F::interpolate(x[0], sized({12}).mode(kLinear).align_corners(false)),
                   at::upsample_linear1d(x[0], {12}, false))
          .with_dtypes(kFloating)
          .with_cases(kCases1d)
          .grad2(),
      UPSAMPLE_ROW("interpolate linear align_corners down",
                   F::interpolate(x[0], sized({3}).mode(kLinear).align_corners(true)),
                   at::upsample_linear1d(x[0], {3}, true))
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 5}}, {{1, 1, 9}}, {{2, 2, 1}}})
          .grad(),
      UPSAMPLE_ROW("interpolate area", F::interpolate(x[0], sized({3, 2}).mode(kArea)),
                   at::adaptive_avg_pool2d(x[0], {3, 2}))
          .with_dtypes({DType::Float32, DType::Float64})
          .with_cases({{{2, 3, 5, 4}}, {{1, 1, 3, 7}}})
          .grad(),
      UPSAMPLE_ROW("pixel_shuffle", F::pixel_shuffle(x[0], F::PixelShuffleFuncOptions(2)), at::pixel_shuffle(x[0], 2))
          .with_dtypes(kAllTypes)
          .with_cases({{{2, 8, 3, 5}}, {{4, 2, 3}}, {{2, 3, 4, 1, 2}}, {{2, 6, 3, 3}}, {{4, 3}}})
          .grad2(),
      // PyTorch 1.13's pixel_unshuffle returns an empty input's shape, so LibTorch's own gradient of an
      // empty pixel_shuffle fails: forward only.
      UPSAMPLE_ROW("pixel_shuffle empty", F::pixel_shuffle(x[0], F::PixelShuffleFuncOptions(2)), at::pixel_shuffle(x[0], 2))
          .with_dtypes({DType::Float32, DType::Int64})
          .with_cases({{{0, 4, 2, 2}}}),
      UPSAMPLE_ROW("pixel_unshuffle", F::pixel_unshuffle(x[0], F::PixelUnshuffleFuncOptions(2)), at::pixel_unshuffle(x[0], 2))
          .with_dtypes(kAllTypes)
          .with_cases({{{2, 3, 4, 6}}, {{1, 2, 4}}, {{2, 3, 2, 2, 4}}, {{2, 3, 3, 4}}, {{4, 6}}})
          .grad2(),
      // PyTorch 1.13 returns an empty input's shape (and its own backward of that then fails).
      UPSAMPLE_ROW("pixel_unshuffle empty", F::pixel_unshuffle(x[0], F::PixelUnshuffleFuncOptions(2)),
                   at::pixel_unshuffle(x[0], 2))
          .with_dtypes({DType::Float32, DType::Int64})
          .with_cases({{{0, 1, 2, 2}}, {{0, 3, 4, 2}}}),
      UPSAMPLE_ROW("pixel_shuffle by one", F::pixel_shuffle(x[0], F::PixelShuffleFuncOptions(1)), at::pixel_shuffle(x[0], 1))
          .with_dtypes({DType::Float32})
          .with_cases({{{2, 3, 4, 6}}})
          .grad(),
  };
}

}  // namespace
}  // namespace ember::test
