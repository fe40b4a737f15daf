#include "optim/adadelta.h"

#include "optim/options_support.h"

namespace ember::optim {

AdadeltaOptions::AdadeltaOptions(double lr) : lr_(lr) {}

OptionItems AdadeltaOptions::items() const {
  return {{"lr", lr()},
          {"rho", rho()},
          {"eps", eps()},
          {"weight_decay", weight_decay()},
          {"maximize", maximize()},
          {"foreach", std::monostate{}}};
}

bool AdadeltaOptions::set_item(const std::string& key, const OptionValue& value) {
  if (key == "lr") lr(detail::option_double(key, value));
  else if (key == "rho") rho(detail::option_double(key, value));
  else if (key == "eps") eps(detail::option_double(key, value));
  else if (key == "weight_decay") weight_decay(detail::option_double(key, value));
  else if (key == "maximize") maximize(detail::option_bool(key, value));
  else return false;
  return true;
}

Adadelta::Adadelta(std::vector<OptimizerParamGroup> param_groups, AdadeltaOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdadeltaOptions>(defaults)) {
  detail::check_option(defaults.lr() >= 0, "Invalid learning rate", defaults.lr());
  detail::check_option(0 <= defaults.rho() && defaults.rho() <= 1.0, "Invalid rho value", defaults.rho());
  detail::check_option(defaults.eps() >= 0, "Invalid epsilon value", defaults.eps());
  detail::check_option(defaults.weight_decay() >= 0, "Invalid weight_decay value", defaults.weight_decay());
}

Adadelta::Adadelta(std::vector<Tensor> params, AdadeltaOptions defaults)
    : Adadelta(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

OptimHyperparameters Adadelta::hyperparameters(const OptimizerOptions& options) const {
  const auto& o = static_cast<const AdadeltaOptions&>(options);
  OptimHyperparameters h;
  h.lr = o.lr();
  h.rho = o.rho();
  h.eps = o.eps();
  h.weight_decay = o.weight_decay();
  h.maximize = o.maximize();
  return h;
}

}  // namespace ember::optim
