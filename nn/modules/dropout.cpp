#include "nn/modules/dropout.h"

#include "nn/functional/dropout.h"
#include "nn/repr.h"

namespace ember::nn {

namespace {

void check_probability(double p) {
  if (p < 0 || p > 1) {
    throw Error("dropout probability has to be between 0 and 1, but got " + repr_float(p));
  }
}

// "p=0.5, inplace=False", as Python's dropout modules print their settings.
std::string dropout_repr(const DropoutOptions& options) {
  return "p=" + repr_float(options.p()) + ", inplace=" + repr_bool(options.inplace());
}

}  // namespace

DropoutImpl::DropoutImpl(const DropoutOptions& options) : options(options) { reset(); }
void DropoutImpl::reset() { check_probability(options.p()); }
std::string DropoutImpl::extra_repr() const { return dropout_repr(options); }
Tensor DropoutImpl::forward(const Tensor& input) {
  return functional::dropout(input, functional::DropoutFuncOptions().p(options.p()).training(is_training()).inplace(options.inplace()));
}

Dropout1dImpl::Dropout1dImpl(const Dropout1dOptions& options) : options(options) { reset(); }
void Dropout1dImpl::reset() { check_probability(options.p()); }
std::string Dropout1dImpl::extra_repr() const { return dropout_repr(options); }
Tensor Dropout1dImpl::forward(const Tensor& input) {
  return functional::dropout1d(input, functional::Dropout1dFuncOptions().p(options.p()).training(is_training()).inplace(options.inplace()));
}

Dropout2dImpl::Dropout2dImpl(const Dropout2dOptions& options) : options(options) { reset(); }
void Dropout2dImpl::reset() { check_probability(options.p()); }
std::string Dropout2dImpl::extra_repr() const { return dropout_repr(options); }
Tensor Dropout2dImpl::forward(const Tensor& input) {
  return functional::dropout2d(input, functional::Dropout2dFuncOptions().p(options.p()).training(is_training()).inplace(options.inplace()));
}

}  // namespace ember::nn
