#include "optim/adam.h"

#include "optim/adam_family.h"

namespace ember::optim {

namespace detail {
void check_adam_options(double lr, double eps, const std::tuple<double, double>& betas, double weight_decay) {
  check_option(lr >= 0, "Invalid learning rate", lr);
  check_option(eps >= 0, "Invalid epsilon value", eps);
  const auto [beta1, beta2] = betas;
  check_option(0 <= beta1 && beta1 < 1.0, "Invalid beta parameter at index 0", beta1);
  check_option(0 <= beta2 && beta2 < 1.0, "Invalid beta parameter at index 1", beta2);
  check_option(weight_decay >= 0, "Invalid weight_decay value", weight_decay);
}
}  // namespace detail

AdamOptions::AdamOptions(double lr) : lr_(lr) {}

OptionItems AdamOptions::items() const {
  return {{"lr", lr()},
          {"betas", std::vector<double>{std::get<0>(betas()), std::get<1>(betas())}},
          {"eps", eps()},
          {"weight_decay", weight_decay()},
          {"amsgrad", amsgrad()},
          {"maximize", maximize()},
          {"foreach", std::monostate{}},
          {"capturable", false},
          {"differentiable", false},
          {"fused", false}};
}

bool AdamOptions::set_item(const std::string& key, const OptionValue& value) {
  return detail::set_adam_item(*this, key, value);
}

Adam::Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamOptions>(defaults)) {
  detail::check_adam_options(defaults.lr(), defaults.eps(), defaults.betas(), defaults.weight_decay());
}

Adam::Adam(std::vector<Tensor> params, AdamOptions defaults)
    : Adam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

OptimHyperparameters Adam::hyperparameters(const OptimizerOptions& options) const {
  return detail::adam_hyperparameters(static_cast<const AdamOptions&>(options));
}

}  // namespace ember::optim
