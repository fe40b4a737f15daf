#include "optim/adamw.h"

#include "optim/adam_family.h"

namespace ember::optim {

AdamWOptions::AdamWOptions(double lr) : lr_(lr) {}

OptionItems AdamWOptions::items() const {
  return {{"lr", lr()},
          {"betas", std::vector<double>{std::get<0>(betas()), std::get<1>(betas())}},
          {"eps", eps()},
          {"weight_decay", weight_decay()},
          {"amsgrad", amsgrad()},
          {"foreach", std::monostate{}},
          {"maximize", maximize()},
          {"capturable", false}};
}

bool AdamWOptions::set_item(const std::string& key, const OptionValue& value) {
  return detail::set_adam_item(*this, key, value);
}

AdamW::AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamWOptions>(defaults)) {
  detail::check_adam_options(defaults.lr(), defaults.eps(), defaults.betas(), defaults.weight_decay());
}

AdamW::AdamW(std::vector<Tensor> params, AdamWOptions defaults)
    : AdamW(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

OptimHyperparameters AdamW::hyperparameters(const OptimizerOptions& options) const {
  OptimHyperparameters h = detail::adam_hyperparameters(static_cast<const AdamWOptions&>(options));
  h.decoupled_weight_decay = true;
  return h;
}

}  // namespace ember::optim
