// Activations that are tensor ops in LibTorch's namespace: relu, gelu (exact and tanh), silu,
// leaky_relu, threshold, hardtanh and relu6, hardsigmoid, hardswish, hardshrink, softshrink, softplus,
// log_sigmoid and mish, with the in-place forms PyTorch has. Each records itself with its entry of the
// formula table (unary_formulas.cpp), except hardtanh, whose kernel is clamp's. elu, selu and celu are
// in activation_elu.cpp; prelu, rrelu and glu in activation_composite.cpp.
#include <sstream>
#include <string>

#include "tensor/autocast.h"
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

// PyTorch's hardtanh is clamp without promotion: integral inputs take the bounds as integers.
UnaryArgs hardtanh_args(const Tensor& x, Scalar min_val, Scalar max_val) {
  if (x.dtype() == DType::Bool) throw Error("Bool inputs not supported for hardtanh");
  if (!x.is_floating_point()) {
    min_val = min_val.to_int64();
    max_val = max_val.to_int64();
    if (x.dtype() == DType::UInt8 && (min_val.to_int64() < 0 || max_val.to_int64() < 0)) {
      throw Error("cannot do hardtanh on an unsigned type with negative limits");
    }
  }
  detail::check_scalar_fits(min_val, x.dtype());
  detail::check_scalar_fits(max_val, x.dtype());
  return {.op = UnaryOp::Clamp, .min = min_val, .max = max_val};
}

// A double as PyTorch's messages print it (C++ streams: "-0.5", "1e-05").
std::string message_number(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
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

namespace detail {

Tensor leaky_relu_grad_of_result(const Tensor& g, const Tensor& y, double negative_slope) {
  if (negative_slope < 0) {
    throw Error("In-place leakyReLu backward calculation is triggered with a negative slope which is not "
                "supported. This is caused by calling in-place forward function with a negative slope, please "
                "call out-of-place version instead. File an issue at https://github.com/pytorch/pytorch if you "
                "do require supporting in-place leakRelu backward calculation with negative slope");
  }
  return ember::where(y > 0, g, g * negative_slope);
}

}  // namespace detail

// leaky_relu_ records LeakyReluBackward1, whose formula reads the result, as PyTorch's.
Tensor& leaky_relu_(Tensor& x, Scalar negative_slope) {
  require_floating(x, "leaky_relu_cpu");
  const UnaryArgs args{.op = UnaryOp::LeakyRelu, .negative_slope = negative_slope};
  const auto of_result = [&](const Tensor& old) {
    autograd::Record rec("LeakyReluBackward1", {&old});
    Tensor out = detail::run_unary(args, UnaryKind::SameType, old, nullptr);
    if (!rec) return out;
    rec.save_output(out);
    const double slope = negative_slope.to_double();
    return rec.finish(out, [slope](autograd::FunctionNode& node, const autograd::tensor_list& g) {
      return autograd::tensor_list{detail::leaky_relu_grad_of_result(g[0], node.saved(0), slope)};
    });
  };
  return detail::inplace(x, {}, of_result, [&] { detail::run_unary(args, UnaryKind::SameType, x, &x); });
}

Tensor threshold(const Tensor& x, Scalar threshold, Scalar value) {
  return recorded_unary(threshold_args(x, threshold, value), UnaryKind::SameType, x);
}

// threshold_ records ThresholdBackward1, with threshold's formula of the input.
Tensor& threshold_(Tensor& x, Scalar threshold, Scalar value) {
  const UnaryArgs args = threshold_args(x, threshold, value);
  const auto recorded = [&](const Tensor& old) {
    autograd::Record rec("ThresholdBackward1", {&old});
    Tensor out = detail::run_unary(args, UnaryKind::SameType, old, nullptr);
    if (!rec) return out;
    rec.save(old);
    return rec.finish(out, [threshold](autograd::FunctionNode& node, const autograd::tensor_list& g) {
      return autograd::tensor_list{ember::where(node.saved(0) <= threshold, 0, g[0])};
    });
  };
  return detail::inplace(x, {}, recorded, [&] { detail::run_unary(args, UnaryKind::SameType, x, &x); });
}

Tensor relu(const Tensor& x) { return x.relu(); }

// HardtanhBackward0 for hardtanh and relu6 alike: no gradient at or beyond either bound; NaN keeps it.
Tensor hardtanh(const Tensor& x, Scalar min_val, Scalar max_val) {
  const UnaryArgs args = hardtanh_args(x, min_val, max_val);
  autograd::Record rec("HardtanhBackward0", {&x});
  Tensor out = detail::run_unary(args, UnaryKind::SameType, x, nullptr);
  if (!rec) return out;
  rec.save(x);
  return rec.finish(out, [min_val, max_val](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    const Tensor x = node.saved(0);
    return autograd::tensor_list{ember::where(x.le(min_val).logical_or(x.ge(max_val)), 0, g[0])};
  });
}

Tensor& hardtanh_(Tensor& x, Scalar min_val, Scalar max_val) {
  const UnaryArgs args = hardtanh_args(x, min_val, max_val);
  return detail::inplace(x, {}, [&](const Tensor& old) { return hardtanh(old, min_val, max_val); },
                         [&] { detail::run_unary(args, UnaryKind::SameType, x, &x); });
}

Tensor relu6(const Tensor& x) { return hardtanh(x, 0, 6); }
Tensor& relu6_(Tensor& x) { return hardtanh_(x, 0, 6); }

Tensor hardsigmoid(const Tensor& x) { return recorded_unary(UnaryOp::Hardsigmoid, UnaryKind::FloatOnlySame, x); }

Tensor& hardsigmoid_(Tensor& x) {
  return detail::inplace(x, {}, [](const Tensor& old) { return hardsigmoid(old); },
                         [&] { detail::unary_(UnaryOp::Hardsigmoid, UnaryKind::FloatOnlySame, x); });
}

Tensor hardswish(const Tensor& x) { return recorded_unary(UnaryOp::Hardswish, UnaryKind::FloatOnlySame, x); }

Tensor& hardswish_(Tensor& x) {
  return detail::inplace(x, {}, [](const Tensor& old) { return hardswish(old); },
                         [&] { detail::unary_(UnaryOp::Hardswish, UnaryKind::FloatOnlySame, x); });
}

Tensor Tensor::hardshrink(Scalar lambd) const {
  return recorded_unary({.op = UnaryOp::Hardshrink, .lambd = lambd}, UnaryKind::FloatOnlySame, *this);
}

Tensor hardshrink(const Tensor& x, Scalar lambd) { return x.hardshrink(lambd); }

Tensor softshrink(const Tensor& x, Scalar lambd) {
  if (!(lambd.to_double() >= 0)) {
    throw Error("lambda must be greater or equal to 0, but found to be " + message_number(lambd.to_double()) + ".");
  }
  return recorded_unary({.op = UnaryOp::Softshrink, .lambd = lambd}, UnaryKind::FloatOnlySame, x);
}

Tensor softplus(const Tensor& x, Scalar beta, Scalar threshold) {
  if (autocast::is_active()) {
    return autocast::in_float32([&](const Tensor& y) { return softplus(y, beta, threshold); }, x);
  }
  return recorded_unary({.op = UnaryOp::Softplus, .threshold = threshold, .beta = beta}, UnaryKind::FloatOnlySame,
                        x);
}

Tensor log_sigmoid(const Tensor& x) { return recorded_unary(UnaryOp::LogSigmoid, UnaryKind::FloatOnlySame, x); }

Tensor mish(const Tensor& x) { return recorded_unary(UnaryOp::Mish, UnaryKind::FloatOnlySame, x); }

Tensor& mish_(Tensor& x) {
  return detail::inplace(x, {}, [](const Tensor& old) { return mish(old); },
                         [&] { detail::unary_(UnaryOp::Mish, UnaryKind::FloatOnlySame, x); });
}

}  // namespace ember
