#include "optim/adamax.h"

#include "optim/adam_family.h"

namespace ember::optim {

AdamaxOptions::AdamaxOptions(double lr) : lr_(lr) {}

OptionItems AdamaxOptions::items() const {
  return {{"lr", lr()},
          {"betas", std::vector<double>{std::get<0>(betas()), std::get<1>(betas())}},
          {"eps", eps()},
          {"weight_decay", weight_decay()},
          {"foreach", std::monostate{}},
          {"maximize", maximize()}};
}

bool AdamaxOptions::set_item(const std::string& key, const OptionValue& value) {
  if (key == "lr") lr(detail::option_double(key, value));
  else if (key == "betas") betas(detail::option_pair(key, value));
  else if (key == "eps") eps(detail::option_double(key, value));
  else if (key == "weight_decay") weight_decay(detail::option_double(key, value));
  else if (key == "maximize") maximize(detail::option_bool(key, value));
  else return false;
  return true;
}

Adamax::Adamax(std::vector<OptimizerParamGroup> param_groups, AdamaxOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamaxOptions>(defaults)) {
  detail::check_adam_options(defaults.lr(), defaults.eps(), defaults.betas(), defaults.weight_decay());
}

Adamax::Adamax(std::vector<Tensor> params, AdamaxOptions defaults)
    : Adamax(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

OptimHyperparameters Adamax::hyperparameters(const OptimizerOptions& options) const {
  const auto& o = static_cast<const AdamaxOptions&>(options);
  OptimHyperparameters h;
  h.lr = o.lr();
  h.beta1 = std::get<0>(o.betas());
  h.beta2 = std::get<1>(o.betas());
  h.eps = o.eps();
  h.weight_decay = o.weight_decay();
  h.maximize = o.maximize();
  return h;
}

}  // namespace ember::optim
