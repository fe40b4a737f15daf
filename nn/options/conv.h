#pragma once
// Options of the convolution modules and functionals, with LibTorch 1.13's fields and defaults:
// `Conv2dOptions(1, 32, 3).padding(1)`, `ConvTranspose2dOptions(32, 16, 2).stride(2)`,
// `F::Conv2dFuncOptions().padding(ember::kSame)`. https://pytorch.org/docs/1.13/nn.html#convolution-layers
#include <cstdint>
#include <initializer_list>
#include <variant>

#include "nn/arg.h"
#include "nn/enums.h"
#include "nn/expanding_array.h"
#include "tensor/tensor.h"

namespace ember::nn {

namespace detail {

// A padding given as sizes, or as "valid" (none) or "same" (the output keeps the input's size).
template <size_t D>
using conv_padding_t = std::variant<ExpandingArray<D>, enumtype::kValid, enumtype::kSame>;

using conv_padding_mode_t =
    std::variant<enumtype::kZeros, enumtype::kReflect, enumtype::kReplicate, enumtype::kCircular>;

// The options every convolution module has (LibTorch's detail::ConvNdOptions): the fields of
// ConvOptions and ConvTransposeOptions together.
template <size_t D>
struct ConvNdOptions {
  using padding_t = conv_padding_t<D>;
  ConvNdOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(std::move(kernel_size)) {}

  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(padding_t, padding) = ExpandingArray<D>(0);

 public:
  // `padding({1, 2})`: a braced list cannot choose a variant alternative by itself.
  decltype(auto) padding(std::initializer_list<int64_t> sizes) { return padding(padding_t(ExpandingArray<D>(sizes))); }
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(bool, transposed) = false;
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(conv_padding_mode_t, padding_mode) = enumtype::kZeros{};
};

}  // namespace detail

// Options of Conv1d, Conv2d and Conv3d.
template <size_t D>
struct ConvOptions {
  using padding_mode_t = detail::conv_padding_mode_t;
  using padding_t = detail::conv_padding_t<D>;
  ConvOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(std::move(kernel_size)) {}

  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(padding_t, padding) = ExpandingArray<D>(0);

 public:
  decltype(auto) padding(std::initializer_list<int64_t> sizes) { return padding(padding_t(ExpandingArray<D>(sizes))); }
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(padding_mode_t, padding_mode) = enumtype::kZeros{};
};

using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
using Conv3dOptions = ConvOptions<3>;

// Options of ConvTranspose1d, ConvTranspose2d and ConvTranspose3d. Only kZeros padding is implemented
// by PyTorch for transposed convolutions.
template <size_t D>
struct ConvTransposeOptions {
  using padding_mode_t = detail::conv_padding_mode_t;
  ConvTransposeOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(std::move(kernel_size)) {}

  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(padding_mode_t, padding_mode) = enumtype::kZeros{};
};

using ConvTranspose1dOptions = ConvTransposeOptions<1>;
using ConvTranspose2dOptions = ConvTransposeOptions<2>;
using ConvTranspose3dOptions = ConvTransposeOptions<3>;

namespace functional {

// Options of F::conv1d, conv2d and conv3d.
template <size_t D>
struct ConvFuncOptions {
  using padding_t = nn::detail::conv_padding_t<D>;
  EMBER_ARG(Tensor, bias);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(padding_t, padding) = ExpandingArray<D>(0);

 public:
  decltype(auto) padding(std::initializer_list<int64_t> sizes) { return padding(padding_t(ExpandingArray<D>(sizes))); }
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
};

using Conv1dFuncOptions = ConvFuncOptions<1>;
using Conv2dFuncOptions = ConvFuncOptions<2>;
using Conv3dFuncOptions = ConvFuncOptions<3>;

// Options of F::conv_transpose1d, conv_transpose2d and conv_transpose3d.
template <size_t D>
struct ConvTransposeFuncOptions {
  EMBER_ARG(Tensor, bias);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
};

using ConvTranspose1dFuncOptions = ConvTransposeFuncOptions<1>;
using ConvTranspose2dFuncOptions = ConvTransposeFuncOptions<2>;
using ConvTranspose3dFuncOptions = ConvTransposeFuncOptions<3>;

}  // namespace functional

}  // namespace ember::nn
