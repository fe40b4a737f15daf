#include "nn/modules/activation.h"

#include <cmath>

#include "nn/functional/activation.h"
#include "nn/repr.h"

namespace ember::nn {

namespace {

namespace F = functional;

// Python prints `, inplace=True` after other options, and `inplace=True` alone, only when it is set.
std::string inplace_suffix(bool inplace) { return inplace ? ", inplace=True" : ""; }
std::string inplace_only(bool inplace) { return inplace ? "inplace=True" : ""; }

// An option whose Python default is an int (Softplus's beta and threshold), or that has no default and
// whose documented example is one (Threshold's): Python prints what it was given, and ints are what
// users give there, so integral values print as ints ("20") and the others as floats ("0.1").
std::string repr_number(double value) {
  if (std::isfinite(value) && value == std::trunc(value) && std::fabs(value) < 1e16) {
    return std::to_string(static_cast<int64_t>(value));
  }
  return repr_float(value);
}

}  // namespace

std::string ELUImpl::extra_repr() const {
  return "alpha=" + repr_float(options.alpha()) + inplace_suffix(options.inplace());
}
Tensor ELUImpl::forward(Tensor input) { return F::elu(input, options); }

std::string SELUImpl::extra_repr() const { return inplace_only(options.inplace()); }
Tensor SELUImpl::forward(Tensor input) { return F::selu(input, options); }

std::string CELUImpl::extra_repr() const {
  return "alpha=" + repr_float(options.alpha()) + inplace_suffix(options.inplace());
}
Tensor CELUImpl::forward(Tensor input) { return F::celu(input, options); }

std::string GLUImpl::extra_repr() const { return "dim=" + std::to_string(options.dim()); }
Tensor GLUImpl::forward(const Tensor& input) { return F::glu(input, options); }

std::string GELUImpl::extra_repr() const { return "approximate='" + options.approximate() + "'"; }
Tensor GELUImpl::forward(const Tensor& input) { return F::gelu(input, options); }

std::string HardshrinkImpl::extra_repr() const { return repr_float(options.lambda()); }
Tensor HardshrinkImpl::forward(const Tensor& input) { return F::hardshrink(input, options); }

HardtanhImpl::HardtanhImpl(const HardtanhOptions& options) : options(options) { reset(); }
void HardtanhImpl::reset() {
  if (!(options.max_val() > options.min_val())) throw Error("max_val must be greater than min_val");
}
std::string HardtanhImpl::extra_repr() const {
  return "min_val=" + repr_float(options.min_val()) + ", max_val=" + repr_float(options.max_val()) +
         inplace_suffix(options.inplace());
}
Tensor HardtanhImpl::forward(Tensor input) { return F::hardtanh(input, options); }

std::string LeakyReLUImpl::extra_repr() const {
  return "negative_slope=" + repr_float(options.negative_slope()) + inplace_suffix(options.inplace());
}
Tensor LeakyReLUImpl::forward(Tensor input) { return F::leaky_relu(input, options); }

Tensor LogSigmoidImpl::forward(const Tensor& input) { return F::logsigmoid(input); }

PReLUImpl::PReLUImpl(const PReLUOptions& options) : options(options) { reset(); }
void PReLUImpl::reset() { weight = register_parameter("weight", full({options.num_parameters()}, options.init())); }
std::string PReLUImpl::extra_repr() const { return "num_parameters=" + std::to_string(options.num_parameters()); }
Tensor PReLUImpl::forward(const Tensor& input) { return F::prelu(input, weight); }

std::string ReLUImpl::extra_repr() const { return inplace_only(options.inplace()); }
Tensor ReLUImpl::forward(Tensor input) { return F::relu(input, options); }

std::string ReLU6Impl::extra_repr() const { return inplace_only(options.inplace()); }
Tensor ReLU6Impl::forward(Tensor input) { return F::relu6(input, options); }

std::string RReLUImpl::extra_repr() const {
  return "lower=" + repr_float(options.lower()) + ", upper=" + repr_float(options.upper()) +
         inplace_suffix(options.inplace());
}
Tensor RReLUImpl::forward(Tensor input) {
  return F::rrelu(input, F::RReLUFuncOptions()
                             .lower(options.lower())
                             .upper(options.upper())
                             .training(is_training())
                             .inplace(options.inplace()));
}

Tensor SiLUImpl::forward(const Tensor& input) { return F::silu(input); }

Tensor MishImpl::forward(const Tensor& input) { return F::mish(input); }

Tensor SigmoidImpl::forward(const Tensor& input) { return input.sigmoid(); }

Tensor TanhImpl::forward(const Tensor& input) { return input.tanh(); }

std::string SoftmaxImpl::extra_repr() const { return "dim=" + std::to_string(options.dim()); }
Tensor SoftmaxImpl::forward(const Tensor& input) { return F::softmax(input, options.dim()); }

std::string SoftminImpl::extra_repr() const { return "dim=" + std::to_string(options.dim()); }
Tensor SoftminImpl::forward(const Tensor& input) { return F::softmin(input, options.dim()); }

std::string LogSoftmaxImpl::extra_repr() const { return "dim=" + std::to_string(options.dim()); }
Tensor LogSoftmaxImpl::forward(const Tensor& input) { return F::log_softmax(input, options.dim()); }

Tensor Softmax2dImpl::forward(const Tensor& input) {
  if (input.dim() != 3 && input.dim() != 4) throw Error("Softmax2d requires a 3D or 4D tensor as input");
  return input.softmax(-3);
}

std::string SoftplusImpl::extra_repr() const {
  return "beta=" + repr_number(options.beta()) + ", threshold=" + repr_number(options.threshold());
}
Tensor SoftplusImpl::forward(const Tensor& input) { return F::softplus(input, options); }

std::string SoftshrinkImpl::extra_repr() const { return repr_float(options.lambda()); }
Tensor SoftshrinkImpl::forward(const Tensor& input) { return F::softshrink(input, options); }

Tensor SoftsignImpl::forward(const Tensor& input) { return F::softsign(input); }

Tensor TanhshrinkImpl::forward(const Tensor& input) { return F::tanhshrink(input); }

std::string ThresholdImpl::extra_repr() const {
  return "threshold=" + repr_number(options.threshold()) + ", value=" + repr_number(options.value()) +
         inplace_suffix(options.inplace());
}
Tensor ThresholdImpl::forward(Tensor input) { return F::threshold(input, options); }

Tensor HardsigmoidImpl::forward(const Tensor& input) { return ember::hardsigmoid(input); }

Tensor HardswishImpl::forward(const Tensor& input) { return ember::hardswish(input); }

}  // namespace ember::nn
