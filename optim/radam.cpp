#include "optim/radam.h"

#include "optim/adam_family.h"

namespace ember::optim {

RAdamOptions::RAdamOptions(double lr) : lr_(lr) {}

OptionItems RAdamOptions::items() const {
  return {{"lr", lr()},
          {"betas", std::vector<double>{std::get<0>(betas()), std::get<1>(betas())}},
          {"eps", eps()},
          {"weight_decay", weight_decay()},
          {"foreach", std::monostate{}}};
}

bool RAdamOptions::set_item(const std::string& key, const OptionValue& value) {
  if (key == "lr") lr(detail::option_double(key, value));
  else if (key == "betas") betas(detail::option_pair(key, value));
  else if (key == "eps") eps(detail::option_double(key, value));
  else if (key == "weight_decay") weight_decay(detail::option_double(key, value));
  else return false;
  return true;
}

RAdam::RAdam(std::vector<OptimizerParamGroup> param_groups, RAdamOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<RAdamOptions>(defaults)) {
  detail::check_adam_options(defaults.lr(), defaults.eps(), defaults.betas(), defaults.weight_decay());
}

RAdam::RAdam(std::vector<Tensor> params, RAdamOptions defaults)
    : RAdam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

OptimHyperparameters RAdam::hyperparameters(const OptimizerOptions& options) const {
  const auto& o = static_cast<const RAdamOptions&>(options);
  OptimHyperparameters h;
  h.lr = o.lr();
  h.beta1 = std::get<0>(o.betas());
  h.beta2 = std::get<1>(o.betas());
  h.eps = o.eps();
  h.weight_decay = o.weight_decay();
  return h;
}

}  // namespace ember::optim
