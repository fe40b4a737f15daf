// elu, selu and celu with their in-place forms (PyTorch 1.13): one kernel, UnaryOp::Elu, whose three
// parameters (alpha, scale, input_scale) cover all three, as PyTorch's elu kernel does. Recorded under
// PyTorch's node names with elu_backward's formula: of the input for the out-of-place forms
// (EluBackward0, CeluBackward0), of the result for the in-place ones (EluBackward1, CeluBackward1).
#include "tensor/elementwise_support.h"

namespace ember {

namespace {

using autograd::FunctionNode;
using autograd::Record;
using autograd::tensor_list;
using detail::UnaryKind;

// SELU's constants (Klambauer et al., 2017), as PyTorch spells them.
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

struct EluParameters {
  Scalar alpha = 1;
  Scalar scale = 1;
  Scalar input_scale = 1;
};

EluParameters celu_parameters(Scalar alpha) { return {alpha, 1.0, 1.0 / alpha.to_double()}; }

UnaryArgs elu_args(const EluParameters& p) {
  return {.op = UnaryOp::Elu, .alpha = p.alpha, .scale = p.scale, .input_scale = p.input_scale};
}

// PyTorch's elu_backward. Of the input x: scale where x > 0, alpha scale input_scale exp(input_scale x)
// elsewhere (x = 0 included). Of the result y, which in-place forms keep instead of x:
// input_scale (y + alpha scale) where y <= 0, which is only right for alpha >= 0.
Tensor elu_backward(const Tensor& g, const EluParameters& p, bool is_result, const Tensor& saved) {
  const double negative_coefficient = p.alpha.to_double() * p.scale.to_double();
  const double input_scale = p.input_scale.to_double();
  if (is_result) {
    if (p.alpha.to_double() < 0) {
      throw Error("In-place elu backward calculation is triggered with a negative slope which is not supported. "
                  "This is caused by calling in-place forward function with a negative slope, please call "
                  "out-of-place version instead.");
    }
    return ember::where(saved <= 0, g * ((saved + negative_coefficient) * input_scale), g * p.scale);
  }
  // The formula only multiplies g: plain backward multiplies it by the derivative's own kernel.
  if (!autograd::GradMode::is_enabled()) {
    const UnaryArgs derivative{.op = UnaryOp::EluGrad, .alpha = p.alpha, .scale = p.scale, .input_scale = p.input_scale};
    return g * detail::run_unary(derivative, UnaryKind::FloatOnlySame, saved, nullptr);
  }
  return ember::where(saved <= 0, g * ((saved * input_scale).exp() * (negative_coefficient * input_scale)),
                      g * p.scale);
}

// The out-of-place forms: `name` is EluBackward0 or CeluBackward0.
Tensor recorded_elu(const Tensor& x, const EluParameters& p, const char* name) {
  Record rec(name, {&x});
  Tensor out = detail::run_unary(elu_args(p), UnaryKind::FloatOnlySame, x, nullptr);
  if (!rec) return out;
  rec.save(x);
  return rec.finish(out, [p](FunctionNode& node, const tensor_list& g) {
    return tensor_list{elu_backward(g[0], p, false, node.saved(0))};
  });
}

// What an in-place form records (EluBackward1, CeluBackward1): the formula of the result.
Tensor recorded_elu_of_result(const Tensor& x, const EluParameters& p, const char* name) {
  Record rec(name, {&x});
  Tensor out = detail::run_unary(elu_args(p), UnaryKind::FloatOnlySame, x, nullptr);
  if (!rec) return out;
  rec.save_output(out);
  return rec.finish(out, [p](FunctionNode& node, const tensor_list& g) {
    return tensor_list{elu_backward(g[0], p, true, node.saved(0))};
  });
}

Tensor& elu_in_place(Tensor& x, const EluParameters& p, const char* name) {
  return detail::inplace(x, {}, [&](const Tensor& old) { return recorded_elu_of_result(old, p, name); },
                         [&] { detail::run_unary(elu_args(p), UnaryKind::FloatOnlySame, x, &x); });
}

}  // namespace

Tensor elu(const Tensor& x, Scalar alpha, Scalar scale, Scalar input_scale) {
  return recorded_elu(x, {alpha, scale, input_scale}, "EluBackward0");
}

Tensor& elu_(Tensor& x, Scalar alpha, Scalar scale, Scalar input_scale) {
  return elu_in_place(x, {alpha, scale, input_scale}, "EluBackward1");
}

Tensor selu(const Tensor& x) { return recorded_elu(x, {kSeluAlpha, kSeluScale, 1}, "EluBackward0"); }

Tensor& selu_(Tensor& x) { return elu_in_place(x, {kSeluAlpha, kSeluScale, 1}, "EluBackward1"); }

Tensor celu(const Tensor& x, Scalar alpha) { return recorded_elu(x, celu_parameters(alpha), "CeluBackward0"); }

Tensor& celu_(Tensor& x, Scalar alpha) { return elu_in_place(x, celu_parameters(alpha), "CeluBackward1"); }

}  // namespace ember
