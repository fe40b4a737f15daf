#pragma once
// Options of dropout, as LibTorch 1.13's torch::nn::DropoutOptions and the functional options
// (https://pytorch.org/docs/1.13/generated/torch.nn.Dropout.html). Dropout1d's options, which LibTorch
// 1.13 lacks, are PyTorch's.
#include "nn/arg.h"

namespace ember::nn {

// Dropout, Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout: p is the probability of a zero.
struct DropoutOptions {
  /* implicit */ DropoutOptions(double p = 0.5) : p_(p) {}
  EMBER_ARG(double, p) = 0.5;
  EMBER_ARG(bool, inplace) = false;
};

using Dropout1dOptions = DropoutOptions;
using Dropout2dOptions = DropoutOptions;
using Dropout3dOptions = DropoutOptions;
using AlphaDropoutOptions = DropoutOptions;
using FeatureAlphaDropoutOptions = DropoutOptions;

namespace functional {

// F::dropout(x, DropoutFuncOptions().p(0.2).training(is_training())).
struct DropoutFuncOptions {
  EMBER_ARG(double, p) = 0.5;
  EMBER_ARG(bool, training) = true;
  EMBER_ARG(bool, inplace) = false;
};

using Dropout1dFuncOptions = DropoutFuncOptions;
using Dropout2dFuncOptions = DropoutFuncOptions;
using Dropout3dFuncOptions = DropoutFuncOptions;

// The alpha dropouts default to training = false, as LibTorch's.
struct AlphaDropoutFuncOptions {
  EMBER_ARG(double, p) = 0.5;
  EMBER_ARG(bool, training) = false;
  EMBER_ARG(bool, inplace) = false;
};

struct FeatureAlphaDropoutFuncOptions {
  EMBER_ARG(double, p) = 0.5;
  EMBER_ARG(bool, training) = false;
  EMBER_ARG(bool, inplace) = false;
};

}  // namespace functional
}  // namespace ember::nn
