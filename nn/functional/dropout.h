#pragma once
// Dropout and its channel-wise and self-normalising forms, as LibTorch 1.13's
// torch::nn::functional::dropout, dropout2d, dropout3d, alpha_dropout and feature_alpha_dropout, and
// PyTorch's dropout1d (https://pytorch.org/docs/1.13/nn.functional.html#dropout-functions).
//
//   auto h = F::dropout(x, F::DropoutFuncOptions().p(0.2).training(true));
//
// In training each element is zeroed with probability p and the rest scaled by 1 / (1 - p); in eval the
// input comes back unchanged (the same tensor), as it does for p = 0. dropout is one kernel that draws
// the mask from the default Philox generator and keeps it as bits; its node is NativeDropoutBackward0
// (PyTorch's on CUDA, whose fused kernel this is; PyTorch's CPU composes it as a MulBackward0). The
// channel-wise and alpha forms are PyTorch's compositions (bernoulli noise, then mul and add).
#include "nn/options/dropout.h"
#include "tensor/tensor.h"

namespace ember::nn::functional {

Tensor dropout(Tensor input, const DropoutFuncOptions& options = {});
// Channel-wise: whole channels (dim 1 of a batched input) are zeroed together.
Tensor dropout1d(Tensor input, const Dropout1dFuncOptions& options = {});
Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& options = {});
Tensor dropout3d(Tensor input, const Dropout3dFuncOptions& options = {});
// Keeps the input's mean and variance for SELU networks.
Tensor alpha_dropout(Tensor input, const AlphaDropoutFuncOptions& options = {});
Tensor feature_alpha_dropout(Tensor input, const FeatureAlphaDropoutFuncOptions& options = {});

namespace detail {
Tensor dropout(Tensor input, double p, bool training, bool inplace);
}  // namespace detail

}  // namespace ember::nn::functional
