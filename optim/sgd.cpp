#include "optim/sgd.h"

#include "optim/options_support.h"

namespace ember::optim {

SGDOptions::SGDOptions(double lr) : lr_(lr) {}

OptionItems SGDOptions::items() const {
  return {{"lr", lr()},
          {"momentum", momentum()},
          {"dampening", dampening()},
          {"weight_decay", weight_decay()},
          {"nesterov", nesterov()},
          {"maximize", maximize()},
          {"foreach", std::monostate{}},
          {"differentiable", false}};
}

bool SGDOptions::set_item(const std::string& key, const OptionValue& value) {
  if (key == "lr") lr(detail::option_double(key, value));
  else if (key == "momentum") momentum(detail::option_double(key, value));
  else if (key == "dampening") dampening(detail::option_double(key, value));
  else if (key == "weight_decay") weight_decay(detail::option_double(key, value));
  else if (key == "nesterov") nesterov(detail::option_bool(key, value));
  else if (key == "maximize") maximize(detail::option_bool(key, value));
  else return false;
  return true;
}

SGD::SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<SGDOptions>(defaults)) {
  detail::check_option(defaults.lr() >= 0, "Invalid learning rate", defaults.lr());
  detail::check_option(defaults.momentum() >= 0, "Invalid momentum value", defaults.momentum());
  detail::check_option(defaults.weight_decay() >= 0, "Invalid weight_decay value", defaults.weight_decay());
  if (defaults.nesterov() && (defaults.momentum() <= 0 || defaults.dampening() != 0)) {
    throw Error("Nesterov momentum requires a momentum and zero dampening");
  }
}

SGD::SGD(std::vector<Tensor> params, SGDOptions defaults)
    : SGD(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

OptimHyperparameters SGD::hyperparameters(const OptimizerOptions& options) const {
  const auto& o = static_cast<const SGDOptions&>(options);
  OptimHyperparameters h;
  h.lr = o.lr();
  h.momentum = o.momentum();
  h.dampening = o.dampening();
  h.weight_decay = o.weight_decay();
  h.nesterov = o.nesterov();
  h.maximize = o.maximize();
  return h;
}

}  // namespace ember::optim
