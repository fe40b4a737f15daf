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
  return detail::set_adam_item(*this, key, value);
}

Adamax::Adamax(std::vector<OptimizerParamGroup> param_groups, AdamaxOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamaxOptions>(defaults)) {
  detail::check_adam_options(defaults.lr(), defaults.eps(), defaults.betas(), defaults.weight_decay());
}

Adamax::Adamax(std::vector<Tensor> params, AdamaxOptions defaults)
    : Adamax(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

OptimHyperparameters Adamax::hyperparameters(const OptimizerOptions& options) const {
  return detail::adam_hyperparameters(static_cast<const AdamaxOptions&>(options));
}

}  // namespace ember::optim
