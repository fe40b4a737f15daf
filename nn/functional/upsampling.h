#pragma once
// interpolate as LibTorch 1.13's torch::nn::functional has it: nearest, nearest-exact, linear (3-d
// input), bilinear (4-d input, with or without align_corners) and area (adaptive average pooling), by
// size or by scale_factor (recompute_scale_factor as PyTorch). Each resampling records PyTorch's node
// (UpsampleNearest2DBackward0, UpsampleBilinear2DBackward0, UpsampleLinear1DBackward0, ...) and runs on
// the upsample kernels, forward and backward; the backward is differentiable again. Bicubic, trilinear,
// 5-d inputs and antialias are not implemented (UnsupportedError).
// https://pytorch.org/docs/1.13/generated/torch.nn.functional.interpolate.html
//
//   Tensor y = F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2, 2}));
#include "nn/options/upsampling.h"
#include "tensor/tensor.h"

namespace ember::nn::functional {

Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options = {});

}  // namespace ember::nn::functional
