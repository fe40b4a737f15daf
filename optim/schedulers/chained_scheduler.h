#pragma once
// ChainedScheduler: steps several schedulers of one optimizer together, each applying its chained form
// to the lr the one before it left (a warmup factor times an exponential decay, say), as Python 1.13's.
#include <memory>

#include "optim/schedulers/lr_scheduler.h"

namespace ember::optim {

class ChainedScheduler : public LRScheduler {
 public:
  // Throws Python's error for schedulers of different optimizers, and Error for none.
  explicit ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers);

  void step() override;
  // Python's ChainedScheduler.step() takes no epoch: throws Error.
  void step(int64_t epoch) override;
  std::string state_dict() const override;
  void load_state_dict(const std::string& state) override;

 protected:
  std::vector<double> get_lr() override { return group_lrs(); }

 private:
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
};

}  // namespace ember::optim
