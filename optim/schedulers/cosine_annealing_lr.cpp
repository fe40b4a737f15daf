#include "optim/schedulers/cosine_annealing_lr.h"

#include <cmath>
#include <numbers>

#include "optim/schedulers/scheduler_support.h"

namespace ember::optim {

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min, int64_t last_epoch)
    : LRScheduler(optimizer, T_max > 0 ? last_epoch : throw Error("CosineAnnealingLR: T_max must be positive")),
      T_max_(T_max),
      eta_min_(eta_min) {
  initial_step();
}

std::vector<double> CosineAnnealingLR::get_lr() {
  constexpr double pi = std::numbers::pi;
  const double T = static_cast<double>(T_max_);
  const double epoch = static_cast<double>(last_epoch_);
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) return lrs;
  for (size_t i = 0; i < lrs.size(); ++i) {
    const double base = base_lrs_[i];
    if (step_count_ == 1 && last_epoch_ > 0) {
      lrs[i] = eta_min_ + (base - eta_min_) * (1 + std::cos(epoch * pi / T)) / 2;
    } else if ((last_epoch_ - 1 - T_max_) % (2 * T_max_) == 0) {
      lrs[i] = lrs[i] + (base - eta_min_) * (1 - std::cos(pi / T)) / 2;
    } else {
      lrs[i] = (1 + std::cos(pi * epoch / T)) / (1 + std::cos(pi * (epoch - 1) / T)) * (lrs[i] - eta_min_) + eta_min_;
    }
  }
  return lrs;
}

std::optional<std::vector<double>> CosineAnnealingLR::closed_form_lr() const {
  constexpr double pi = std::numbers::pi;
  std::vector<double> lrs;
  for (double base : base_lrs_) {
    lrs.push_back(eta_min_ + (base - eta_min_) * (1 + std::cos(pi * static_cast<double>(last_epoch_) / T_max_)) / 2);
  }
  return lrs;
}

void CosineAnnealingLR::save_fields(detail::SchedulerJson& json) const {
  json.value["T_max"] = T_max_;
  json.value["eta_min"] = eta_min_;
}

void CosineAnnealingLR::load_fields(const detail::SchedulerJson& json) {
  const auto T_max = json.get<int64_t>("T_max");
  const auto eta_min = json.get<double>("eta_min");
  T_max_ = T_max;
  eta_min_ = eta_min;
}

}  // namespace ember::optim
