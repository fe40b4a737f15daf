#pragma once
// LinearLR: the lr factor goes linearly from start_factor to end_factor over total_iters epochs (a
// warmup), with Python 1.13's chained and closed forms.
#include "optim/schedulers/lr_scheduler.h"

namespace ember::optim {

class LinearLR : public LRScheduler {
 public:
  // Throws Python's errors for factors outside [0, 1].
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0, int64_t total_iters = 5,
           int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() const override;
  void save_fields(detail::SchedulerJson& json) const override;
  void load_fields(const detail::SchedulerJson& json) override;

 private:
  double start_factor_;
  double end_factor_;
  int64_t total_iters_;
};

}  // namespace ember::optim
