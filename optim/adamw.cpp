#include "optim/adamw.h"

#include "optim/adam.h"
#include "optim/options_support.h"

namespace ember::optim {

AdamWOptions::AdamWOptions(double lr) : lr_(lr) {}

OptionItems AdamWOptions::items() const {
  return {{"lr", lr()},
          {"betas", std::vector<double>{std::get<0>(betas()), std::get<1>(betas())}},
          {"eps", eps()},
          {"weight_decay", weight_decay()},
          {"amsgrad", amsgrad()},
          {"foreach", std::monostate{}},
          {"maximize", maximize()},
          {"capturable", false}};
}

bool AdamWOptions::set_item(const std::string& key, const OptionValue& value) {
  if (key == "lr") lr(detail::option_double(key, value));
  else if (key == "betas") betas(detail::option_pair(key, value));
  else if (key == "eps") eps(detail::option_double(key, value));
  else if (key == "weight_decay") weight_decay(detail::option_double(key, value));
  else if (key == "amsgrad") amsgrad(detail::option_bool(key, value));
  else if (key == "maximize") maximize(detail::option_bool(key, value));
  else return false;
  return true;
}

AdamW::AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamWOptions>(defaults)) {
  detail::check_adam_options(defaults.lr(), defaults.eps(), defaults.betas(), defaults.weight_decay());
}

AdamW::AdamW(std::vector<Tensor> params, AdamWOptions defaults)
    : AdamW(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

OptimHyperparameters AdamW::hyperparameters(const OptimizerOptions& options) const {
  const auto& o = static_cast<const AdamWOptions&>(options);
  OptimHyperparameters h;
  h.lr = o.lr();
  h.beta1 = std::get<0>(o.betas());
  h.beta2 = std::get<1>(o.betas());
  h.eps = o.eps();
  h.weight_decay = o.weight_decay();
  h.amsgrad = o.amsgrad();
  h.maximize = o.maximize();
  h.decoupled_weight_decay = true;
  return h;
}

}  // namespace ember::optim
