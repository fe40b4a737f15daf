#pragma once
// ConstantLR: each group's lr times `factor` until epoch total_iters, then back to the initial lr, with
// Python 1.13's chained and closed forms.
#include "optim/schedulers/lr_scheduler.h"

namespace ember::optim {

class ConstantLR : public LRScheduler {
 public:
  // Throws Python's error for a factor outside [0, 1].
  ConstantLR(Optimizer& optimizer, double factor = 1.0 / 3, int64_t total_iters = 5, int64_t last_epoch = -1);

 protected:
  // With a factor of 0 the step at total_iters throws, where Python raises ZeroDivisionError.
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() const override;
  void save_fields(detail::SchedulerJson& json) const override;
  void load_fields(const detail::SchedulerJson& json) override;

 private:
  double factor_;
  int64_t total_iters_;
};

}  // namespace ember::optim
