#include "nn/modules/padding.h"

#include "nn/functional/padding.h"

namespace ember::nn {

namespace {

Tensor pad_with(const Tensor& input, IntArrayRef padding, functional::PadFuncOptions::mode_t mode, double value = 0) {
  return functional::pad(input, functional::PadFuncOptions(padding.vec()).mode(mode).value(value));
}

}  // namespace

template <size_t D>
Tensor ReflectionPadImpl<D>::forward(const Tensor& input) {
  return pad_with(input, options.padding(), kReflect);
}

template <size_t D>
Tensor ReplicationPadImpl<D>::forward(const Tensor& input) {
  return pad_with(input, options.padding(), kReplicate);
}

template <size_t D>
Tensor ConstantPadImpl<D>::forward(const Tensor& input) {
  return pad_with(input, options.padding(), kConstant, options.value());
}

Tensor ZeroPad2dImpl::forward(const Tensor& input) { return pad_with(input, options.padding(), kConstant); }

template class ReflectionPadImpl<1>;
template class ReflectionPadImpl<2>;
template class ReflectionPadImpl<3>;
template class ReplicationPadImpl<1>;
template class ReplicationPadImpl<2>;
template class ReplicationPadImpl<3>;
template class ConstantPadImpl<1>;
template class ConstantPadImpl<2>;
template class ConstantPadImpl<3>;

}  // namespace ember::nn
