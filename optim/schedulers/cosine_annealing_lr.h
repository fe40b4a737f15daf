#pragma once
// CosineAnnealingLR: lr along half a cosine from the initial lr to eta_min over T_max epochs, and back up
// over the next T_max, with Python 1.13's chained form (and its closed form for step(epoch)).
#include "optim/schedulers/lr_scheduler.h"

namespace ember::optim {

class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() const override;
  void save_fields(detail::SchedulerJson& json) const override;
  void load_fields(const detail::SchedulerJson& json) override;

 private:
  int64_t T_max_;
  double eta_min_;
};

}  // namespace ember::optim
