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
  struct WithoutInitialStep {};
  // For a subclass with its own get_lr, which takes the initial step itself (a virtual call from this
  // constructor would reach LambdaLR's get_lr).
  LambdaLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas, int64_t last_epoch, WithoutInitialStep);
  std::vector<double> get_lr() override;
  void save_fields(detail::SchedulerJson& json) const override;

  std::vector<Lambda> lr_lambdas_;
};

}  // namespace ember::optim
