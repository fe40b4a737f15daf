#include "optim/schedulers/cosine_annealing_warm_restarts.h"

#include <cmath>
#include <numbers>

#include "optim/schedulers/scheduler_support.h"

namespace ember::optim {

namespace {
int64_t checked(int64_t T_0, int64_t T_mult, int64_t last_epoch) {
  if (T_0 <= 0) throw Error("Expected positive integer T_0, but got " + std::to_string(T_0));
  if (T_mult < 1) throw Error("Expected integer T_mult >= 1, but got " + std::to_string(T_mult));
  return last_epoch;
}
}  // namespace

CosineAnnealingWarmRestarts::CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0, int64_t T_mult,
                                                         double eta_min, int64_t last_epoch)
    : LRScheduler(optimizer, checked(T_0, T_mult, last_epoch)),
      T_0_(T_0),
      T_i_(T_0),
      T_mult_(T_mult),
      eta_min_(eta_min),
      T_cur_(static_cast<double>(last_epoch)) {
  initial_step();
}

// Python's step() without an epoch; its _step_count stays where _initial_step left it, and so does ember's.
void CosineAnnealingWarmRestarts::step() {
  if (last_epoch_ < 0) {
    step_to(0);
    return;
  }
  T_cur_ += 1;
  if (T_cur_ >= static_cast<double>(T_i_)) {
    T_cur_ -= static_cast<double>(T_i_);
    T_i_ *= T_mult_;
  }
  last_epoch_ += 1;
  set_group_lrs(get_lr());
}

void CosineAnnealingWarmRestarts::step_to(double epoch) {
  if (epoch < 0) throw Error("Expected non-negative epoch, but got " + nlohmann::json(epoch).dump());
  const double T_0 = static_cast<double>(T_0_);
  if (epoch >= T_0) {
    if (T_mult_ == 1) {
      T_cur_ = std::fmod(epoch, T_0);
    } else {
      const double mult = static_cast<double>(T_mult_);
      // Python's int(): the restart count, truncated.
      const auto n = static_cast<int64_t>(std::log(epoch / T_0 * (mult - 1) + 1) / std::log(mult));
      const double mult_n = std::pow(mult, static_cast<double>(n));
      T_cur_ = epoch - T_0 * (mult_n - 1) / (mult - 1);
      T_i_ = T_0_ * static_cast<int64_t>(mult_n);
    }
  } else {
    T_i_ = T_0_;
    T_cur_ = epoch;
  }
  last_epoch_ = static_cast<int64_t>(std::floor(epoch));
  set_group_lrs(get_lr());
}

std::vector<double> CosineAnnealingWarmRestarts::get_lr() {
  std::vector<double> lrs;
  for (double base : base_lrs_) {
    lrs.push_back(eta_min_ + (base - eta_min_) *
                                 (1 + std::cos(std::numbers::pi * T_cur_ / static_cast<double>(T_i_))) / 2);
  }
  return lrs;
}

void CosineAnnealingWarmRestarts::save_fields(detail::SchedulerJson& json) const {
  json.value["T_0"] = T_0_;
  json.value["T_i"] = T_i_;
  json.value["T_mult"] = T_mult_;
  json.value["eta_min"] = eta_min_;
  json.value["T_cur"] = T_cur_;
}

void CosineAnnealingWarmRestarts::load_fields(const detail::SchedulerJson& json) {
  const auto T_0 = json.get<int64_t>("T_0");
  const auto T_i = json.get<int64_t>("T_i");
  const auto T_mult = json.get<int64_t>("T_mult");
  const auto eta_min = json.get<double>("eta_min");
  const auto T_cur = json.get<double>("T_cur");
  checked(T_0, T_mult, 0);
  T_0_ = T_0;
  T_i_ = T_i;
  T_mult_ = T_mult;
  eta_min_ = eta_min;
  T_cur_ = T_cur;
}

}  // namespace ember::optim
