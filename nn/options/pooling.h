#pragma once
// Options of the pooling modules and functionals, with LibTorch 1.13's names, fields and defaults:
// `F::max_pool2d(x, F::MaxPool2dFuncOptions(3).stride(2).padding(1))`. A stride left unset is the
// kernel size. Adaptive output sizes of 2-d and 3-d pooling may leave a dim out (`{std::nullopt, 7}`), which
// keeps the input's size there.
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "nn/arg.h"
#include "nn/expanding_array.h"

namespace ember::nn {

namespace adaptive_detail {
// Output sizes whose dims may be left out take one size for every dim as well, as LibTorch's
// ExpandingArrayWithOptionalElem does: AdaptiveAvgPool2dOptions(7).
template <class OutputSize>
inline constexpr bool kOptionalSizes =
    std::is_same_v<std::remove_cvref_t<decltype(std::declval<const OutputSize&>()[0])>, std::optional<int64_t>>;
template <class OutputSize>
OutputSize every_dim(int64_t size) {
  return OutputSize(std::optional<int64_t>(size));
}
}  // namespace adaptive_detail

// AvgPool1d/2d/3d: https://pytorch.org/docs/1.13/generated/torch.nn.AvgPool2d.html
template <size_t D>
struct AvgPoolOptions {
  AvgPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(bool, ceil_mode) = false;
  EMBER_ARG(bool, count_include_pad) = true;
  // Divides every window's sum by this instead of its size (avg_pool2d/3d only; avg_pool1d ignores it,
  // as LibTorch's does).
  EMBER_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;
};
using AvgPool1dOptions = AvgPoolOptions<1>;
using AvgPool2dOptions = AvgPoolOptions<2>;
using AvgPool3dOptions = AvgPoolOptions<3>;

// MaxPool1d/2d/3d: https://pytorch.org/docs/1.13/generated/torch.nn.MaxPool2d.html
template <size_t D>
struct MaxPoolOptions {
  MaxPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(bool, ceil_mode) = false;
};
using MaxPool1dOptions = MaxPoolOptions<1>;
using MaxPool2dOptions = MaxPoolOptions<2>;
using MaxPool3dOptions = MaxPoolOptions<3>;

// AdaptiveMaxPool1d/2d/3d: https://pytorch.org/docs/1.13/generated/torch.nn.AdaptiveMaxPool2d.html
template <class OutputSize>
struct AdaptiveMaxPoolOptions {
  AdaptiveMaxPoolOptions(OutputSize output_size) : output_size_(output_size) {}
  AdaptiveMaxPoolOptions(int64_t size)
    requires adaptive_detail::kOptionalSizes<OutputSize>
      : output_size_(adaptive_detail::every_dim<OutputSize>(size)) {}
  auto output_size(int64_t size) -> decltype(*this)
    requires adaptive_detail::kOptionalSizes<OutputSize>
  {
    output_size_ = adaptive_detail::every_dim<OutputSize>(size);
    return *this;
  }
  EMBER_ARG(OutputSize, output_size);
};
using AdaptiveMaxPool1dOptions = AdaptiveMaxPoolOptions<ExpandingArray<1>>;
using AdaptiveMaxPool2dOptions = AdaptiveMaxPoolOptions<ExpandingArrayWithOptionalElem<2>>;
using AdaptiveMaxPool3dOptions = AdaptiveMaxPoolOptions<ExpandingArrayWithOptionalElem<3>>;

// AdaptiveAvgPool1d/2d/3d: https://pytorch.org/docs/1.13/generated/torch.nn.AdaptiveAvgPool2d.html
template <class OutputSize>
struct AdaptiveAvgPoolOptions {
  AdaptiveAvgPoolOptions(OutputSize output_size) : output_size_(output_size) {}
  AdaptiveAvgPoolOptions(int64_t size)
    requires adaptive_detail::kOptionalSizes<OutputSize>
      : output_size_(adaptive_detail::every_dim<OutputSize>(size)) {}
  auto output_size(int64_t size) -> decltype(*this)
    requires adaptive_detail::kOptionalSizes<OutputSize>
  {
    output_size_ = adaptive_detail::every_dim<OutputSize>(size);
    return *this;
  }
  EMBER_ARG(OutputSize, output_size);
};
using AdaptiveAvgPool1dOptions = AdaptiveAvgPoolOptions<ExpandingArray<1>>;
using AdaptiveAvgPool2dOptions = AdaptiveAvgPoolOptions<ExpandingArrayWithOptionalElem<2>>;
using AdaptiveAvgPool3dOptions = AdaptiveAvgPoolOptions<ExpandingArrayWithOptionalElem<3>>;

// MaxUnpool1d/2d/3d: https://pytorch.org/docs/1.13/generated/torch.nn.MaxUnpool2d.html
template <size_t D>
struct MaxUnpoolOptions {
  MaxUnpoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
};
using MaxUnpool1dOptions = MaxUnpoolOptions<1>;
using MaxUnpool2dOptions = MaxUnpoolOptions<2>;
using MaxUnpool3dOptions = MaxUnpoolOptions<3>;

// LPPool1d/2d: https://pytorch.org/docs/1.13/generated/torch.nn.LPPool2d.html
template <size_t D>
struct LPPoolOptions {
  LPPoolOptions(double norm_type, ExpandingArray<D> kernel_size)
      : norm_type_(norm_type), kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(double, norm_type);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(bool, ceil_mode) = false;
};
using LPPool1dOptions = LPPoolOptions<1>;
using LPPool2dOptions = LPPoolOptions<2>;

namespace functional {

using AvgPool1dFuncOptions = AvgPool1dOptions;
using AvgPool2dFuncOptions = AvgPool2dOptions;
using AvgPool3dFuncOptions = AvgPool3dOptions;
using MaxPool1dFuncOptions = MaxPool1dOptions;
using MaxPool2dFuncOptions = MaxPool2dOptions;
using MaxPool3dFuncOptions = MaxPool3dOptions;
using AdaptiveMaxPool1dFuncOptions = AdaptiveMaxPool1dOptions;
using AdaptiveMaxPool2dFuncOptions = AdaptiveMaxPool2dOptions;
using AdaptiveMaxPool3dFuncOptions = AdaptiveMaxPool3dOptions;
using AdaptiveAvgPool1dFuncOptions = AdaptiveAvgPool1dOptions;
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;
using AdaptiveAvgPool3dFuncOptions = AdaptiveAvgPool3dOptions;
using LPPool1dFuncOptions = LPPool1dOptions;
using LPPool2dFuncOptions = LPPool2dOptions;

// max_unpool1d/2d/3d's options: the module's and the size of the output (its last D dims, or D + 2 dims
// of which the first two are ignored); by default the inverse of the pooling's output size.
template <size_t D>
struct MaxUnpoolFuncOptions {
  MaxUnpoolFuncOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(std::optional<std::vector<int64_t>>, output_size) = std::nullopt;
};
using MaxUnpool1dFuncOptions = MaxUnpoolFuncOptions<1>;
using MaxUnpool2dFuncOptions = MaxUnpoolFuncOptions<2>;
using MaxUnpool3dFuncOptions = MaxUnpoolFuncOptions<3>;

}  // namespace functional

}  // namespace ember::nn
