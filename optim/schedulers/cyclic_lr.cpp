#include "optim/schedulers/cyclic_lr.h"

#include <cmath>

#include "optim/schedulers/group_momentum.h"
#include "optim/schedulers/scheduler_support.h"

namespace ember::optim {

namespace {

double step_size_down_of(const CyclicLROptions& o) { return o.step_size_down().value_or(o.step_size_up()); }

// Checks everything, then sets each group's lr to base_lr and its momentum to base_momentum, before the
// base records initial_lr, as Python's constructor does.
int64_t prepare(Optimizer& optimizer, const CyclicLROptions& o) {
  const size_t group_count = optimizer.param_groups().size();
  const std::vector<double> base_lrs = o.base_lr().for_groups(group_count, "values for base_lr");
  o.max_lr().for_groups(group_count, "values for max_lr");
  // Python divides by these in the constructor's first step (ZeroDivisionError) or cycles backwards.
  if (!(o.step_size_up() > 0) || !(step_size_down_of(o) >= 0)) {
    throw Error("CyclicLR: step_size_up must be above 0 and step_size_down at least 0, got " +
                nlohmann::json(o.step_size_up()).dump() + " and " + nlohmann::json(step_size_down_of(o)).dump());
  }
  if (o.mode() != "triangular" && o.mode() != "triangular2" && o.mode() != "exp_range" && !o.scale_fn()) {
    throw Error("mode is invalid and scale_fn is None");
  }
  if (o.scale_fn() && o.scale_mode() != "cycle" && o.scale_mode() != "iterations") {
    throw Error("CyclicLR: scale_mode must be 'cycle' or 'iterations', got '" + o.scale_mode() + "'");
  }
  std::vector<double> base_momentums;
  bool use_beta1 = false;
  if (o.cycle_momentum()) {
    use_beta1 = detail::momentum_is_beta1(optimizer);
    base_momentums = o.base_momentum().for_groups(group_count, "values for base_momentum");
    o.max_momentum().for_groups(group_count, "values for max_momentum");
  }
  // Everything checked: now the groups change.
  if (o.last_epoch() == -1) {
    std::vector<OptimizerParamGroup>& groups = optimizer.param_groups();
    for (size_t i = 0; i < groups.size(); ++i) {
      groups[i].options().set_lr(base_lrs[i]);
      if (o.cycle_momentum()) detail::set_group_momentum(groups[i], base_momentums[i], use_beta1);
    }
  }
  return o.last_epoch();
}

}  // namespace

CyclicLR::CyclicLR(Optimizer& optimizer, const CyclicLROptions& o)
    : LRScheduler(optimizer, prepare(optimizer, o)),
      max_lrs_(o.max_lr().for_groups(groups(), "values for max_lr")),
      total_size_(o.step_size_up() + step_size_down_of(o)),
      step_ratio_(o.step_size_up() / total_size_),
      mode_(o.mode()),
      gamma_(o.gamma()),
      scale_fn_(o.scale_fn()),
      scale_mode_(o.scale_fn() ? o.scale_mode() : (o.mode() == "exp_range" ? "iterations" : "cycle")),
      cycle_momentum_(o.cycle_momentum()) {
  if (cycle_momentum_) {
    use_beta1_ = detail::momentum_is_beta1(optimizer);
    // 1.13 reads them back from the groups: when resuming, the momentum the groups hold now.
    for (const OptimizerParamGroup& group : optimizer.param_groups()) {
      base_momentums_.push_back(detail::group_momentum(group, use_beta1_));
    }
    max_momentums_ = o.max_momentum().for_groups(groups(), "values for max_momentum");
  }
  initial_step();
  base_lrs_ = o.base_lr().for_groups(groups(), "values for base_lr");
}

double CyclicLR::scale(double x) const {
  if (scale_fn_) return scale_fn_(x);
  if (mode_ == "triangular2") return 1 / std::pow(2., x - 1);
  if (mode_ == "exp_range") return std::pow(gamma_, x);
  return 1.;
}

std::vector<double> CyclicLR::get_lr() {
  const double epoch = static_cast<double>(last_epoch_);
  const double cycle = std::floor(1 + epoch / total_size_);
  const double x = 1. + epoch / total_size_ - cycle;
  const double scale_factor = x <= step_ratio_ ? x / step_ratio_ : (x - 1) / (step_ratio_ - 1);
  const double scaled = scale(scale_mode_ == "cycle" ? cycle : epoch);
  std::vector<double> lrs;
  for (size_t i = 0; i < base_lrs_.size(); ++i) {
    lrs.push_back(base_lrs_[i] + (max_lrs_[i] - base_lrs_[i]) * scale_factor * scaled);
  }
  if (cycle_momentum_) {
    std::vector<OptimizerParamGroup>& param_groups = optimizer_.param_groups();
    for (size_t i = 0; i < param_groups.size(); ++i) {
      const double momentum = max_momentums_[i] - (max_momentums_[i] - base_momentums_[i]) * scale_factor * scaled;
      detail::set_group_momentum(param_groups[i], momentum, use_beta1_);
    }
  }
  return lrs;
}

void CyclicLR::save_fields(detail::SchedulerJson& json) const {
  json.value["max_lrs"] = max_lrs_;
  json.value["total_size"] = total_size_;
  json.value["step_ratio"] = step_ratio_;
  json.value["mode"] = mode_;
  json.value["gamma"] = gamma_;
  json.value["_scale_fn_custom"] = nullptr;
  json.value["scale_mode"] = scale_mode_;
  json.value["cycle_momentum"] = cycle_momentum_;
  if (cycle_momentum_) {
    json.value["use_beta1"] = use_beta1_;
    json.value["base_momentums"] = base_momentums_;
    json.value["max_momentums"] = max_momentums_;
  }
}

void CyclicLR::load_fields(const detail::SchedulerJson& json) {
  const auto max_lrs = json.get<std::vector<double>>("max_lrs");
  const auto total_size = json.get<double>("total_size");
  const auto step_ratio = json.get<double>("step_ratio");
  const auto mode = json.get<std::string>("mode");
  const auto gamma = json.get<double>("gamma");
  const auto scale_mode = json.get<std::string>("scale_mode");
  const auto cycle_momentum = json.get<bool>("cycle_momentum");
  std::vector<double> base_momentums, max_momentums;
  if (cycle_momentum) {
    base_momentums = json.get<std::vector<double>>("base_momentums");
    max_momentums = json.get<std::vector<double>>("max_momentums");
  }
  if (max_lrs.size() != groups() || (cycle_momentum && (base_momentums.size() != groups() || max_momentums.size() != groups()))) {
    throw Error("load_state_dict: the CyclicLR state's max_lrs or momenta do not have one value for each of the " +
                std::to_string(groups()) + " param groups");
  }
  if (cycle_momentum && !cycle_momentum_) use_beta1_ = detail::momentum_is_beta1(optimizer_);
  max_lrs_ = max_lrs;
  total_size_ = total_size;
  step_ratio_ = step_ratio;
  mode_ = mode;
  gamma_ = gamma;
  scale_mode_ = scale_mode;
  cycle_momentum_ = cycle_momentum;
  base_momentums_ = base_momentums;
  max_momentums_ = max_momentums;
}

}  // namespace ember::optim
