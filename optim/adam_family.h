#pragma once
// What Adam, AdamW, Adamax, RAdam and NAdam share: their options' checks, their param-group keys and the
// hyperparameters the fused kernel reads. Their options are separate types, as in LibTorch, with the same
// accessors where they have the same options. Internal to optim/.
#include <string>
#include <tuple>

#include "optim/optimizer.h"
#include "optim/options_support.h"

namespace ember::optim::detail {

// Throws LibTorch's errors for a negative lr, eps or weight_decay, and betas outside [0, 1).
void check_adam_options(double lr, double eps, const std::tuple<double, double>& betas, double weight_decay);

// The keys of the Adam family's param groups. Adamax has no amsgrad, RAdam and NAdam neither nor maximize.
template <class AdamFamilyOptions>
bool set_adam_item(AdamFamilyOptions& options, const std::string& key, const OptionValue& value) {
  constexpr bool has_amsgrad = requires { options.amsgrad(); };
  constexpr bool has_maximize = requires { options.maximize(); };
  if (key == "lr") options.lr(option_double(key, value));
  else if (key == "betas") options.betas(option_pair(key, value));
  else if (key == "eps") options.eps(option_double(key, value));
  else if (key == "weight_decay") options.weight_decay(option_double(key, value));
  else if (key == "amsgrad" && has_amsgrad) {
    if constexpr (has_amsgrad) options.amsgrad(option_bool(key, value));
  } else if (key == "maximize" && has_maximize) {
    if constexpr (has_maximize) options.maximize(option_bool(key, value));
  } else {
    return false;
  }
  return true;
}

template <class AdamFamilyOptions>
OptimHyperparameters adam_hyperparameters(const AdamFamilyOptions& options) {
  OptimHyperparameters h;
  h.lr = options.lr();
  h.beta1 = std::get<0>(options.betas());
  h.beta2 = std::get<1>(options.betas());
  h.eps = options.eps();
  h.weight_decay = options.weight_decay();
  if constexpr (requires { options.amsgrad(); }) h.amsgrad = options.amsgrad();
  if constexpr (requires { options.maximize(); }) h.maximize = options.maximize();
  return h;
}

}  // namespace ember::optim::detail
