#pragma once
// Options of layer norm, group norm and local response norm, as LibTorch 1.13's
// torch::nn::LayerNormOptions, GroupNormOptions, LocalResponseNormOptions and their FuncOptions
// (https://pytorch.org/docs/1.13/generated/torch.nn.LayerNorm.html,
// https://pytorch.org/docs/1.13/generated/torch.nn.GroupNorm.html). NormalizeFuncOptions lives beside
// functional::normalize.
#include <cstdint>
#include <utility>
#include <vector>

#include "nn/arg.h"
#include "tensor/tensor.h"

namespace ember::nn {

// LayerNorm over the last dims, `normalized_shape`; elementwise_affine adds a weight and bias of that shape.
struct LayerNormOptions {
  /* implicit */ LayerNormOptions(std::vector<int64_t> normalized_shape)
      : normalized_shape_(std::move(normalized_shape)) {}
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(bool, elementwise_affine) = true;
};

// GroupNorm: num_channels split into num_groups groups, each normalised per sample.
struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels)
      : num_groups_(num_groups), num_channels_(num_channels) {}
  EMBER_ARG(int64_t, num_groups);
  EMBER_ARG(int64_t, num_channels);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(bool, affine) = true;
};

// LocalResponseNorm: each element divided by (k + alpha * mean of squares over `size` neighbouring
// channels)^beta (https://pytorch.org/docs/1.13/generated/torch.nn.LocalResponseNorm.html).
struct LocalResponseNormOptions {
  /* implicit */ LocalResponseNormOptions(int64_t size) : size_(size) {}
  EMBER_ARG(int64_t, size);
  EMBER_ARG(double, alpha) = 1e-4;
  EMBER_ARG(double, beta) = 0.75;
  EMBER_ARG(double, k) = 1.0;
};

namespace functional {

using LocalResponseNormFuncOptions = LocalResponseNormOptions;

// F::layer_norm(input, LayerNormFuncOptions({4}).weight(w).bias(b)).
struct LayerNormFuncOptions {
  /* implicit */ LayerNormFuncOptions(std::vector<int64_t> normalized_shape)
      : normalized_shape_(std::move(normalized_shape)) {}
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(double, eps) = 1e-5;
};

// F::group_norm(input, GroupNormFuncOptions(2).weight(w).bias(b)).
struct GroupNormFuncOptions {
  /* implicit */ GroupNormFuncOptions(int64_t num_groups) : num_groups_(num_groups) {}
  EMBER_ARG(int64_t, num_groups);
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(double, eps) = 1e-5;
};

}  // namespace functional
}  // namespace ember::nn
