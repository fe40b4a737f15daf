#include "optim/schedulers/multi_step_lr.h"

#include <cmath>

#include "optim/schedulers/scheduler_support.h"

namespace ember::optim {

MultiStepLR::MultiStepLR(Optimizer& optimizer, const std::vector<int64_t>& milestones, double gamma, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), gamma_(gamma) {
  for (int64_t m : milestones) milestones_[m] += 1;
  initial_step();
}

std::vector<double> MultiStepLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  auto it = milestones_.find(last_epoch_);
  if (it == milestones_.end()) return lrs;
  for (double& lr : lrs) lr *= std::pow(gamma_, it->second);
  return lrs;
}

std::optional<std::vector<double>> MultiStepLR::closed_form_lr() const {
  int passed = 0;  // bisect_right over the sorted milestones
  for (const auto& [epoch, count] : milestones_) {
    if (epoch <= last_epoch_) passed += count;
  }
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * std::pow(gamma_, passed));
  return lrs;
}

void MultiStepLR::save_fields(detail::SchedulerJson& json) const {
  nlohmann::ordered_json counter = nlohmann::ordered_json::object();
  for (const auto& [epoch, count] : milestones_) counter[std::to_string(epoch)] = count;
  json.value["milestones"] = counter;
  json.value["gamma"] = gamma_;
}

void MultiStepLR::load_fields(const detail::SchedulerJson& json) {
  const auto counter = json.get<nlohmann::ordered_json>("milestones");
  std::map<int64_t, int> milestones;
  for (const auto& [key, count] : counter.items()) {
    try {
      milestones[std::stoll(key)] = count.get<int>();
    } catch (const std::exception&) {
      throw Error("load_state_dict: the scheduler state's milestones are not epochs with counts");
    }
  }
  const auto gamma = json.get<double>("gamma");
  milestones_ = std::move(milestones);
  gamma_ = gamma;
}

}  // namespace ember::optim
