// Activations that are tensor ops in LibTorch's namespace: relu, gelu (exact and tanh), silu,
// leaky_relu and threshold, with their in-place forms. Each records itself with its entry of the
// formula table (unary_formulas.cpp).
#include <string>

#include "tensor/elementwise_support.h"

namespace ember {

namespace {

using detail::recorded_unary;
using detail::UnaryKind;

// PyTorch's message for an activation whose kernel takes floating inputs only.
void require_floating(const Tensor& x, const char* kernel) {
  if (!x.is_floating_point()) {
    throw Error(std::string("\"") + kernel + "\" not implemented for '" + scalar_type_name(x.dtype()) + "'");
  }
}

UnaryArgs threshold_args(const Tensor& x, Scalar threshold, Scalar value) {
  if (x.dtype() == DType::Bool) throw Error("\"threshold_cpu\" not implemented for 'Bool'");
  detail::check_scalar_fits(threshold, x.dtype());
  detail::check_scalar_fits(value, x.dtype());
  return {.op = UnaryOp::Threshold, .threshold = threshold, .value = value};
}

}  // namespace

Tensor Tensor::relu() const {
  if (dtype() == DType::Bool) throw Error("Boolean inputs not supported for relu");
  return recorded_unary(UnaryOp::Relu, UnaryKind::SameType, *this);
}

Tensor& Tensor::relu_() {
  if (dtype() == DType::Bool) throw Error("Boolean inputs not supported for relu");
  return detail::inplace(*this, {}, [](const Tensor& old) { return old.relu(); },
                         [&] { detail::unary_(UnaryOp::Relu, UnaryKind::SameType, *this); });
}

Tensor Tensor::gelu(std::string_view approximate) const {
  if (approximate == "none") return recorded_unary(UnaryOp::Gelu, UnaryKind::FloatOnlySame, *this);
  if (approximate == "tanh") return recorded_unary(UnaryOp::GeluTanh, UnaryKind::FloatOnlySame, *this);
  throw Error("approximate argument must be either none or tanh.");
}

Tensor Tensor::silu() const { return recorded_unary(UnaryOp::Silu, UnaryKind::Floating, *this); }

Tensor leaky_relu(const Tensor& x, Scalar negative_slope) {
  require_floating(x, "leaky_relu_cpu");
  return recorded_unary({.op = UnaryOp::LeakyRelu, .negative_slope = negative_slope}, UnaryKind::SameType, x);
}

Tensor& leaky_relu_(Tensor& x, Scalar negative_slope) {
  require_floating(x, "leaky_relu_cpu");
  return detail::inplace(x, {}, [&](const Tensor& old) { return leaky_relu(old, negative_slope); }, [&] {
    detail::run_unary({.op = UnaryOp::LeakyRelu, .negative_slope = negative_slope}, UnaryKind::SameType, x, &x);
  });
}

Tensor threshold(const Tensor& x, Scalar threshold, Scalar value) {
  return recorded_unary(threshold_args(x, threshold, value), UnaryKind::SameType, x);
}

Tensor& threshold_(Tensor& x, Scalar threshold, Scalar value) {
  const UnaryArgs args = threshold_args(x, threshold, value);
  return detail::inplace(x, {}, [&](const Tensor& old) { return ember::threshold(old, threshold, value); },
                         [&] { detail::run_unary(args, UnaryKind::SameType, x, &x); });
}

Tensor relu(const Tensor& x) { return x.relu(); }

}  // namespace ember
