#include "optim/asgd.h"

#include "optim/options_support.h"

namespace ember::optim {

ASGDOptions::ASGDOptions(double lr) : lr_(lr) {}

OptionItems ASGDOptions::items() const {
  return {{"lr", lr()},
          {"lambd", lambd()},
          {"alpha", alpha()},
          {"t0", t0()},
          {"weight_decay", weight_decay()},
          {"foreach", std::monostate{}},
          {"maximize", maximize()}};
}

bool ASGDOptions::set_item(const std::string& key, const OptionValue& value) {
  if (key == "lr") lr(detail::option_double(key, value));
  else if (key == "lambd") lambd(detail::option_double(key, value));
  else if (key == "alpha") alpha(detail::option_double(key, value));
  else if (key == "t0") t0(detail::option_double(key, value));
  else if (key == "weight_decay") weight_decay(detail::option_double(key, value));
  else if (key == "maximize") maximize(detail::option_bool(key, value));
  else return false;
  return true;
}

ASGD::ASGD(std::vector<OptimizerParamGroup> param_groups, ASGDOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<ASGDOptions>(defaults)) {
  detail::check_option(defaults.lr() >= 0, "Invalid learning rate", defaults.lr());
  detail::check_option(defaults.weight_decay() >= 0, "Invalid weight_decay value", defaults.weight_decay());
}

ASGD::ASGD(std::vector<Tensor> params, ASGDOptions defaults)
    : ASGD(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

OptimHyperparameters ASGD::hyperparameters(const OptimizerOptions& options) const {
  const auto& o = static_cast<const ASGDOptions&>(options);
  OptimHyperparameters h;
  h.lr = o.lr();
  h.lambd = o.lambd();
  h.eta_power = o.alpha();
  h.t0 = o.t0();
  h.weight_decay = o.weight_decay();
  h.maximize = o.maximize();
  return h;
}

}  // namespace ember::optim
