#pragma once
// CosineAnnealingWarmRestarts (SGDR): lr along half a cosine from the initial lr to eta_min over T_0
// epochs, then again from the top over T_0 * T_mult, T_0 * T_mult^2, ..., as Python 1.13's. It may be
// stepped per batch with a fractional epoch: step(epoch + batch / batches).
#include <concepts>

#include "optim/schedulers/lr_scheduler.h"

namespace ember::optim {

class CosineAnnealingWarmRestarts : public LRScheduler {
 public:
  // Throws Python's errors for T_0 < 1 and T_mult < 1.
  CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0, int64_t T_mult = 1, double eta_min = 0,
                              int64_t last_epoch = -1);

  void step() override;
  void step(int64_t epoch) override { step_to(static_cast<double>(epoch)); }
  // A fractional epoch; throws Python's error for a negative one. A template, so that step(3) with an
  // int takes the integer overload instead of being ambiguous.
  template <std::floating_point Epoch>
  void step(Epoch epoch) {
    step_to(static_cast<double>(epoch));
  }
  double T_cur() const { return T_cur_; }
  int64_t T_i() const { return T_i_; }

 protected:
  std::vector<double> get_lr() override;
  void save_fields(detail::SchedulerJson& json) const override;
  void load_fields(const detail::SchedulerJson& json) override;

 private:
  void step_to(double epoch);

  int64_t T_0_;
  int64_t T_i_;
  int64_t T_mult_;
  double eta_min_;
  double T_cur_;
};

}  // namespace ember::optim
