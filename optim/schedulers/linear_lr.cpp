#include "optim/schedulers/linear_lr.h"

#include <algorithm>

#include "optim/schedulers/scheduler_support.h"

namespace ember::optim {

namespace {
// A start factor of 0 passes Python 1.13's check and then divides by zero in the first step; later
// PyTorch refuses it here, with this message, and so does ember.
double checked_start(double factor) {
  if (factor > 1.0 || factor <= 0) {
    throw Error("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.");
  }
  return factor;
}

double checked_end(double factor) {
  if (factor > 1.0 || factor < 0) throw Error("Ending multiplicative factor expected to be between 0 and 1.");
  return factor;
}
}  // namespace

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor, int64_t total_iters, int64_t last_epoch)
    : LRScheduler(optimizer, (checked_start(start_factor), checked_end(end_factor), last_epoch)),
      start_factor_(start_factor),
      end_factor_(end_factor),
      total_iters_(total_iters) {
  initial_step();
}

std::vector<double> LinearLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) {
    for (double& lr : lrs) lr *= start_factor_;
    return lrs;
  }
  if (last_epoch_ > total_iters_) return lrs;
  const double factor =
      1. + (end_factor_ - start_factor_) /
               (static_cast<double>(total_iters_) * start_factor_ +
                static_cast<double>(last_epoch_ - 1) * (end_factor_ - start_factor_));
  for (double& lr : lrs) lr *= factor;
  return lrs;
}

std::optional<std::vector<double>> LinearLR::closed_form_lr() const {
  std::vector<double> lrs;
  for (double base : base_lrs_) {
    lrs.push_back(base * (start_factor_ + (end_factor_ - start_factor_) *
                                              static_cast<double>(std::min(total_iters_, last_epoch_)) /
                                              static_cast<double>(total_iters_)));
  }
  return lrs;
}

void LinearLR::save_fields(detail::SchedulerJson& json) const {
  json.value["start_factor"] = start_factor_;
  json.value["end_factor"] = end_factor_;
  json.value["total_iters"] = total_iters_;
}

void LinearLR::load_fields(const detail::SchedulerJson& json) {
  const auto start = json.get<double>("start_factor");
  const auto end = json.get<double>("end_factor");
  const auto total = json.get<int64_t>("total_iters");
  start_factor_ = start;
  end_factor_ = end;
  total_iters_ = total;
}

}  // namespace ember::optim
