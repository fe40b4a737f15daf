#pragma once
// StepLR: lr times gamma every step_size epochs (torch::optim::StepLR's signature, Python 1.13's forms).
#include "optim/schedulers/lr_scheduler.h"

namespace ember::optim {

class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, unsigned step_size, double gamma = 0.1, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() const override;
  void save_fields(detail::SchedulerJson& json) const override;
  void load_fields(const detail::SchedulerJson& json) override;

 private:
  unsigned step_size_;
  double gamma_;
};

}  // namespace ember::optim
