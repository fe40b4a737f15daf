// The pointwise losses. Those PyTorch records as one node of their own (MseLossBackward0, ...) are
// recorded the same way here, with their derivative beside the forward; the rest are compositions, as
// in PyTorch, and get the node names of the ops they are made of.
#include "nn/functional/loss.h"

#include <cmath>

#include "autograd/grad_mode.h"
#include "autograd/record.h"
#include "runtime/error.h"
#include "tensor/autocast.h"

namespace ember::nn::functional {

namespace {

using autograd::FunctionNode;
using autograd::Record;
using autograd::tensor_list;

// A loss of elementwise terms f(x, y) with derivatives df/dx and df/dy written with public ops (so that
// create_graph differentiates them again). `param` is the loss's one scalar option (beta, delta).
struct PointwiseLoss {
  const char* node;
  Tensor (*terms)(const Tensor& x, const Tensor& y, double param);
  Tensor (*d_input)(const Tensor& x, const Tensor& y, double param);
  Tensor (*d_target)(const Tensor& x, const Tensor& y, double param);
};

// The gradient of the reduced loss, as the gradient of each term.
Tensor per_term(const Tensor& grad, IntArrayRef shape, LossReduction reduction) {
  if (std::holds_alternative<enumtype::kNone>(reduction)) return grad;
  int64_t count = 1;
  for (int64_t s : shape) count *= s;
  Tensor g = std::holds_alternative<enumtype::kMean>(reduction) ? grad / double(count) : grad;
  return g.expand(shape);
}

std::vector<int64_t> broadcast_shape(const Tensor& a, const Tensor& b) { return broadcast_shapes(a.sizes(), b.sizes()); }

Tensor pointwise_loss(const PointwiseLoss& loss, const Tensor& input, const Tensor& target, LossReduction reduction,
                      double param) {
  Record rec(loss.node, {&input, &target});
  Tensor out = apply_loss_reduction(loss.terms(input, target, param), reduction);
  if (!rec) return out;
  rec.save(input);
  rec.save(target);
  return rec.finish(out, [loss, reduction, param](FunctionNode& node, const tensor_list& g) {
    const Tensor x = node.saved(0), y = node.saved(1);
    const Tensor up = per_term(g[0], broadcast_shape(x, y), reduction);
    tensor_list grads(2);
    if (node.needs_input_grad(0)) grads[0] = autograd::sum_to(loss.d_input(x, y, param) * up, x.sizes());
    if (node.needs_input_grad(1)) grads[1] = autograd::sum_to(loss.d_target(x, y, param) * up, y.sizes());
    return grads;
  });
}

const PointwiseLoss kMse{
    "MseLossBackward0", [](const Tensor& x, const Tensor& y, double) { return (x - y).square(); },
    [](const Tensor& x, const Tensor& y, double) { return (x - y) * 2; },
    [](const Tensor& x, const Tensor& y, double) { return (y - x) * 2; }};

// |d| < beta: 0.5 d^2 / beta, else |d| - 0.5 beta (beta 0 is the L1 loss).
Tensor smooth_l1_terms(const Tensor& x, const Tensor& y, double beta) {
  const Tensor d = (x - y).abs();
  if (beta == 0) return d;
  return where(d < beta, d.square() * (0.5 / beta), d - 0.5 * beta);
}
Tensor smooth_l1_d_input(const Tensor& x, const Tensor& y, double beta) {
  const Tensor d = x - y;
  if (beta == 0) return d.sign();
  return where(d.abs() < beta, d / beta, d.sign());
}
const PointwiseLoss kSmoothL1{"SmoothL1LossBackward0", smooth_l1_terms, smooth_l1_d_input,
                              [](const Tensor& x, const Tensor& y, double beta) { return -smooth_l1_d_input(x, y, beta); }};

// |d| < delta: 0.5 d^2, else delta (|d| - 0.5 delta).
Tensor huber_terms(const Tensor& x, const Tensor& y, double delta) {
  const Tensor d = (x - y).abs();
  return where(d < delta, d.square() * 0.5, (d - 0.5 * delta) * delta);
}
Tensor huber_d_input(const Tensor& x, const Tensor& y, double delta) {
  const Tensor d = x - y;
  return where(d.abs() < delta, d, d.sign() * delta);
}
const PointwiseLoss kHuber{"HuberLossBackward0", huber_terms, huber_d_input,
                           [](const Tensor& x, const Tensor& y, double delta) { return -huber_d_input(x, y, delta); }};

// log(1 + exp(-y x)).
const PointwiseLoss kSoftMargin{
    "SoftMarginLossBackward0", [](const Tensor& x, const Tensor& y, double) { return (-y * x).exp().log1p(); },
    [](const Tensor& x, const Tensor& y, double) { return -y * (-y * x).sigmoid(); },
    [](const Tensor& x, const Tensor& y, double) { return -x * (-y * x).sigmoid(); }};

// log(1 + exp(-x)), stable for any x.
Tensor softplus_of_minus(const Tensor& x) { return (-x.abs()).exp().log1p() + (-x).clamp_min(0); }

}  // namespace

void check_not_differentiable(const Tensor& t, const char* argument, const char* function) {
  if (t.defined() && t.requires_grad() && autograd::GradMode::is_enabled()) {
    throw Error(std::string("The function '") + function + "' is not differentiable with respect to argument '" +
                argument + "'. This input cannot have requires_grad True.");
  }
}

Tensor apply_loss_reduction(const Tensor& terms, LossReduction reduction) {
  if (std::holds_alternative<enumtype::kMean>(reduction)) return terms.mean();
  if (std::holds_alternative<enumtype::kSum>(reduction)) return terms.sum();
  return terms;
}

Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options) {
  if (autocast::is_active()) {
    return autocast::in_float32([&](const Tensor& x, const Tensor& y) { return l1_loss(x, y, options); },
                                input, target);
  }
  return apply_loss_reduction((input - target).abs(), options.reduction());
}

Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options) {
  if (autocast::is_active()) {
    return autocast::in_float32([&](const Tensor& x, const Tensor& y) { return mse_loss(x, y, options); },
                                input, target);
  }
  return pointwise_loss(kMse, input, target, options.reduction(), 0);
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const SmoothL1LossFuncOptions& options) {
  if (autocast::is_active()) {
    return autocast::in_float32([&](const Tensor& x, const Tensor& y) { return smooth_l1_loss(x, y, options); },
                                input, target);
  }
  if (options.beta() < 0) throw Error("smooth_l1_loss does not support negative values for beta.");
  return pointwise_loss(kSmoothL1, input, target, options.reduction(), options.beta());
}

Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossFuncOptions& options) {
  if (options.delta() <= 0) throw Error("huber_loss does not support non-positive values for delta.");
  return pointwise_loss(kHuber, input, target, options.reduction(), options.delta());
}

Tensor soft_margin_loss(const Tensor& input, const Tensor& target, const SoftMarginLossFuncOptions& options) {
  if (autocast::is_active()) {
    return autocast::in_float32([&](const Tensor& x, const Tensor& y) { return soft_margin_loss(x, y, options); },
                                input, target);
  }
  return pointwise_loss(kSoftMargin, input, target, options.reduction(), 0);
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const BinaryCrossEntropyFuncOptions& options) {
  if (autocast::is_active()) {
    throw Error("binary_cross_entropy and BCELoss are unsafe to autocast: the probabilities arrive rounded to the "
                "autocast dtype. Use binary_cross_entropy_with_logits or BCEWithLogitsLoss, which take the "
                "logits and are safe to autocast.");
  }
  if (!(input.sizes() == target.sizes())) {
    throw Error("Using a target size (" + to_string(target.sizes()) + ") that is different to the input size (" +
                to_string(input.sizes()) + ") is deprecated. Please ensure they have the same size.");
  }
  // PyTorch's kernel refuses a probability outside [0, 1], NaN included, where the loss would be NaN. The
  // check reads a flag back, so the host waits for input here.
  if (input.numel() > 0 && !input.ge(0).logical_and(input.le(1)).all().item<bool>()) {
    throw Error("all elements of input should be between 0 and 1");
  }
  const Tensor& weight = options.weight();
  check_not_differentiable(weight, "weight", "binary_cross_entropy");
  Record rec("BinaryCrossEntropyBackward0", {&input, &target, &weight});
  // PyTorch clamps each log at -100 so that a probability of exactly 0 or 1 gives a finite loss.
  Tensor terms = -(target * input.log().clamp_min(-100) + (1 - target) * (1 - input).log().clamp_min(-100));
  if (weight.defined()) terms = terms * weight;
  Tensor out = apply_loss_reduction(terms, options.reduction());
  if (!rec) return out;
  rec.save(input);
  rec.save(target);
  rec.save(weight);
  const LossReduction reduction = options.reduction();
  return rec.finish(out, [reduction](FunctionNode& node, const tensor_list& g) {
    const Tensor x = node.saved(0), y = node.saved(1), w = node.saved(2);
    Tensor up = per_term(g[0], x.sizes(), reduction);
    if (w.defined()) up = up * w;
    tensor_list grads(3);
    if (node.needs_input_grad(0)) grads[0] = (x - y) / ((1 - x) * x).clamp_min(1e-12) * up;
    if (node.needs_input_grad(1)) {
      grads[1] = ((1 - x).log().clamp_min(-100) - x.log().clamp_min(-100)) * up;
    }
    return grads;
  });
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BinaryCrossEntropyWithLogitsFuncOptions& options) {
  if (autocast::is_active()) {
    return autocast::in_float32([&](const Tensor& x, const Tensor& y, const Tensor& w, const Tensor& pw) {
      const auto cast_options = BinaryCrossEntropyWithLogitsFuncOptions(options).weight(w).pos_weight(pw);
      return binary_cross_entropy_with_logits(x, y, cast_options);
    }, input, target, options.weight(), options.pos_weight());
  }
  if (!(input.sizes() == target.sizes())) {
    throw Error("Target size (" + to_string(target.sizes()) + ") must be the same as input size (" +
                to_string(input.sizes()) + ")");
  }
  const Tensor &weight = options.weight(), &pos_weight = options.pos_weight();
  check_not_differentiable(weight, "weight", "binary_cross_entropy_with_logits");
  check_not_differentiable(pos_weight, "pos_weight", "binary_cross_entropy_with_logits");
  Record rec("BinaryCrossEntropyWithLogitsBackward0", {&input, &target, &weight, &pos_weight});
  // (1 - y) x + l (log1p(exp(-|x|)) + max(-x, 0)), l = 1 + (pos_weight - 1) y: stable for any x.
  const Tensor softplus_of_minus_x = softplus_of_minus(input);
  const Tensor scale = pos_weight.defined() ? (pos_weight - 1) * target + 1 : Tensor();
  Tensor terms = (1 - target) * input + (scale.defined() ? scale * softplus_of_minus_x : softplus_of_minus_x);
  if (weight.defined()) terms = terms * weight;
  Tensor out = apply_loss_reduction(terms, options.reduction());
  if (!rec) return out;
  rec.save(input);
  rec.save(target);
  rec.save(weight);
  rec.save(pos_weight);
  const LossReduction reduction = options.reduction();
  return rec.finish(out, [reduction](FunctionNode& node, const tensor_list& g) {
    const Tensor x = node.saved(0), y = node.saved(1), w = node.saved(2), pw = node.saved(3);
    Tensor up = per_term(g[0], broadcast_shape(x, y), reduction);
    if (w.defined()) up = up * w;
    tensor_list grads(4);
    const Tensor sigmoid = x.sigmoid();
    if (node.needs_input_grad(0)) {
      // d/dx = (1 - y) - l sigmoid(-x) = sigmoid(x) - y with l = 1.
      const Tensor d = pw.defined() ? ((pw - 1) * y + 1) * sigmoid - pw * y : sigmoid - y;
      grads[0] = autograd::sum_to(d * up, x.sizes());
    }
    if (node.needs_input_grad(1)) {
      const Tensor d = pw.defined() ? (pw - 1) * softplus_of_minus(x) - x : -x;
      grads[1] = autograd::sum_to(d * up, y.sizes());
    }
    return grads;
  });
}

Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options) {
  if (autocast::is_active()) {
    return autocast::in_float32([&](const Tensor& x, const Tensor& y) { return kl_div(x, y, options); },
                                input, target);
  }
  // As PyTorch 1.13 composes it: target (log target - input), 0 where target is 0.
  const Tensor terms = options.log_target()
                           ? target.exp() * (target - input)
                           : where(target > 0, target * target.clamp_min(1e-38).log(), zeros_like(target)) -
                                 target * input;
  return std::visit(
      [&](const auto& tag) -> Tensor {
        using Tag = std::decay_t<decltype(tag)>;
        if constexpr (std::is_same_v<Tag, enumtype::kBatchMean>) {
          return input.dim() == 0 ? terms.sum() : terms.sum() / double(input.size(0));
        } else if constexpr (std::is_same_v<Tag, enumtype::kMean>) {
          return terms.mean();
        } else if constexpr (std::is_same_v<Tag, enumtype::kSum>) {
          return terms.sum();
        } else {
          return terms;
        }
      },
      options.reduction());
}

Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, const PoissonNLLLossFuncOptions& options) {
  if (autocast::is_active()) {
    return autocast::in_float32([&](const Tensor& x, const Tensor& y) { return poisson_nll_loss(x, y, options); },
                                input, target);
  }
  Tensor terms = options.log_input() ? input.exp() - target * input : input - target * (input + options.eps()).log();
  if (options.full()) {
    // Stirling's approximation of log(target!), for targets above 1.
    const Tensor stirling = target * target.log() - target + (target * (2 * M_PI)).log() * 0.5;
    terms = terms + where(target > 1, stirling, zeros_like(stirling));
  }
  return apply_loss_reduction(terms, options.reduction());
}

Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var,
                         const GaussianNLLLossFuncOptions& options) {
  Tensor variance = var;
  // var may have one dim fewer than input (a variance per sample), or a last dim of 1 (shared).
  if (!(var.sizes() == input.sizes())) {
    const std::vector<int64_t> in = input.sizes().vec(), v = var.sizes().vec();
    const bool one_dim_fewer = v.size() + 1 == in.size() && std::equal(v.begin(), v.end(), in.begin());
    const bool last_dim_one = v.size() == in.size() && !v.empty() && v.back() == 1 &&
                              std::equal(v.begin(), v.end() - 1, in.begin());
    if (one_dim_fewer) {
      variance = var.unsqueeze(-1);
    } else if (!last_dim_one) {
      throw Error("var is of incorrect size");
    }
  }
  // A host read, as PyTorch's own check is.
  if (variance.lt(0).any().item<bool>()) throw Error("var has negative entry/entries");
  variance = variance.clamp_min(options.eps());
  Tensor terms = (variance.log() + (input - target).square() / variance) * 0.5;
  if (options.full()) terms = terms + 0.5 * std::log(2 * M_PI);
  return apply_loss_reduction(terms, options.reduction());
}

}  // namespace ember::nn::functional
