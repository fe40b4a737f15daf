#include "optim/schedulers/one_cycle_lr.h"

#include <cmath>
#include <numbers>
#include <utility>

#include "optim/schedulers/group_momentum.h"
#include "optim/schedulers/scheduler_support.h"

namespace ember::optim {

namespace {

// Python's str() of a float (repr: shortest round trip, "2.0" for whole numbers).
std::string python_float(double value) { return nlohmann::json(value).dump(); }

// Where each phase of the schedule ends, as Python's _schedule_phases (steps counted from 0).
std::vector<double> phase_ends(int64_t total_steps, double pct_start, bool three_phase) {
  const double total = static_cast<double>(total_steps);
  if (three_phase) return {pct_start * total - 1, 2 * pct_start * total - 2, total - 1};
  return {pct_start * total - 1, total - 1};
}

struct PhaseAt {
  size_t index;
  double start_step;
};

// The phase that step falls in; Python divides by the phase's length there, so one of no steps raises
// ZeroDivisionError. ember says which phase and why instead of returning NaN.
PhaseAt phase_at(const std::vector<double>& ends, int64_t step) {
  double start_step = 0;
  size_t i = 0;
  while (static_cast<double>(step) > ends[i] && i + 1 < ends.size()) start_step = ends[i++];
  if (ends[i] == start_step) {
    throw Error("OneCycleLR: step " + std::to_string(step) + " falls in phase " + std::to_string(i + 1) +
                " of the schedule, which has no steps (it starts and ends at step " + python_float(start_step) +
                "), so its learning rate would divide by zero (PyTorch raises ZeroDivisionError); choose a pct_start "
                "that leaves every phase at least one step");
  }
  return {i, start_step};
}

int64_t total_steps_of(const OneCycleLROptions& o) {
  return o.total_steps() ? *o.total_steps() : *o.epochs() * *o.steps_per_epoch();
}

// Sets each group's schedule bounds before the base records initial_lr, as Python's constructor does.
int64_t prepare(Optimizer& optimizer, const OneCycleLROptions& o) {
  if (!o.total_steps() && !(o.epochs() && o.steps_per_epoch())) {
    if (!o.total_steps() && !o.epochs() && !o.steps_per_epoch()) {
      throw Error("You must define either total_steps OR (epochs AND steps_per_epoch)");
    }
  }
  if (o.total_steps()) {
    if (*o.total_steps() <= 0) throw Error("Expected positive integer total_steps, but got " + std::to_string(*o.total_steps()));
  } else {
    if (!o.epochs() || *o.epochs() <= 0) {
      throw Error("Expected positive integer epochs, but got " + (o.epochs() ? std::to_string(*o.epochs()) : "None"));
    }
    if (!o.steps_per_epoch() || *o.steps_per_epoch() <= 0) {
      throw Error("Expected positive integer steps_per_epoch, but got " +
                  (o.steps_per_epoch() ? std::to_string(*o.steps_per_epoch()) : "None"));
    }
  }
  if (o.pct_start() < 0 || o.pct_start() > 1) {
    throw Error("Expected float between 0 and 1 pct_start, but got " + python_float(o.pct_start()));
  }
  if (o.anneal_strategy() != "cos" && o.anneal_strategy() != "linear") {
    throw Error("anneal_strategy must by one of 'cos' or 'linear', instead got " + o.anneal_strategy());
  }
  phase_at(phase_ends(total_steps_of(o), o.pct_start(), o.three_phase()), o.last_epoch() + 1);  // the constructor's step
  const size_t group_count = optimizer.param_groups().size();
  const std::vector<double> max_lrs = o.max_lr().for_groups(group_count, "values for max_lr");
  std::vector<double> max_momentums, base_momentums;
  bool use_beta1 = false;
  if (o.cycle_momentum()) {
    use_beta1 = detail::momentum_is_beta1(optimizer);
    max_momentums = o.max_momentum().for_groups(group_count, "values for max_momentum");
    base_momentums = o.base_momentum().for_groups(group_count, "values for base_momentum");
  }
  // Everything checked: now the groups change.
  std::vector<OptimizerParamGroup>& groups = optimizer.param_groups();
  if (o.last_epoch() == -1) {
    for (size_t i = 0; i < groups.size(); ++i) {
      groups[i].set_extra("initial_lr", max_lrs[i] / o.div_factor());
      groups[i].set_extra("max_lr", max_lrs[i]);
      groups[i].set_extra("min_lr", *groups[i].extra("initial_lr") / o.final_div_factor());
    }
  }
  if (o.cycle_momentum() && o.last_epoch() == -1) {
    for (size_t i = 0; i < groups.size(); ++i) {
      detail::set_group_momentum(groups[i], max_momentums[i], use_beta1);
      groups[i].set_extra("max_momentum", max_momentums[i]);
      groups[i].set_extra("base_momentum", base_momentums[i]);
    }
  }
  return o.last_epoch();
}

}  // namespace

OneCycleLR::OneCycleLR(Optimizer& optimizer, const OneCycleLROptions& o)
    : LRScheduler(optimizer, prepare(optimizer, o)),
      total_steps_(total_steps_of(o)),
      phase_ends_(phase_ends(total_steps_, o.pct_start(), o.three_phase())),
      cosine_(o.anneal_strategy() == "cos"),
      cycle_momentum_(o.cycle_momentum()) {
  if (o.three_phase()) {
    phases_ = {{"initial_lr", "max_lr", "max_momentum", "base_momentum"},
               {"max_lr", "initial_lr", "base_momentum", "max_momentum"},
               {"initial_lr", "min_lr", "max_momentum", "max_momentum"}};
  } else {
    phases_ = {{"initial_lr", "max_lr", "max_momentum", "base_momentum"},
               {"max_lr", "min_lr", "base_momentum", "max_momentum"}};
  }
  if (cycle_momentum_) use_beta1_ = detail::momentum_is_beta1(optimizer);
  initial_step();
}

double OneCycleLR::anneal(double start, double end, double pct) const {
  if (cosine_) return end + (start - end) / 2.0 * (std::cos(std::numbers::pi * pct) + 1);
  return (end - start) * pct + start;
}

std::vector<double> OneCycleLR::get_lr() {
  const int64_t step_num = last_epoch_;
  if (step_num > total_steps_) {
    throw Error("Tried to step " + std::to_string(step_num + 1) + " times. The specified number of total steps is " +
                std::to_string(total_steps_));
  }
  const auto [index, start_step] = phase_at(phase_ends_, step_num);
  const Phase& phase = phases_[index];
  const double pct = (static_cast<double>(step_num) - start_step) / (phase_ends_[index] - start_step);
  std::vector<double> lrs;
  for (OptimizerParamGroup& group : optimizer_.param_groups()) {
    auto value = [&](const char* key) {
      const std::optional<double> v = group.extra(key);
      if (!v) throw Error(std::string("OneCycleLR: the param group has no '") + key + "'");
      return *v;
    };
    const double lr = anneal(value(phase.start_lr), value(phase.end_lr), pct);
    const double momentum = cycle_momentum_ ? anneal(value(phase.start_momentum), value(phase.end_momentum), pct) : 0;
    lrs.push_back(lr);
    if (cycle_momentum_) detail::set_group_momentum(group, momentum, use_beta1_);
  }
  return lrs;
}

void OneCycleLR::save_fields(detail::SchedulerJson& json) const {
  json.value["total_steps"] = total_steps_;
  nlohmann::ordered_json phases = nlohmann::ordered_json::array();
  for (size_t i = 0; i < phases_.size(); ++i) {
    const Phase& p = phases_[i];
    phases.push_back({{"end_step", phase_ends_[i]},
                      {"start_lr", p.start_lr},
                      {"end_lr", p.end_lr},
                      {"start_momentum", p.start_momentum},
                      {"end_momentum", p.end_momentum}});
  }
  json.value["_schedule_phases"] = phases;
  json.value["cycle_momentum"] = cycle_momentum_;
  if (cycle_momentum_) json.value["use_beta1"] = use_beta1_;
}

void OneCycleLR::load_fields(const detail::SchedulerJson& json) {
  const auto total_steps = json.get<int64_t>("total_steps");
  const auto phases = json.get<nlohmann::ordered_json>("_schedule_phases");
  if (!phases.is_array() || phases.size() != phases_.size()) {
    throw Error("load_state_dict: the scheduler state's _schedule_phases do not match this OneCycleLR's");
  }
  std::vector<double> ends;
  for (const auto& phase : phases) ends.push_back(phase.at("end_step").get<double>());
  total_steps_ = total_steps;
  phase_ends_ = std::move(ends);
}

}  // namespace ember::optim
