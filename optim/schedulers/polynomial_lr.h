#pragma once
// PolynomialLR: each group's lr decays as (1 - epoch / total_iters)^power to 0 at total_iters, with
// Python 1.13's chained and closed forms.
#include "optim/schedulers/lr_scheduler.h"

namespace ember::optim {

class PolynomialLR : public LRScheduler {
 public:
  PolynomialLR(Optimizer& optimizer, int64_t total_iters = 5, double power = 1.0, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  // Throws for total_iters 0, where Python raises ZeroDivisionError.
  std::optional<std::vector<double>> closed_form_lr() const override;
  void save_fields(detail::SchedulerJson& json) const override;
  void load_fields(const detail::SchedulerJson& json) override;

 private:
  int64_t total_iters_;
  double power_;
};

}  // namespace ember::optim
