#pragma once
// ExponentialLR: lr times gamma every epoch, as Python 1.13's.
#include "optim/schedulers/lr_scheduler.h"

namespace ember::optim {

class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() const override;
  void save_fields(detail::SchedulerJson& json) const override;
  void load_fields(const detail::SchedulerJson& json) override;

 private:
  double gamma_;
};

}  // namespace ember::optim
