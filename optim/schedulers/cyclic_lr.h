#pragma once
// CyclicLR: per batch, each group's lr cycles between base_lr and max_lr (and momentum, or Adam's beta1,
// the other way, between max_momentum and base_momentum), as Python 1.13's, with its three policies
// (triangular, triangular2, exp_range) or a scale function of one's own. Unlike 1.13 (as PyTorch 2),
// momentum cycling also works for an optimizer with betas.
#include <functional>
#include <optional>
#include <string>

#include "nn/arg.h"
#include "optim/schedulers/group_values.h"
#include "optim/schedulers/lr_scheduler.h"

namespace ember::optim {

struct CyclicLROptions {
  CyclicLROptions(GroupValues base_lr, GroupValues max_lr) : base_lr_(std::move(base_lr)), max_lr_(std::move(max_lr)) {}
  EMBER_ARG(GroupValues, base_lr);
  EMBER_ARG(GroupValues, max_lr);
  EMBER_ARG(double, step_size_up) = 2000;
  EMBER_ARG(std::optional<double>, step_size_down);  // default: step_size_up
  EMBER_ARG(std::string, mode) = "triangular";        // "triangular", "triangular2" or "exp_range"
  EMBER_ARG(double, gamma) = 1.0;                      // exp_range's factor per iteration
  // Replaces the mode's scale; scale_mode says whether it gets the cycle number or the iteration.
  EMBER_ARG(std::function<double(double)>, scale_fn);
  EMBER_ARG(std::string, scale_mode) = "cycle";  // "cycle" or "iterations"
  EMBER_ARG(bool, cycle_momentum) = true;
  EMBER_ARG(GroupValues, base_momentum) = 0.8;
  EMBER_ARG(GroupValues, max_momentum) = 0.9;
  EMBER_ARG(int64_t, last_epoch) = -1;
};

class CyclicLR : public LRScheduler {
 public:
  // Throws Python's errors for per-group counts, an unknown mode without scale_fn, and cycle_momentum
  // with an optimizer that has neither momentum nor betas; the optimizer is unchanged then.
  CyclicLR(Optimizer& optimizer, const CyclicLROptions& options);

 protected:
  std::vector<double> get_lr() override;
  // Python 2's entries (1.13's state_dict holds a weak method reference that JSON cannot carry); the
  // scale function itself does not travel.
  void save_fields(detail::SchedulerJson& json) const override;
  void load_fields(const detail::SchedulerJson& json) override;

 private:
  double scale(double x) const;

  std::vector<double> max_lrs_;
  double total_size_;
  double step_ratio_;
  std::string mode_;
  double gamma_;
  std::function<double(double)> scale_fn_;
  std::string scale_mode_;
  bool cycle_momentum_;
  bool use_beta1_ = false;
  std::vector<double> base_momentums_;
  std::vector<double> max_momentums_;
};

}  // namespace ember::optim
