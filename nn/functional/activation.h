#pragma once
// nn::functional's activations with LibTorch 1.13's signatures
// (https://pytorch.org/docs/1.13/nn.functional.html#non-linear-activation-functions):
//   namespace F = ember::nn::functional;
//   F::elu(x, F::ELUFuncOptions().alpha(0.5));  F::softmax(x, F::SoftmaxFuncOptions(1));
// Functions with an `inplace` option take the input by value, as LibTorch's do, and with inplace(true)
// return it after writing into it.
#include "nn/options/activation.h"
#include "tensor/tensor_api.h"

namespace ember::nn::functional {

Tensor elu(Tensor input, const ELUFuncOptions& options = {});
Tensor selu(Tensor input, const SELUFuncOptions& options = {});
Tensor celu(Tensor input, const CELUFuncOptions& options = {});
Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options = {});
Tensor hardtanh(Tensor input, const HardtanhFuncOptions& options = {});
Tensor leaky_relu(Tensor input, const LeakyReLUFuncOptions& options = {});
Tensor logsigmoid(const Tensor& input);
Tensor gelu(const Tensor& input, const GELUFuncOptions& options = {});
Tensor silu(const Tensor& input);
Tensor mish(const Tensor& input);
// weight: 1 slope, or one per channel (the input's dim 1).
Tensor prelu(const Tensor& input, const Tensor& weight);
Tensor relu(Tensor input, const ReLUFuncOptions& options = {});
Tensor relu6(Tensor input, const ReLU6FuncOptions& options = {});
Tensor rrelu(Tensor input, const RReLUFuncOptions& options = {});
Tensor glu(const Tensor& input, const GLUFuncOptions& options = {});
Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options);
Tensor softmin(const Tensor& input, const SoftminFuncOptions& options);  // softmax(-input)
Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options);
Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options = {});
Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options = {});
Tensor softsign(const Tensor& input);    // input / (|input| + 1)
Tensor tanhshrink(const Tensor& input);  // input - tanh(input)
Tensor threshold(Tensor input, const ThresholdFuncOptions& options);

}  // namespace ember::nn::functional
