#pragma once
// normalize as LibTorch 1.13's torch::nn::functional has it: input / max(||input||_p along dim, eps),
// a composition whose node is PyTorch's (DivBackward0).
// https://pytorch.org/docs/1.13/generated/torch.nn.functional.normalize.html
//
//   Tensor unit = F::normalize(x, F::NormalizeFuncOptions().dim(-1));
#include "nn/options/normalize.h"
#include "tensor/tensor.h"

namespace ember::nn::functional {

Tensor normalize(const Tensor& input, NormalizeFuncOptions options = {});

}  // namespace ember::nn::functional
