#pragma once
// Options of Fold and Unfold and of F::fold and F::unfold, with LibTorch 1.13's fields and defaults:
// `F::UnfoldFuncOptions({2, 3}).stride(2)`, `F::FoldFuncOptions({4, 5}, {2, 2})`.
// https://pytorch.org/docs/1.13/generated/torch.nn.Fold.html
#include "nn/arg.h"
#include "nn/expanding_array.h"

namespace ember::nn {

struct FoldOptions {
  FoldOptions(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : output_size_(output_size), kernel_size_(kernel_size) {}
  EMBER_ARG(ExpandingArray<2>, output_size);
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(ExpandingArray<2>, stride) = 1;
};

struct UnfoldOptions {
  UnfoldOptions(ExpandingArray<2> kernel_size) : kernel_size_(kernel_size) {}
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(ExpandingArray<2>, stride) = 1;
};

namespace functional {
using FoldFuncOptions = FoldOptions;
using UnfoldFuncOptions = UnfoldOptions;
}  // namespace functional

}  // namespace ember::nn
