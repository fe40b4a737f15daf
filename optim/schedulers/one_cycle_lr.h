#pragma once
// OneCycleLR: the 1cycle policy, lr up from max_lr / div_factor to max_lr then down to the initial lr /
// final_div_factor (and momentum, or Adam's beta1, the other way), per batch, as Python 1.13's.
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "nn/arg.h"
#include "optim/schedulers/group_values.h"
#include "optim/schedulers/lr_scheduler.h"

namespace ember::optim {

struct OneCycleLROptions {
  // One max_lr for every group (a number), or a list of one per group. Three constructors rather than
  // one taking GroupValues, so that `OneCycleLROptions({0.1})` is a list and not ambiguous with a copy.
  OneCycleLROptions(double max_lr) : max_lr_(max_lr) {}
  OneCycleLROptions(std::initializer_list<double> max_lr) : max_lr_(max_lr) {}
  OneCycleLROptions(std::vector<double> max_lr) : max_lr_(std::move(max_lr)) {}
  EMBER_ARG(GroupValues, max_lr);
  EMBER_ARG(std::optional<int64_t>, total_steps);
  EMBER_ARG(std::optional<int64_t>, epochs);
  EMBER_ARG(std::optional<int64_t>, steps_per_epoch);
  EMBER_ARG(double, pct_start) = 0.3;
  EMBER_ARG(std::string, anneal_strategy) = "cos";  // "cos" or "linear"
  EMBER_ARG(bool, cycle_momentum) = true;
  EMBER_ARG(GroupValues, base_momentum) = 0.85;
  EMBER_ARG(GroupValues, max_momentum) = 0.95;
  EMBER_ARG(double, div_factor) = 25.;
  EMBER_ARG(double, final_div_factor) = 1e4;
  EMBER_ARG(bool, three_phase) = false;
  EMBER_ARG(int64_t, last_epoch) = -1;
};

class OneCycleLR : public LRScheduler {
 public:
  // Throws Python's errors for bad step counts, pct_start, anneal_strategy, per-group counts, and
  // cycle_momentum with an optimizer that has neither momentum nor betas.
  OneCycleLR(Optimizer& optimizer, const OneCycleLROptions& options);

 protected:
  // Throws Python's error past total_steps.
  std::vector<double> get_lr() override;
  void save_fields(detail::SchedulerJson& json) const override;
  void load_fields(const detail::SchedulerJson& json) override;

 private:
  // The group keys a phase anneals between.
  struct Phase {
    const char* start_lr;
    const char* end_lr;
    const char* start_momentum;
    const char* end_momentum;
  };
  double anneal(double start, double end, double pct) const;

  int64_t total_steps_ = 0;
  std::vector<double> phase_ends_;  // the step each phase ends at, as Python's _schedule_phases
  std::vector<Phase> phases_;
  bool cosine_ = true;
  bool cycle_momentum_ = true;
  bool use_beta1_ = false;
};

}  // namespace ember::optim
