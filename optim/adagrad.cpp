#include "optim/adagrad.h"

#include "optim/options_support.h"

namespace ember::optim {

AdagradOptions::AdagradOptions(double lr) : lr_(lr) {}

OptionItems AdagradOptions::items() const {
  return {{"lr", lr()},
          {"lr_decay", lr_decay()},
          {"eps", eps()},
          {"weight_decay", weight_decay()},
          {"initial_accumulator_value", initial_accumulator_value()},
          {"foreach", std::monostate{}},
          {"maximize", maximize()}};
}

bool AdagradOptions::set_item(const std::string& key, const OptionValue& value) {
  if (key == "lr") lr(detail::option_double(key, value));
  else if (key == "lr_decay") lr_decay(detail::option_double(key, value));
  else if (key == "eps") eps(detail::option_double(key, value));
  else if (key == "weight_decay") weight_decay(detail::option_double(key, value));
  else if (key == "initial_accumulator_value") initial_accumulator_value(detail::option_double(key, value));
  else if (key == "maximize") maximize(detail::option_bool(key, value));
  else return false;
  return true;
}

Adagrad::Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdagradOptions>(defaults)) {
  detail::check_option(defaults.lr() >= 0, "Invalid learning rate", defaults.lr());
  detail::check_option(defaults.lr_decay() >= 0, "Invalid lr_decay value", defaults.lr_decay());
  detail::check_option(defaults.weight_decay() >= 0, "Invalid weight_decay value", defaults.weight_decay());
  detail::check_option(defaults.initial_accumulator_value() >= 0, "Invalid initial_accumulator_value value",
                       defaults.initial_accumulator_value());
  detail::check_option(defaults.eps() >= 0, "Invalid epsilon value", defaults.eps());
  make_eager_state();
}

Adagrad::Adagrad(std::vector<Tensor> params, AdagradOptions defaults)
    : Adagrad(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

OptimHyperparameters Adagrad::hyperparameters(const OptimizerOptions& options) const {
  const auto& o = static_cast<const AdagradOptions&>(options);
  OptimHyperparameters h;
  h.lr = o.lr();
  h.lr_decay = o.lr_decay();
  h.weight_decay = o.weight_decay();
  h.eps = o.eps();
  h.maximize = o.maximize();
  return h;
}

std::optional<double> Adagrad::eager_state_value(const OptimizerOptions& options) const {
  return static_cast<const AdagradOptions&>(options).initial_accumulator_value();
}

}  // namespace ember::optim
