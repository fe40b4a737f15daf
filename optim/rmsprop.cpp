#include "optim/rmsprop.h"

#include "optim/options_support.h"

namespace ember::optim {

RMSpropOptions::RMSpropOptions(double lr) : lr_(lr) {}

OptionItems RMSpropOptions::items() const {
  return {{"lr", lr()},
          {"momentum", momentum()},
          {"alpha", alpha()},
          {"eps", eps()},
          {"centered", centered()},
          {"weight_decay", weight_decay()},
          {"foreach", std::monostate{}},
          {"maximize", maximize()},
          {"differentiable", false}};
}

bool RMSpropOptions::set_item(const std::string& key, const OptionValue& value) {
  if (key == "lr") lr(detail::option_double(key, value));
  else if (key == "momentum") momentum(detail::option_double(key, value));
  else if (key == "alpha") alpha(detail::option_double(key, value));
  else if (key == "eps") eps(detail::option_double(key, value));
  else if (key == "centered") centered(detail::option_bool(key, value));
  else if (key == "weight_decay") weight_decay(detail::option_double(key, value));
  else if (key == "maximize") maximize(detail::option_bool(key, value));
  else return false;
  return true;
}

RMSprop::RMSprop(std::vector<OptimizerParamGroup> param_groups, RMSpropOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<RMSpropOptions>(defaults)) {
  detail::check_option(defaults.lr() >= 0, "Invalid learning rate", defaults.lr());
  detail::check_option(defaults.eps() >= 0, "Invalid epsilon value", defaults.eps());
  detail::check_option(defaults.momentum() >= 0, "Invalid momentum value", defaults.momentum());
  detail::check_option(defaults.weight_decay() >= 0, "Invalid weight_decay value", defaults.weight_decay());
  detail::check_option(defaults.alpha() >= 0, "Invalid alpha value", defaults.alpha());
}

RMSprop::RMSprop(std::vector<Tensor> params, RMSpropOptions defaults)
    : RMSprop(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

OptimHyperparameters RMSprop::hyperparameters(const OptimizerOptions& options) const {
  const auto& o = static_cast<const RMSpropOptions&>(options);
  OptimHyperparameters h;
  h.lr = o.lr();
  h.alpha = o.alpha();
  h.eps = o.eps();
  h.weight_decay = o.weight_decay();
  h.momentum = o.momentum();
  h.centered = o.centered();
  h.maximize = o.maximize();
  return h;
}

}  // namespace ember::optim
