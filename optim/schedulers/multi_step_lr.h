#pragma once
// MultiStepLR: lr times gamma at each milestone epoch (a milestone listed twice counts twice), as
// Python 1.13's.
#include <map>

#include "optim/schedulers/lr_scheduler.h"

namespace ember::optim {

class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, const std::vector<int64_t>& milestones, double gamma = 0.1,
              int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() const override;
  void save_fields(detail::SchedulerJson& json) const override;
  void load_fields(const detail::SchedulerJson& json) override;

 private:
  std::map<int64_t, int> milestones_;  // epoch -> how many times it was listed (Python's Counter)
  double gamma_;
};

}  // namespace ember::optim
