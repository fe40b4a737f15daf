#include "nn/functional/activation.h"

#include "runtime/error.h"

namespace ember::nn::functional {

Tensor elu(Tensor input, const ELUFuncOptions& options) {
  if (options.inplace()) return ember::elu_(input, options.alpha());
  return ember::elu(input, options.alpha());
}

Tensor selu(Tensor input, const SELUFuncOptions& options) {
  if (options.inplace()) return ember::selu_(input);
  return ember::selu(input);
}

Tensor celu(Tensor input, const CELUFuncOptions& options) {
  if (options.inplace()) return ember::celu_(input, options.alpha());
  return ember::celu(input, options.alpha());
}

Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options) {
  return input.hardshrink(options.lambda());
}

Tensor hardtanh(Tensor input, const HardtanhFuncOptions& options) {
  if (options.inplace()) return ember::hardtanh_(input, options.min_val(), options.max_val());
  return ember::hardtanh(input, options.min_val(), options.max_val());
}

Tensor leaky_relu(Tensor input, const LeakyReLUFuncOptions& options) {
  if (options.inplace()) return ember::leaky_relu_(input, options.negative_slope());
  return ember::leaky_relu(input, options.negative_slope());
}

Tensor logsigmoid(const Tensor& input) { return ember::log_sigmoid(input); }

Tensor gelu(const Tensor& input, const GELUFuncOptions& options) { return input.gelu(options.approximate()); }

Tensor silu(const Tensor& input) { return input.silu(); }

Tensor mish(const Tensor& input) { return ember::mish(input); }

Tensor prelu(const Tensor& input, const Tensor& weight) { return input.prelu(weight); }

Tensor relu(Tensor input, const ReLUFuncOptions& options) {
  if (options.inplace()) return input.relu_();
  return input.relu();
}

Tensor relu6(Tensor input, const ReLU6FuncOptions& options) {
  if (options.inplace()) return ember::relu6_(input);
  return ember::relu6(input);
}

Tensor rrelu(Tensor input, const RReLUFuncOptions& options) {
  if (options.inplace()) return ember::rrelu_(input, options.lower(), options.upper(), options.training());
  return ember::rrelu(input, options.lower(), options.upper(), options.training());
}

Tensor glu(const Tensor& input, const GLUFuncOptions& options) {
  // LibTorch 1.13's functional checks this itself, with its own spelling, before torch::glu does.
  if (input.dim() == 0) throw Error("glu does not suppport scalars because halving size must be even");
  return ember::glu(input, options.dim());
}

Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options) {
  return input.softmax(options.dim(), options.dtype());
}

Tensor softmin(const Tensor& input, const SoftminFuncOptions& options) {
  return (-input).softmax(options.dim(), options.dtype());
}

Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options) {
  return input.log_softmax(options.dim(), options.dtype());
}

Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options) {
  return ember::softplus(input, options.beta(), options.threshold());
}

Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options) {
  return ember::softshrink(input, options.lambda());
}

Tensor softsign(const Tensor& input) { return input / (input.abs() + 1); }

Tensor tanhshrink(const Tensor& input) { return input - input.tanh(); }

Tensor threshold(Tensor input, const ThresholdFuncOptions& options) {
  if (options.inplace()) return ember::threshold_(input, options.threshold(), options.value());
  return ember::threshold(input, options.threshold(), options.value());
}

}  // namespace ember::nn::functional
