#pragma once
// SequentialLR: one scheduler until the first milestone, the next until the second, ... (a warmup then a
// cosine), as Python 1.13's: at a milestone the next scheduler starts with step(0), its closed form.
#include <memory>

#include "optim/schedulers/lr_scheduler.h"

namespace ember::optim {

class SequentialLR : public LRScheduler {
 public:
  // Throws Python's errors for schedulers of another optimizer and for a milestone count other than
  // the schedulers' less one.
  SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
               std::vector<int64_t> milestones, int64_t last_epoch = -1);

  void step() override;
  // Python's SequentialLR.step() takes no epoch: throws Error.
  void step(int64_t epoch) override;
  std::string state_dict() const override;
  void load_state_dict(const std::string& state) override;

 protected:
  std::vector<double> get_lr() override { return group_lrs(); }

 private:
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
  std::vector<int64_t> milestones_;
};

}  // namespace ember::optim
