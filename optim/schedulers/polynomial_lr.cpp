#include "optim/schedulers/polynomial_lr.h"

#include <algorithm>
#include <cmath>

#include "optim/schedulers/scheduler_support.h"

namespace ember::optim {

PolynomialLR::PolynomialLR(Optimizer& optimizer, int64_t total_iters, double power, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), total_iters_(total_iters), power_(power) {
  initial_step();
}

std::vector<double> PolynomialLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0 || last_epoch_ > total_iters_) return lrs;
  const double total = static_cast<double>(total_iters_);
  const double epoch = static_cast<double>(last_epoch_);
  const double decay = std::pow((1.0 - epoch / total) / (1.0 - (epoch - 1) / total), power_);
  for (double& lr : lrs) lr *= decay;
  return lrs;
}

std::optional<std::vector<double>> PolynomialLR::closed_form_lr() const {
  if (total_iters_ == 0) {
    throw Error("PolynomialLR: step(epoch) with total_iters 0 divides by zero (PyTorch raises ZeroDivisionError)");
  }
  const double total = static_cast<double>(total_iters_);
  const double reached = static_cast<double>(std::min(total_iters_, last_epoch_));
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * std::pow(1.0 - reached / total, power_));
  return lrs;
}

void PolynomialLR::save_fields(detail::SchedulerJson& json) const {
  json.value["total_iters"] = total_iters_;
  json.value["power"] = power_;
}

void PolynomialLR::load_fields(const detail::SchedulerJson& json) {
  const auto total_iters = json.get<int64_t>("total_iters");
  const auto power = json.get<double>("power");
  total_iters_ = total_iters;
  power_ = power;
}

}  // namespace ember::optim
