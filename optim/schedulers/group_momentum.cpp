#include "optim/schedulers/group_momentum.h"

#include <optional>
#include <variant>
#include <vector>

#include "runtime/error.h"

namespace ember::optim::detail {

namespace {
std::optional<OptionValue> find_option(const OptimizerOptions& options, const std::string& key) {
  for (auto& [k, value] : options.items()) {
    if (k == key) return value;
  }
  return std::nullopt;
}

std::vector<double> betas_of(const OptimizerOptions& options) {
  const std::optional<OptionValue> betas = find_option(options, "betas");
  if (!betas) throw Error("the param group's options have no betas");
  return std::get<std::vector<double>>(*betas);
}

bool has_option(const OptimizerOptions& options, const std::string& key) {
  return find_option(options, key).has_value();
}
}  // namespace

bool momentum_is_beta1(const Optimizer& optimizer) {
  const OptimizerOptions& defaults = optimizer.defaults();
  if (!has_option(defaults, "momentum") && !has_option(defaults, "betas")) {
    throw Error("optimizer must support momentum with `cycle_momentum` option enabled");
  }
  return has_option(defaults, "betas");
}

void set_group_momentum(OptimizerParamGroup& group, double momentum, bool use_beta1) {
  OptimizerOptions& options = group.options();
  if (use_beta1) {
    std::vector<double> betas = betas_of(options);
    betas.at(0) = momentum;
    options.set_item("betas", betas);
  } else {
    options.set_item("momentum", momentum);
  }
}

double group_momentum(const OptimizerParamGroup& group, bool use_beta1) {
  if (use_beta1) return betas_of(group.options()).at(0);
  const std::optional<OptionValue> momentum = find_option(group.options(), "momentum");
  if (!momentum) throw Error("the param group's options have no momentum");
  return std::get<double>(*momentum);
}

}  // namespace ember::optim::detail
