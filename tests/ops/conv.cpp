// Rows for the convolution family against LibTorch's torch::nn::functional: conv1d/2d/3d,
// conv_transpose1d/2d/3d, pad in every mode, unfold and fold.
#include <torch/nn/functional/conv.h>
#include <torch/nn/functional/fold.h>
#include <torch/nn/functional/padding.h>

#include "nn/functional/conv.h"
#include "nn/functional/fold.h"
#include "nn/functional/padding.h"
#include "tests/op_registry.h"

namespace ember::test {
namespace {

namespace EF = ember::nn::functional;
namespace TF = torch::nn::functional;

struct ConvParams {
  int64_t stride = 1, padding = 0, dilation = 1, groups = 1, output_padding = 0;
  bool transposed = false;
  bool same = false;  // padding "same"
};

template <class Options, class Tensor_>
Options conv_options(const Tensor_& bias, const ConvParams& p) {
  Options o;
  o.stride(p.stride).dilation(p.dilation).groups(p.groups);
  if (bias.defined()) o.bias(bias);
  return o;
}

Tensor conv_of(const Tensor& x, const Tensor& w, const Tensor& b, const ConvParams& p) {
  const int64_t d = w.dim() - 2;
  if (p.transposed) {
    auto set = [&](auto o) {
      o.padding(p.padding).output_padding(p.output_padding);
      return o;
    };
    if (d == 1) return EF::conv_transpose1d(x, w, set(conv_options<EF::ConvTranspose1dFuncOptions>(b, p)));
    if (d == 2) return EF::conv_transpose2d(x, w, set(conv_options<EF::ConvTranspose2dFuncOptions>(b, p)));
    return EF::conv_transpose3d(x, w, set(conv_options<EF::ConvTranspose3dFuncOptions>(b, p)));
  }
  auto set = [&](auto o) {
    if (p.same) o.padding(kSame);
    else o.padding(p.padding);
    return o;
  };
  if (d == 1) return EF::conv1d(x, w, set(conv_options<EF::Conv1dFuncOptions>(b, p)));
  if (d == 2) return EF::conv2d(x, w, set(conv_options<EF::Conv2dFuncOptions>(b, p)));
  return EF::conv3d(x, w, set(conv_options<EF::Conv3dFuncOptions>(b, p)));
}

at::Tensor conv_of(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b, const ConvParams& p) {
  const int64_t d = w.dim() - 2;
  if (p.transposed) {
    auto set = [&](auto o) {
      o.padding(p.padding).output_padding(p.output_padding);
      return o;
    };
    if (d == 1) return TF::conv_transpose1d(x, w, set(conv_options<TF::ConvTranspose1dFuncOptions>(b, p)));
    if (d == 2) return TF::conv_transpose2d(x, w, set(conv_options<TF::ConvTranspose2dFuncOptions>(b, p)));
    return TF::conv_transpose3d(x, w, set(conv_options<TF::ConvTranspose3dFuncOptions>(b, p)));
  }
  auto set = [&](auto o) {
    if (p.same) o.padding(torch::kSame);
    else o.padding(p.padding);
    return o;
  };
  if (d == 1) return TF::conv1d(x, w, set(conv_options<TF::Conv1dFuncOptions>(b, p)));
  if (d == 2) return TF::conv2d(x, w, set(conv_options<TF::Conv2dFuncOptions>(b, p)));
  return TF::conv3d(x, w, set(conv_options<TF::Conv3dFuncOptions>(b, p)));
}

enum class PadMode { Constant, Reflect, Replicate, Circular };

Tensor pad_of(const Tensor& x, std::vector<int64_t> pad, PadMode mode, double value = 0) {
  EF::PadFuncOptions o(std::move(pad));
  switch (mode) {
    case PadMode::Constant: o.mode(kConstant).value(value); break;
    case PadMode::Reflect: o.mode(kReflect); break;
    case PadMode::Replicate: o.mode(kReplicate); break;
    case PadMode::Circular: o.mode(kCircular); break;
  }
  return EF::pad(x, o);
}

at::Tensor pad_of(const at::Tensor& x, std::vector<int64_t> pad, PadMode mode, double value = 0) {
  TF::PadFuncOptions o(std::move(pad));
  switch (mode) {
    case PadMode::Constant: o.mode(torch::kConstant).value(value); break;
    case PadMode::Reflect: o.mode(torch::kReflect); break;
    case PadMode::Replicate: o.mode(torch::kReplicate); break;
    case PadMode::Circular: o.mode(torch::kCircular); break;
  }
  return TF::pad(x, o);
}

Tensor unfold_of(const Tensor& x) { return EF::unfold(x, EF::UnfoldFuncOptions({2, 3}).padding({1, 0}).stride({1, 2})); }
at::Tensor unfold_of(const at::Tensor& x) {
  return TF::unfold(x, TF::UnfoldFuncOptions({2, 3}).padding({1, 0}).stride({1, 2}));
}
Tensor fold_of(const Tensor& x) {
  return EF::fold(x, EF::FoldFuncOptions({4, 5}, {2, 2}).dilation({1, 2}).padding(1).stride({2, 1}));
}
at::Tensor fold_of(const at::Tensor& x) {
  return TF::fold(x, TF::FoldFuncOptions({4, 5}, {2, 2}).dilation({1, 2}).padding(1).stride({2, 1}));
}

OpRow conv_row(std::string name, ConvParams p, std::vector<Shapes> cases) {
  return op(std::move(name), 3, [p](const auto& x) { return conv_of(x[0], x[1], x[2], p); })
      .with_dtypes(kFloating)
      .in_range(-1, 1)
      .with_cases(std::move(cases));
}

EMBER_OP_ROWS(conv_rows) {
  return {
      conv_row("conv2d", {1, 1}, {{{2, 3, 5, 6}, {4, 3, 3, 3}, {4}}, {{3, 6, 5}, {2, 3, 2, 2}, {2}}}).grad2(),
      // LibTorch's backward refuses a broadcast empty batch (a view it cannot make).
      conv_row("conv2d empty batch", {1, 1}, {{{0, 3, 4, 4}, {2, 3, 3, 3}, {2}}}).without_broadcast_layout().grad(),
      conv_row("conv2d stride dilation groups", {2, 1, 2, 2}, {{{2, 4, 7, 6}, {6, 2, 3, 2}, {6}}}).grad(),
      conv_row("conv2d depthwise", {1, 1, 1, 3}, {{{2, 3, 6, 5}, {3, 1, 3, 3}, {3}}}).grad(),
      conv_row("conv2d same", {.same = true}, {{{2, 2, 5, 6}, {3, 2, 2, 3}, {3}}}).grad(),
      conv_row("conv1d", {2, 1, 2}, {{{2, 3, 9}, {4, 3, 3}, {4}}, {{3, 8}, {2, 3, 2}, {2}}}).grad(),
      conv_row("conv3d", {1, 1}, {{{1, 2, 4, 3, 5}, {3, 2, 2, 3, 2}, {3}}}).grad(),
      conv_row("conv_transpose2d", {2, 1, 1, 1, 1, true}, {{{2, 4, 3, 4}, {4, 3, 3, 2}, {3}}, {{4, 2, 3}, {4, 2, 2, 2}, {2}}})
          .grad2(),
      conv_row("conv_transpose1d", {3, 1, 2, 2, 1, true}, {{{2, 4, 5}, {4, 1, 3}, {2}}}).grad(),
      conv_row("conv_transpose3d", {2, 0, 1, 1, 0, true}, {{{1, 2, 2, 3, 2}, {2, 2, 2, 2, 2}, {2}}}).grad(),
      op("pad constant", [](const auto& x) { return pad_of(x[0], {1, 2, -1, 1}, PadMode::Constant, 0.5); })
          .with_dtypes(kNumeric)
          .with_cases({{{2, 3, 4}}, {{3, 5}}})
          .grad2(),
      op("pad reflect 1d", [](const auto& x) { return pad_of(x[0], {2, 1}, PadMode::Reflect); })
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 4}}, {{3, 5}}})
          .grad2(),
      op("pad reflect 2d", [](const auto& x) { return pad_of(x[0], {1, 2, 2, 0}, PadMode::Reflect); })
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 4, 5}}, {{2, 3, 4}}})
          .grad(),
      op("pad replicate 3d", [](const auto& x) { return pad_of(x[0], {1, 3, 0, 2, 2, 1}, PadMode::Replicate); })
          .with_dtypes(kFloating)
          .with_cases({{{1, 2, 3, 2, 2}}, {{2, 2, 3, 2}}})
          .grad(),
      op("pad replicate 2d", [](const auto& x) { return pad_of(x[0], {3, 0, 1, 1}, PadMode::Replicate); })
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 4, 5}}})
          .grad(),
      op("pad circular 2d", [](const auto& x) { return pad_of(x[0], {1, 2, 2, 0}, PadMode::Circular); })
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 4, 5}}})
          .grad(),
      op("nn unfold", [](const auto& x) { return unfold_of(x[0]); })
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 4, 5}}, {{0, 2, 3, 4}}})
          .grad2(),
      op("nn fold", [](const auto& x) { return fold_of(x[0]); })
          .with_dtypes(kFloating)
          .with_cases({{{2, 12, 15}}, {{8, 15}}})
          .grad2(),
  };
}

}  // namespace
}  // namespace ember::test
