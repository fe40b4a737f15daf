#pragma once
// nn::functional::linear and bilinear (https://pytorch.org/docs/1.13/nn.functional.html#linear-functions).
#include "tensor/tensor_api.h"

namespace ember::nn::functional {

// input @ weight^T + bias over any leading dims; a 2-d input with a bias is one addmm (AddmmBackward0).
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});
// x1^T weight[o] x2 + bias[o] for each output feature o; inputs (*, in1) and (*, in2), weight
// (out, in1, in2).
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias = {});

}  // namespace ember::nn::functional
