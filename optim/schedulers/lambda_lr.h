#pragma once
// LambdaLR: each group's lr is its initial lr times lr_lambda(epoch), as Python 1.13's.
#include <functional>

#include "optim/schedulers/lr_scheduler.h"

namespace ember::optim {

class LambdaLR : public LRScheduler {
 public:
  using Lambda = std::function<double(int64_t epoch)>;
  // One function for every group.
  LambdaLR(Optimizer& optimizer, Lambda lr_lambda, int64_t last_epoch = -1);
  // One function per group; throws Python's error when the counts differ.
  LambdaLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  void save_fields(detail::SchedulerJson& json) const override;

 private:
  std::vector<Lambda> lr_lambdas_;
};

}  // namespace ember::optim
