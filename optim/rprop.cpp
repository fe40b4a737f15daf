#include "optim/rprop.h"

#include "optim/options_support.h"

namespace ember::optim {

RpropOptions::RpropOptions(double lr) : lr_(lr) {}

OptionItems RpropOptions::items() const {
  return {{"lr", lr()},
          {"etas", std::vector<double>{std::get<0>(etas()), std::get<1>(etas())}},
          {"step_sizes", std::vector<double>{std::get<0>(step_sizes()), std::get<1>(step_sizes())}},
          {"foreach", std::monostate{}},
          {"maximize", maximize()}};
}

bool RpropOptions::set_item(const std::string& key, const OptionValue& value) {
  if (key == "lr") lr(detail::option_double(key, value));
  else if (key == "etas") etas(detail::option_pair(key, value));
  else if (key == "step_sizes") step_sizes(detail::option_pair(key, value));
  else if (key == "maximize") maximize(detail::option_bool(key, value));
  else return false;
  return true;
}

Rprop::Rprop(std::vector<OptimizerParamGroup> param_groups, RpropOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<RpropOptions>(defaults)) {
  const auto [etaminus, etaplus] = defaults.etas();
  detail::check_option(defaults.lr() >= 0, "Invalid learning rate", defaults.lr());
  detail::check_option(0.0 < etaminus && etaminus < 1.0 && 1.0 < etaplus, "Invalid eta values", etaminus, etaplus);
}

Rprop::Rprop(std::vector<Tensor> params, RpropOptions defaults)
    : Rprop(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

OptimHyperparameters Rprop::hyperparameters(const OptimizerOptions& options) const {
  const auto& o = static_cast<const RpropOptions&>(options);
  OptimHyperparameters h;
  h.lr = o.lr();
  std::tie(h.etaminus, h.etaplus) = o.etas();
  std::tie(h.step_size_min, h.step_size_max) = o.step_sizes();
  h.maximize = o.maximize();
  return h;
}

}  // namespace ember::optim
