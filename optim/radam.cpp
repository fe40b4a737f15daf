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
  return detail::set_adam_item(*this, key, value);
}

RAdam::RAdam(std::vector<OptimizerParamGroup> param_groups, RAdamOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<RAdamOptions>(defaults)) {
  detail::check_adam_options(defaults.lr(), defaults.eps(), defaults.betas(), defaults.weight_decay());
}

RAdam::RAdam(std::vector<Tensor> params, RAdamOptions defaults)
    : RAdam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

OptimHyperparameters RAdam::hyperparameters(const OptimizerOptions& options) const {
  return detail::adam_hyperparameters(static_cast<const RAdamOptions&>(options));
}

}  // namespace ember::optim
