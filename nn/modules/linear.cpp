#include "nn/modules/linear.h"

#include <cmath>

#include "nn/functional/linear.h"
#include "nn/init.h"
#include "nn/repr.h"

namespace ember::nn {

LinearImpl::LinearImpl(const LinearOptions& options) : options(options) { reset(); }

void LinearImpl::reset() {
  weight = register_parameter("weight", empty({options.out_features(), options.in_features()}));
  bias = register_parameter("bias", options.bias() ? empty({options.out_features()}) : Tensor(), options.bias());
  reset_parameters();
}

void LinearImpl::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const auto [fan_in, fan_out] = init::_calculate_fan_in_and_fan_out(weight);
    const double bound = fan_in > 0 ? 1 / std::sqrt(double(fan_in)) : 0;
    init::uniform_(bias, -bound, bound);
  }
}

std::string LinearImpl::extra_repr() const {
  return "in_features=" + std::to_string(options.in_features()) + ", out_features=" +
         std::to_string(options.out_features()) + ", bias=" + repr_bool(options.bias());
}

Tensor LinearImpl::forward(const Tensor& input) { return functional::linear(input, weight, bias); }

BilinearImpl::BilinearImpl(const BilinearOptions& options) : options(options) { reset(); }

void BilinearImpl::reset() {
  weight = register_parameter("weight",
                              empty({options.out_features(), options.in1_features(), options.in2_features()}));
  bias = register_parameter("bias", options.bias() ? empty({options.out_features()}) : Tensor(), options.bias());
  reset_parameters();
}

void BilinearImpl::reset_parameters() {
  const double bound = 1 / std::sqrt(double(weight.size(1)));
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}

std::string BilinearImpl::extra_repr() const {
  return "in1_features=" + std::to_string(options.in1_features()) + ", in2_features=" +
         std::to_string(options.in2_features()) + ", out_features=" + std::to_string(options.out_features()) +
         ", bias=" + repr_bool(options.bias());
}

Tensor BilinearImpl::forward(const Tensor& input1, const Tensor& input2) {
  return functional::bilinear(input1, input2, weight, bias);
}

std::string FlattenImpl::extra_repr() const {
  return "start_dim=" + std::to_string(options.start_dim()) + ", end_dim=" + std::to_string(options.end_dim());
}

Tensor FlattenImpl::forward(const Tensor& input) { return input.flatten(options.start_dim(), options.end_dim()); }

std::string UnflattenImpl::extra_repr() const {
  return "dim=" + std::to_string(options.dim()) + ", unflattened_size=" + repr_tuple(options.sizes());
}

Tensor UnflattenImpl::forward(const Tensor& input) { return input.unflatten(options.dim(), options.sizes()); }

}  // namespace ember::nn
