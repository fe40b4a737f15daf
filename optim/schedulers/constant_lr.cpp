#include "optim/schedulers/constant_lr.h"

#include "optim/schedulers/scheduler_support.h"

namespace ember::optim {

namespace {
int64_t checked(double factor, int64_t last_epoch) {
  if (factor > 1.0 || factor < 0) throw Error("Constant multiplicative factor expected to be between 0 and 1.");
  return last_epoch;
}
}  // namespace

ConstantLR::ConstantLR(Optimizer& optimizer, double factor, int64_t total_iters, int64_t last_epoch)
    : LRScheduler(optimizer, checked(factor, last_epoch)), factor_(factor), total_iters_(total_iters) {
  initial_step();
}

std::vector<double> ConstantLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) {
    for (double& lr : lrs) lr *= factor_;
  } else if (last_epoch_ == total_iters_) {
    if (factor_ == 0) {
      throw Error("ConstantLR: epoch " + std::to_string(last_epoch_) +
                  " undoes a factor of 0, which divides by zero (PyTorch raises ZeroDivisionError); use a factor "
                  "above 0");
    }
    for (double& lr : lrs) lr *= 1.0 / factor_;
  }
  return lrs;
}

std::optional<std::vector<double>> ConstantLR::closed_form_lr() const {
  std::vector<double> lrs;
  const double reached = last_epoch_ >= total_iters_ ? 1.0 : 0.0;
  for (double base : base_lrs_) lrs.push_back(base * (factor_ + reached * (1 - factor_)));
  return lrs;
}

void ConstantLR::save_fields(detail::SchedulerJson& json) const {
  json.value["factor"] = factor_;
  json.value["total_iters"] = total_iters_;
}

void ConstantLR::load_fields(const detail::SchedulerJson& json) {
  const auto factor = json.get<double>("factor");
  const auto total_iters = json.get<int64_t>("total_iters");
  factor_ = factor;
  total_iters_ = total_iters;
}

}  // namespace ember::optim
