#include "optim/schedulers/exponential_lr.h"

#include <cmath>

#include "optim/schedulers/scheduler_support.h"

namespace ember::optim {

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), gamma_(gamma) {
  initial_step();
}

std::vector<double> ExponentialLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) return lrs;
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

std::optional<std::vector<double>> ExponentialLR::closed_form_lr() const {
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * std::pow(gamma_, static_cast<double>(last_epoch_)));
  return lrs;
}

void ExponentialLR::save_fields(detail::SchedulerJson& json) const { json.value["gamma"] = gamma_; }

void ExponentialLR::load_fields(const detail::SchedulerJson& json) { gamma_ = json.get<double>("gamma"); }

}  // namespace ember::optim
