#include "optim/schedulers/step_lr.h"

#include <cmath>

#include "optim/schedulers/scheduler_support.h"

namespace ember::optim {

StepLR::StepLR(Optimizer& optimizer, unsigned step_size, double gamma, int64_t last_epoch)
    : LRScheduler(optimizer, step_size > 0 ? last_epoch : throw Error("StepLR: step_size must be positive")),
      step_size_(step_size),
      gamma_(gamma) {
  initial_step();
}

std::vector<double> StepLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0 || last_epoch_ % step_size_ != 0) return lrs;
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

std::optional<std::vector<double>> StepLR::closed_form_lr() const {
  std::vector<double> lrs;
  const int64_t k = last_epoch_ >= 0 ? last_epoch_ / step_size_ : -((-last_epoch_ + step_size_ - 1) / step_size_);
  for (double base : base_lrs_) lrs.push_back(base * std::pow(gamma_, static_cast<double>(k)));
  return lrs;
}

void StepLR::save_fields(detail::SchedulerJson& json) const {
  json.value["step_size"] = step_size_;
  json.value["gamma"] = gamma_;
}

void StepLR::load_fields(const detail::SchedulerJson& json) {
  const auto step_size = json.get<unsigned>("step_size");
  const auto gamma = json.get<double>("gamma");
  step_size_ = step_size;
  gamma_ = gamma;
}

}  // namespace ember::optim
