// The formula table of the unary ops: for each UnaryOp, PyTorch's node name, what its backward saves
// (the input x, the output y or nothing) and the gradient. recorded_unary() runs an op and records it
// with its entry; ops without an entry are not differentiable, or are recorded where they are defined
// (clamp.cpp).
#include <numbers>

#include "tensor/elementwise_support.h"

namespace ember::detail {

namespace {

using autograd::FunctionNode;
using autograd::Record;
using autograd::tensor_list;

// The common activations' gradients are one fused kernel in plain backward; under create_graph they
// are written with differentiable ops instead, so that they record their own graph.
Tensor tanh_grad(const Tensor& g, const Tensor& y, const UnaryArgs&) {
  if (autograd::GradMode::is_enabled()) return g * (1 - y * y);
  return binary(BinaryOp::TanhBackward, BinaryKind::Arithmetic, g, y);
}
Tensor sigmoid_grad(const Tensor& g, const Tensor& y, const UnaryArgs&) {
  if (autograd::GradMode::is_enabled()) return g * y * (1 - y);
  return binary(BinaryOp::SigmoidBackward, BinaryKind::Arithmetic, g, y);
}
// Zero where the input (or relu's output) is at most the threshold, x = threshold included.
Tensor threshold_grad_at(const Tensor& g, const Tensor& s, Scalar threshold) {
  if (autograd::GradMode::is_enabled()) return g.masked_fill(s <= threshold, 0);
  return run_binary({.op = BinaryOp::ThresholdBackward, .threshold = threshold}, BinaryKind::Arithmetic, g, s,
                    nullptr);
}
Tensor relu_grad(const Tensor& g, const Tensor& y, const UnaryArgs&) { return threshold_grad_at(g, y, 0); }
Tensor threshold_grad(const Tensor& g, const Tensor& x, const UnaryArgs& p) {
  return threshold_grad_at(g, x, p.threshold);
}

// One fused kernel (a = g, b = the input) in plain backward, like tanh's and sigmoid's above.
Tensor fused_grad(const BinaryArgs& op, const Tensor& g, const Tensor& x) {
  return run_binary(op, BinaryKind::Arithmetic, g, x, nullptr);
}

// The slope where x <= 0, 1 elsewhere.
Tensor leaky_relu_grad(const Tensor& g, const Tensor& x, const UnaryArgs& p) {
  if (!autograd::GradMode::is_enabled()) {
    return fused_grad({.op = BinaryOp::LeakyReluBackward, .negative_slope = p.negative_slope}, g, x);
  }
  return ember::where(x > 0, g, g * p.negative_slope);
}

Tensor zero_grad(const Tensor& g, const Tensor&, const UnaryArgs&) { return zeros_like(g); }

// PyTorch's hardsigmoid_backward: 1/6 strictly inside (-3, 3), 0 elsewhere (and for NaN). PyTorch has no
// second derivative for it.
Tensor hardsigmoid_grad(const Tensor& g, const Tensor& x, const UnaryArgs&) {
  if (!autograd::GradMode::is_enabled()) return fused_grad({.op = BinaryOp::HardsigmoidBackward}, g, x);
  return ember::where(x.gt(-3).logical_and(x.lt(3)), g / 6, 0);
}

// PyTorch's hardswish_backward: 0 below -3, x / 3 + 1/2 on [-3, 3] (both ends included), 1 above (and
// for NaN).
Tensor hardswish_grad(const Tensor& g, const Tensor& x, const UnaryArgs&) {
  if (!autograd::GradMode::is_enabled()) return fused_grad({.op = BinaryOp::HardswishBackward}, g, x);
  return ember::where(x.lt(-3), 0, ember::where(x.le(3), g * (x / 3 + 0.5), g));
}

// Hardshrink and softshrink: no gradient on [-lambd, lambd] (both ends included); NaN keeps it.
Tensor shrink_grad(const Tensor& g, const Tensor& x, const UnaryArgs& p) {
  if (!autograd::GradMode::is_enabled()) return fused_grad({.op = BinaryOp::ShrinkBackward, .lambd = p.lambd}, g, x);
  return ember::where(x.ge(negated(p.lambd)).logical_and(x.le(p.lambd)), 0, g);
}

// sigmoid(beta x) below the threshold, 1 where the forward is linear. PyTorch's formula only multiplies
// g, so plain backward multiplies it by the derivative's own kernel.
Tensor softplus_grad(const Tensor& g, const Tensor& x, const UnaryArgs& p) {
  if (!autograd::GradMode::is_enabled()) {
    return g * run_unary({.op = UnaryOp::SoftplusGrad, .threshold = p.threshold, .beta = p.beta},
                         UnaryKind::FloatOnlySame, x, nullptr);
  }
  const Tensor bx = x * p.beta;
  return ember::where(bx > p.threshold, g, g * bx.sigmoid());
}

// d/dx log(sigmoid(x)) = sigmoid(-x): PyTorch's log_sigmoid_backward in either branch of its buffer.
Tensor log_sigmoid_grad(const Tensor& g, const Tensor& x, const UnaryArgs&) {
  if (!autograd::GradMode::is_enabled()) return fused_grad({.op = BinaryOp::LogSigmoidBackward}, g, x);
  return g * x.neg().sigmoid();
}

// PyTorch's infinitely differentiable form: with t = tanh(softplus(x)), t + x sigmoid(x) (1 - t^2).
Tensor mish_grad(const Tensor& g, const Tensor& x, const UnaryArgs&) {
  if (!autograd::GradMode::is_enabled()) return fused_grad({.op = BinaryOp::MishBackward}, g, x);
  const Tensor t = x.exp().log1p().tanh();
  return g * (t + x * x.sigmoid() * (1 - t * t));
}

// d/dx gelu(x) = Phi(x) + x phi(x), Phi and phi the standard normal cdf and density.
Tensor gelu_grad(const Tensor& g, const Tensor& x, const UnaryArgs&) {
  if (!autograd::GradMode::is_enabled()) return fused_grad({.op = BinaryOp::GeluBackward}, g, x);
  const double inv_sqrt2 = 1 / std::numbers::sqrt2;
  const double inv_sqrt_2pi = std::numbers::inv_sqrtpi * inv_sqrt2;
  const Tensor cdf = ((x * inv_sqrt2).erf() + 1) * 0.5;
  const Tensor pdf = (x * x * -0.5).exp() * inv_sqrt_2pi;
  return g * (cdf + x * pdf);
}

// gelu's tanh form is 0.5 x (1 + tanh(u)) with u = k (x + c x^3); its derivative is
// 0.5 (1 + tanh u) + 0.5 x (1 - tanh^2 u) du/dx with du/dx = k (1 + 3 c x^2).
Tensor gelu_tanh_grad(const Tensor& g, const Tensor& x, const UnaryArgs&) {
  if (!autograd::GradMode::is_enabled()) return fused_grad({.op = BinaryOp::GeluTanhBackward}, g, x);
  const double k = std::numbers::sqrt2 * std::numbers::inv_sqrtpi;  // sqrt(2 / pi)
  const double c = 0.044715;
  const Tensor x2 = x * x;
  const Tensor t = (x * (x2 * c + 1) * k).tanh();
  const Tensor du = (x2 * (3 * c) + 1) * k;
  return g * ((t + 1) * 0.5 + x * 0.5 * (1 - t * t) * du);
}

// A unary op's backward: g is the output's gradient, `s` the saved input x or output y (or nothing),
// `p` the op's parameters.
enum class Saved { Nothing, Input, Output };
struct UnaryGrad {
  const char* name = nullptr;  // PyTorch's node name; null: not recorded here
  Saved saved = Saved::Nothing;
  Tensor (*formula)(const Tensor& g, const Tensor& s, const UnaryArgs& p) = nullptr;
};

UnaryGrad unary_grad(UnaryOp op) {
  using T = const Tensor&;
  using P = const UnaryArgs&;
  using std::numbers::ln10;
  using std::numbers::ln2;
  switch (op) {
    case UnaryOp::Neg: return {"NegBackward0", Saved::Nothing, [](T g, T, P) { return g.neg(); }};
    case UnaryOp::Abs: return {"AbsBackward0", Saved::Input, [](T g, T x, P) { return g * x.sign(); }};
    case UnaryOp::Sign: return {"SignBackward0", Saved::Nothing, zero_grad};
    case UnaryOp::Reciprocal: return {"ReciprocalBackward0", Saved::Output, [](T g, T y, P) { return -(g * y * y); }};
    case UnaryOp::Exp: return {"ExpBackward0", Saved::Output, [](T g, T y, P) { return g * y; }};
    case UnaryOp::Exp2: return {"Exp2Backward0", Saved::Output, [](T g, T y, P) { return g * y * ln2; }};
    case UnaryOp::Expm1: return {"Expm1Backward0", Saved::Output, [](T g, T y, P) { return g * (y + 1); }};
    case UnaryOp::Log: return {"LogBackward0", Saved::Input, [](T g, T x, P) { return g / x; }};
    case UnaryOp::Log2: return {"Log2Backward0", Saved::Input, [](T g, T x, P) { return g / (x * ln2); }};
    case UnaryOp::Log10: return {"Log10Backward0", Saved::Input, [](T g, T x, P) { return g / (x * ln10); }};
    case UnaryOp::Log1p: return {"Log1PBackward0", Saved::Input, [](T g, T x, P) { return g / (x + 1); }};
    case UnaryOp::Sqrt: return {"SqrtBackward0", Saved::Output, [](T g, T y, P) { return g / (y * 2); }};
    case UnaryOp::Rsqrt:
      return {"RsqrtBackward0", Saved::Output, [](T g, T y, P) { return g * y.pow(3) * -0.5; }};
    case UnaryOp::Sin: return {"SinBackward0", Saved::Input, [](T g, T x, P) { return g * x.cos(); }};
    case UnaryOp::Cos: return {"CosBackward0", Saved::Input, [](T g, T x, P) { return -(g * x.sin()); }};
    case UnaryOp::Tan: return {"TanBackward0", Saved::Output, [](T g, T y, P) { return g * (y * y + 1); }};
    case UnaryOp::Asin:
      return {"AsinBackward0", Saved::Input, [](T g, T x, P) { return g * (1 - x * x).rsqrt(); }};
    case UnaryOp::Acos:
      return {"AcosBackward0", Saved::Input, [](T g, T x, P) { return -(g * (1 - x * x).rsqrt()); }};
    case UnaryOp::Atan: return {"AtanBackward0", Saved::Input, [](T g, T x, P) { return g / (x * x + 1); }};
    case UnaryOp::Sinh: return {"SinhBackward0", Saved::Input, [](T g, T x, P) { return g * x.cosh(); }};
    case UnaryOp::Cosh: return {"CoshBackward0", Saved::Input, [](T g, T x, P) { return g * x.sinh(); }};
    case UnaryOp::Tanh: return {"TanhBackward0", Saved::Output, tanh_grad};
    case UnaryOp::Sigmoid: return {"SigmoidBackward0", Saved::Output, sigmoid_grad};
    case UnaryOp::Relu: return {"ReluBackward0", Saved::Output, relu_grad};
    case UnaryOp::Gelu: return {"GeluBackward0", Saved::Input, gelu_grad};
    case UnaryOp::GeluTanh: return {"GeluBackward0", Saved::Input, gelu_tanh_grad};
    // silu = x s(x): s + x s (1 - s).
    case UnaryOp::Silu:
      return {"SiluBackward0", Saved::Input, [](T g, T x, P) {
                if (!autograd::GradMode::is_enabled()) return fused_grad({.op = BinaryOp::SiluBackward}, g, x);
                const Tensor s = x.sigmoid();
                return g * s * (x * (1 - s) + 1);
              }};
    // d/dx erf(x) = 2 / sqrt(pi) exp(-x^2).
    case UnaryOp::Erf:
      return {"ErfBackward0", Saved::Input,
              [](T g, T x, P) { return g * (x * x).neg().exp() * (2 * std::numbers::inv_sqrtpi); }};
    case UnaryOp::Erfc:
      return {"ErfcBackward0", Saved::Input,
              [](T g, T x, P) { return g * (x * x).neg().exp() * (-2 * std::numbers::inv_sqrtpi); }};
    case UnaryOp::Floor: return {"FloorBackward0", Saved::Nothing, zero_grad};
    case UnaryOp::Ceil: return {"CeilBackward0", Saved::Nothing, zero_grad};
    case UnaryOp::Round: return {"RoundBackward0", Saved::Nothing, zero_grad};
    case UnaryOp::Trunc: return {"TruncBackward0", Saved::Nothing, zero_grad};
    case UnaryOp::Frac: return {"FracBackward0", Saved::Nothing, [](T g, T, P) { return g; }};
    // Replaced values (NaN and infinities) get no gradient.
    case UnaryOp::NanToNum:
      return {"NanToNumBackward0", Saved::Input, [](T g, T x, P) { return g * x.isfinite(); }};
    case UnaryOp::LeakyRelu: return {"LeakyReluBackward0", Saved::Input, leaky_relu_grad};
    case UnaryOp::Threshold: return {"ThresholdBackward0", Saved::Input, threshold_grad};
    case UnaryOp::Hardsigmoid: return {"HardsigmoidBackward0", Saved::Input, hardsigmoid_grad};
    case UnaryOp::Hardswish: return {"HardswishBackward0", Saved::Input, hardswish_grad};
    case UnaryOp::Hardshrink: return {"HardshrinkBackward0", Saved::Input, shrink_grad};
    case UnaryOp::Softshrink: return {"SoftshrinkBackward0", Saved::Input, shrink_grad};
    case UnaryOp::Softplus: return {"SoftplusBackward0", Saved::Input, softplus_grad};
    case UnaryOp::LogSigmoid: return {"LogSigmoidBackward0", Saved::Input, log_sigmoid_grad};
    case UnaryOp::Mish: return {"MishBackward0", Saved::Input, mish_grad};
    // Not differentiable: bool or integral results, or a cast (to() records ToCopyBackward0 itself).
    case UnaryOp::Cast:
    case UnaryOp::IsNan:
    case UnaryOp::IsInf:
    case UnaryOp::IsPosInf:
    case UnaryOp::IsNegInf:
    case UnaryOp::IsFinite:
    case UnaryOp::LogicalNot:
    case UnaryOp::BitwiseNot:
    // Recorded where they are defined: clamp.cpp (whose bounds promote the result dtype) and hardtanh
    // in activation.cpp; elu, selu and celu in activation_elu.cpp, under their own node names and
    // formulas of the input or the result. square() records PowBackward0.
    case UnaryOp::Elu:
    // Derivatives that plain backward formulas use, themselves never differentiated.
    case UnaryOp::EluGrad:
    case UnaryOp::SoftplusGrad:
    case UnaryOp::Clamp:
    case UnaryOp::ClampMin:
    case UnaryOp::ClampMax:
    case UnaryOp::Square: return {};
  }
  return {};
}

// Saves the output where the formula reads it and makes the node the grad_fn of `out`.
Tensor finish_unary(Record& rec, const UnaryGrad& grad, const UnaryArgs& op, const Tensor& out) {
  if (grad.saved == Saved::Output) rec.save_output(out);
  UnaryArgs parameters = op;  // the closure keeps the scalars, not the kernel operands
  parameters.out = parameters.in = TensorRef{};
  return rec.finish(out, [grad, parameters](FunctionNode& node, const tensor_list& g) {
    return tensor_list{grad.formula(g[0], grad.saved == Saved::Nothing ? Tensor() : node.saved(0), parameters)};
  });
}

}  // namespace

Tensor recorded_unary(const UnaryArgs& op, UnaryKind kind, const Tensor& x) {
  const UnaryGrad grad = unary_grad(op.op);
  if (!grad.name) return run_unary(op, kind, x, nullptr);
  Record rec(grad.name, {&x});
  Tensor out = run_unary(op, kind, x, nullptr);
  if (!rec) return out;
  if (grad.saved == Saved::Input) rec.save(x);
  return finish_unary(rec, grad, op, out);
}

Tensor recorded_unary(UnaryOp op, UnaryKind kind, const Tensor& x) { return recorded_unary({.op = op}, kind, x); }

Tensor record_unary_result(const UnaryArgs& op, const Tensor& x, Tensor out) {
  const UnaryGrad grad = unary_grad(op.op);
  if (!grad.name || grad.saved == Saved::Input) {
    throw Error("record_unary_result: this op's backward reads its input, or the op is recorded elsewhere");
  }
  Record rec(grad.name, {&x});
  if (!rec) return out;
  return finish_unary(rec, grad, op, out);
}

}  // namespace ember::detail
