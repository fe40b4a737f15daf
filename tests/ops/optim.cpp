// Rows for the fused optimizer kernels: two steps of each algorithm on a parameter and its gradient, over
// the registry's dtypes, shapes and layouts, against torch::optim. LibTorch 1.13 lacks Adamax, Adadelta,
// RAdam, Rprop, NAdam and ASGD: their references are Python 1.13's single-tensor functions (NAdam's multi-tensor
// one, see optim/nadam.h) (torch/optim/<name>.py) written with the same ATen calls in the same order, which
// tests/optim/python_optimizers_test.cpp checks against Python's optimizers. (Trajectories, groups and state are tested in tests/optim/.)
#include <torch/optim.h>

#include <algorithm>
#include <cmath>

#include "optim/optim.h"
#include "tests/op_registry.h"

namespace ember::test {
namespace {

// `count` steps (two by default) of the optimizer that `make` builds over a copy of `param`, whose gradient
// is `grad`.
template <class T, class Make>
T run_steps(const T& param, const T& grad, Make make, int count = 2) {
  T p = param.detach().clone();
  p.requires_grad_(true);
  p.mutable_grad() = grad.detach().clone();
  auto opt = make(p);
  for (int k = 0; k < count; ++k) opt.step();
  return p.detach();
}

Tensor sgd_steps(const Tensor& p, const Tensor& g) {
  return run_steps(p, g, [](const Tensor& q) { return optim::SGD({q}, optim::SGDOptions(0.1).momentum(0.9).nesterov(true).weight_decay(0.1)); });
}
at::Tensor sgd_steps(const at::Tensor& p, const at::Tensor& g) {
  return run_steps(p, g, [](const at::Tensor& q) { return torch::optim::SGD({q}, torch::optim::SGDOptions(0.1).momentum(0.9).nesterov(true).weight_decay(0.1)); });
}
Tensor adam_steps(const Tensor& p, const Tensor& g) {
  return run_steps(p, g, [](const Tensor& q) { return optim::Adam({q}, optim::AdamOptions(0.1).weight_decay(0.1).amsgrad(true)); });
}
at::Tensor adam_steps(const at::Tensor& p, const at::Tensor& g) {
  return run_steps(p, g, [](const at::Tensor& q) { return torch::optim::Adam({q}, torch::optim::AdamOptions(0.1).weight_decay(0.1).amsgrad(true)); });
}
Tensor rmsprop_steps(const Tensor& p, const Tensor& g) {
  return run_steps(p, g, [](const Tensor& q) { return optim::RMSprop({q}, optim::RMSpropOptions(0.01).momentum(0.5).centered(true)); });
}
at::Tensor rmsprop_steps(const at::Tensor& p, const at::Tensor& g) {
  return run_steps(p, g, [](const at::Tensor& q) { return torch::optim::RMSprop({q}, torch::optim::RMSpropOptions(0.01).momentum(0.5).centered(true)); });
}
Tensor adagrad_steps(const Tensor& p, const Tensor& g) {
  return run_steps(p, g, [](const Tensor& q) { return optim::Adagrad({q}, optim::AdagradOptions(0.1).lr_decay(0.1).initial_accumulator_value(0.5)); });
}
at::Tensor adagrad_steps(const at::Tensor& p, const at::Tensor& g) {
  return run_steps(p, g, [](const at::Tensor& q) { return torch::optim::Adagrad({q}, torch::optim::AdagradOptions(0.1).lr_decay(0.1).initial_accumulator_value(0.5)); });
}
Tensor adamax_steps(const Tensor& p, const Tensor& g) {
  return run_steps(p, g, [](const Tensor& q) { return optim::Adamax({q}, optim::AdamaxOptions(0.1).weight_decay(0.1)); });
}
// _single_tensor_adamax with lr=0.1, weight_decay=0.1.
at::Tensor adamax_steps(const at::Tensor& param, const at::Tensor& grad) {
  const double lr = 0.1, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0.1;
  at::Tensor p = param.detach().clone(), exp_avg = at::zeros_like(p), exp_inf = at::zeros_like(p);
  for (int step = 1; step <= 2; ++step) {
    const at::Tensor g = grad.add(p, weight_decay);
    exp_avg.mul_(beta1).add_(g, 1 - beta1);
    const at::Tensor norm_buf = at::cat({exp_inf.mul_(beta2).unsqueeze(0), g.abs().add_(eps).unsqueeze_(0)}, 0);
    exp_inf = at::amax(norm_buf, {0}, false);
    p.addcdiv_(exp_avg, exp_inf, -(lr / (1 - std::pow(beta1, step))));
  }
  return p;
}
Tensor adadelta_steps(const Tensor& p, const Tensor& g) {
  return run_steps(p, g, [](const Tensor& q) { return optim::Adadelta({q}, optim::AdadeltaOptions(0.5).weight_decay(0.1)); });
}
// _single_tensor_adadelta with lr=0.5, weight_decay=0.1.
at::Tensor adadelta_steps(const at::Tensor& param, const at::Tensor& grad) {
  const double lr = 0.5, rho = 0.9, eps = 1e-6, weight_decay = 0.1;
  at::Tensor p = param.detach().clone(), square_avg = at::zeros_like(p), acc_delta = at::zeros_like(p);
  for (int step = 1; step <= 2; ++step) {
    const at::Tensor g = grad.add(p, weight_decay);
    square_avg.mul_(rho).addcmul_(g, g, 1 - rho);
    const at::Tensor std = square_avg.add(eps).sqrt_();
    const at::Tensor delta = acc_delta.add(eps).sqrt_().div_(std).mul_(g);
    acc_delta.mul_(rho).addcmul_(delta, delta, 1 - rho);
    p.add_(delta, -lr);
  }
  return p;
}
// Seven steps: RAdam rectifies from the sixth on (rho_t > 5), so both of its branches run.
constexpr int kRAdamSteps = 7;
Tensor radam_steps(const Tensor& p, const Tensor& g) {
  return run_steps(p, g, [](const Tensor& q) { return optim::RAdam({q}, optim::RAdamOptions(0.1).weight_decay(0.1)); },
                   kRAdamSteps);
}
// _single_tensor_radam with lr=0.1, weight_decay=0.1 (Python's float / tensor is reciprocal() * float).
at::Tensor radam_steps(const at::Tensor& param, const at::Tensor& grad) {
  const double lr = 0.1, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0.1;
  at::Tensor p = param.detach().clone(), exp_avg = at::zeros_like(p), exp_avg_sq = at::zeros_like(p);
  for (int step = 1; step <= kRAdamSteps; ++step) {
    const double bias_correction1 = 1 - std::pow(beta1, step), bias_correction2 = 1 - std::pow(beta2, step);
    const at::Tensor g = grad.add(p, weight_decay);
    exp_avg.mul_(beta1).add_(g, 1 - beta1);
    exp_avg_sq.mul_(beta2).addcmul_(g, g, 1 - beta2);
    const at::Tensor corrected = exp_avg / bias_correction1;
    const double rho_inf = 2 / (1 - beta2) - 1;
    const double rho_t = rho_inf - 2 * step * std::pow(beta2, step) / bias_correction2;
    if (rho_t > 5.) {
      const double rect =
          std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t));
      const at::Tensor adaptive_lr = exp_avg_sq.sqrt().add_(eps).reciprocal() * std::sqrt(bias_correction2);
      p.add_(corrected * lr * adaptive_lr * rect, -1.0);
    } else {
      p.add_(corrected * lr, -1.0);
    }
  }
  return p;
}
// Rprop with lr=0.1, etas=(0.4, 1.2), step_sizes=(0.05, 0.11) over the gradients g, g, -g, -g: the step
// size stays, grows to the maximum, shrinks to the minimum where the sign flips (that step moves nothing),
// and stays again.
constexpr int kRpropSteps = 4;
template <class T>
T rprop_gradient(const T& grad, int step) {
  return step <= 2 ? grad.detach().clone() : grad.neg();
}
Tensor rprop_steps(const Tensor& param, const Tensor& grad) {
  Tensor p = param.detach().clone();
  p.requires_grad_(true);
  optim::Rprop opt({p}, optim::RpropOptions(0.1).etas({0.4, 1.2}).step_sizes({0.05, 0.11}));
  for (int step = 1; step <= kRpropSteps; ++step) {
    p.mutable_grad() = rprop_gradient(grad, step);
    opt.step();
  }
  return p.detach();
}
// _single_tensor_rprop with the same options (Python's `sign[mask] = value` is masked_fill_).
at::Tensor rprop_steps(const at::Tensor& param, const at::Tensor& grad) {
  const double etaminus = 0.4, etaplus = 1.2, step_size_min = 0.05, step_size_max = 0.11;
  at::Tensor p = param.detach().clone(), prev = at::zeros_like(p), step_size = at::full_like(p, 0.1);
  for (int step = 1; step <= kRpropSteps; ++step) {
    at::Tensor g = rprop_gradient(grad, step);
    at::Tensor sign = g.mul(prev).sign();
    sign.masked_fill_(sign.gt(0), etaplus);
    sign.masked_fill_(sign.lt(0), etaminus);
    sign.masked_fill_(sign.eq(0), 1);
    step_size.mul_(sign).clamp_(step_size_min, step_size_max);
    g.masked_fill_(sign.eq(etaminus), 0);
    p.addcmul_(g.sign(), step_size, -1);
    prev.copy_(g);
  }
  return p;
}
// Three steps of NAdam with lr=0.1, weight_decay=0.1, momentum_decay=0.1, so that each momentum cache
// differs from the last.
constexpr int kNAdamSteps = 3;
Tensor nadam_steps(const Tensor& p, const Tensor& g) {
  return run_steps(
      p, g, [](const Tensor& q) { return optim::NAdam({q}, optim::NAdamOptions(0.1).weight_decay(0.1).momentum_decay(0.1)); },
      kNAdamSteps);
}
// _multi_tensor_nadam for one tensor with the same options; mu_product is a float32 tensor, as Python's.
at::Tensor nadam_steps(const at::Tensor& param, const at::Tensor& grad) {
  const double lr = 0.1, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0.1, momentum_decay = 0.1;
  at::Tensor p = param.detach().clone(), exp_avg = at::zeros_like(p), exp_avg_sq = at::zeros_like(p);
  at::Tensor mu_product = at::ones({}, at::kFloat);
  for (int step = 1; step <= kNAdamSteps; ++step) {
    const double mu = beta1 * (1. - 0.5 * std::pow(0.96, step * momentum_decay));
    const double mu_next = beta1 * (1. - 0.5 * std::pow(0.96, (step + 1) * momentum_decay));
    mu_product.mul_(mu);
    const at::Tensor g = grad.add(p, weight_decay);
    exp_avg.mul_(beta1).add_(g, 1 - beta1);
    exp_avg_sq.mul_(beta2).addcmul_(g, g, 1 - beta2);
    const at::Tensor denom = exp_avg_sq.sqrt().div_(std::sqrt(1 - std::pow(beta2, step))).add_(eps);
    const double product = mu_product.item<double>();
    p.addcdiv_(g, denom, -(lr * (1. - mu) / (1. - product)));
    p.addcdiv_(exp_avg, denom, -(lr * mu_next / (1. - product * mu_next)));
  }
  return p;
}
// Three steps of ASGD with lr=0.1, lambd=0.1, t0=0, weight_decay=0.1: eta decays at each step and the
// third averages (mu 1/2), so the row returns the parameter and its average `ax`, stacked.
constexpr int kASGDSteps = 3;
Tensor asgd_steps(const Tensor& param, const Tensor& grad) {
  Tensor p = param.detach().clone();
  p.requires_grad_(true);
  p.mutable_grad() = grad.detach().clone();
  optim::ASGD opt({p}, optim::ASGDOptions(0.1).lambd(0.1).t0(0).weight_decay(0.1));
  for (int step = 1; step <= kASGDSteps; ++step) opt.step();
  return stack({p.detach(), opt.state(p)["ax"]});
}
// _single_tensor_asgd for one tensor with the same options; eta and mu are float32 tensors, as Python's.
at::Tensor asgd_steps(const at::Tensor& param, const at::Tensor& grad) {
  const double lr = 0.1, lambd = 0.1, alpha = 0.75, t0 = 0, weight_decay = 0.1;
  at::Tensor p = param.detach().clone(), ax = at::zeros_like(p);
  at::Tensor eta = at::full({}, lr, at::kFloat), mu = at::ones({}, at::kFloat);
  for (int step = 1; step <= kASGDSteps; ++step) {
    const at::Tensor g = grad.add(p, weight_decay);
    p.mul_(1 - lambd * eta.item<double>());
    p.add_(g, -eta.item<double>());
    if (mu.item<double>() != 1) {
      ax.add_(p.sub(ax).mul(mu));
    } else {
      ax.copy_(p);
    }
    eta.fill_(lr / std::pow(1 + lambd * lr * step, alpha));
    mu.fill_(1 / std::max(1., step - t0));
  }
  return at::stack({p, ax});
}

// A parameter and a gradient of the same shape: 0-dim, empty, odd sizes, longer than a workgroup's tile.
const std::vector<Shapes> kCases = {{{}, {}}, {{0}, {0}}, {{7}, {7}}, {{5, 13}, {5, 13}}, {{3, 1100}, {3, 1100}}};

EMBER_OP_ROWS(optim_rows) {
  return {
      op("sgd step", 2, [](const auto& x) { return sgd_steps(x[0], x[1]); }).with_dtypes(kFloating).with_cases(kCases),
      op("adam step", 2, [](const auto& x) { return adam_steps(x[0], x[1]); }).with_dtypes(kFloating).with_cases(kCases),
      op("rmsprop step", 2, [](const auto& x) { return rmsprop_steps(x[0], x[1]); })
          .with_dtypes(kFloating)
          .with_cases(kCases)
          .in_range(0.1, 2),
      op("adagrad step", 2, [](const auto& x) { return adagrad_steps(x[0], x[1]); }).with_dtypes(kFloating).with_cases(kCases),
      op("adamax step", 2, [](const auto& x) { return adamax_steps(x[0], x[1]); }).with_dtypes(kFloating).with_cases(kCases),
      op("adadelta step", 2, [](const auto& x) { return adadelta_steps(x[0], x[1]); }).with_dtypes(kFloating).with_cases(kCases),
      op("radam step", 2, [](const auto& x) { return radam_steps(x[0], x[1]); }).with_dtypes(kFloating).with_cases(kCases),
      // Magnitudes away from 0, so that no product g * prev rounds to 0 in one dtype and not the other.
      op("rprop step", 2, [](const auto& x) { return rprop_steps(x[0], x[1]); })
          .with_dtypes(kFloating)
          .with_cases(kCases)
          .in_range(0.1, 2),
      op("nadam step", 2, [](const auto& x) { return nadam_steps(x[0], x[1]); }).with_dtypes(kFloating).with_cases(kCases),
      op("asgd step", 2, [](const auto& x) { return asgd_steps(x[0], x[1]); }).with_dtypes(kFloating).with_cases(kCases),
  };
}

}  // namespace
}  // namespace ember::test
