#include "nn/utils/clip_grad.h"

#include <cmath>
#include <limits>

#include "autograd/grad_mode.h"
#include "runtime/error.h"

namespace ember::nn::utils {

Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  NoGradGuard no_grad;
  std::vector<Tensor> grads;
  for (const Tensor& p : parameters) {
    if (p.grad().defined()) grads.push_back(p.grad());
  }
  if (grads.empty()) return zeros({});
  const bool infinity_norm = std::isinf(norm_type);
  std::vector<Tensor> norms;
  for (const Tensor& g : grads) norms.push_back(infinity_norm ? g.abs().amax() : g.norm(norm_type));
  const Tensor stacked = stack(norms);
  const Tensor total = infinity_norm ? stacked.amax() : stacked.norm(norm_type);
  if (error_if_nonfinite && !total.isfinite().item<bool>()) {
    throw Error("The total norm of order " + std::to_string(norm_type) +
                " for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and "
                "scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`");
  }
  // min(1, max_norm / (total + 1e-6)): gradients already within the norm are multiplied by one.
  const Tensor scale = (max_norm / (total + 1e-6)).clamp_max(1.0);
  for (Tensor g : grads) g.mul_(scale.to(g.dtype()));
  return total;
}

Tensor clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type, bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>{parameter}, max_norm, norm_type, error_if_nonfinite);
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  NoGradGuard no_grad;
  for (const Tensor& p : parameters) {
    if (p.grad().defined()) Tensor(p.grad()).clamp_(-clip_value, clip_value);
  }
}

void clip_grad_value_(const Tensor& parameter, double clip_value) {
  clip_grad_value_(std::vector<Tensor>{parameter}, clip_value);
}

}  // namespace ember::nn::utils
