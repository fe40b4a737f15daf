#include "optim/nadam.h"

#include "optim/adam_family.h"

namespace ember::optim {

NAdamOptions::NAdamOptions(double lr) : lr_(lr) {}

OptionItems NAdamOptions::items() const {
  return {{"lr", lr()},
          {"betas", std::vector<double>{std::get<0>(betas()), std::get<1>(betas())}},
          {"eps", eps()},
          {"weight_decay", weight_decay()},
          {"momentum_decay", momentum_decay()},
          {"foreach", std::monostate{}}};
}

bool NAdamOptions::set_item(const std::string& key, const OptionValue& value) {
  if (key == "momentum_decay") {
    momentum_decay(detail::option_double(key, value));
    return true;
  }
  return detail::set_adam_item(*this, key, value);
}

NAdam::NAdam(std::vector<OptimizerParamGroup> param_groups, NAdamOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<NAdamOptions>(defaults)) {
  detail::check_adam_options(defaults.lr(), defaults.eps(), defaults.betas(), defaults.weight_decay());
  detail::check_option(defaults.momentum_decay() >= 0, "Invalid momentum_decay value", defaults.momentum_decay());
}

NAdam::NAdam(std::vector<Tensor> params, NAdamOptions defaults)
    : NAdam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

OptimHyperparameters NAdam::hyperparameters(const OptimizerOptions& options) const {
  const auto& o = static_cast<const NAdamOptions&>(options);
  OptimHyperparameters h = detail::adam_hyperparameters(o);
  h.momentum_decay = o.momentum_decay();
  return h;
}

}  // namespace ember::optim
