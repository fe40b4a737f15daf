#pragma once
// The base of the epoch-based learning-rate schedulers, with PyTorch 1.13's semantics (Python's
// torch.optim.lr_scheduler._LRScheduler; LibTorch 1.13 has only StepLR): construction records each
// group's initial_lr and takes the first step (epoch 0); step() advances one epoch with the scheduler's
// chained form, computed from the groups' current lr as Python's get_lr() does; step(epoch) jumps to an
// epoch with the closed form where PyTorch has one. The optimizer's lr changes on the host only, so
// the next optimizer step needs no synchronisation.
//
//   ember::optim::SGD opt(params, ember::optim::SGDOptions(0.1));
//   ember::optim::StepLR scheduler(opt, /*step_size=*/30, /*gamma=*/0.1);
//   for (int epoch = 0; epoch < 100; ++epoch) { train(opt); scheduler.step(); }
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "optim/optimizer.h"

namespace ember::optim {

namespace detail {
struct SchedulerJson;  // scheduler_support.h
}

class LRScheduler {
 public:
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;
  virtual ~LRScheduler() = default;

  // One epoch on: last_epoch + 1 and each group's lr from the chained form.
  virtual void step();
  // To `epoch`, with the closed form where PyTorch has one (Python's deprecated step(epoch)).
  virtual void step(int64_t epoch);
  // The lr of each group after the last step.
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  const std::vector<double>& base_lrs() const { return base_lrs_; }
  Optimizer& optimizer() const { return optimizer_; }

  // Python's scheduler.state_dict() (its __dict__ without the optimizer) as JSON text, and its load.
  virtual std::string state_dict() const;
  virtual void load_state_dict(const std::string& state);

 protected:
  // Records initial_lr in each group (last_epoch -1), or requires it (resuming, last_epoch >= 0) with
  // Python's error. Subclasses end their constructor with initial_step().
  LRScheduler(Optimizer& optimizer, int64_t last_epoch);
  // Python's _initial_step(): the step counts to 0, then one step.
  void initial_step();
  // The lrs for last_epoch_ from the groups' current lrs (Python's get_lr()).
  virtual std::vector<double> get_lr() = 0;
  // The lrs for last_epoch_ from base_lrs_ (Python's _get_closed_form_lr()), where the scheduler has one.
  virtual std::optional<std::vector<double>> closed_form_lr() const { return std::nullopt; }
  // The subclass's own entries of state_dict(), in Python's order, and their load.
  virtual void save_fields(detail::SchedulerJson& json) const;
  virtual void load_fields(const detail::SchedulerJson& json);

  std::vector<double> group_lrs() const;
  void set_group_lrs(const std::vector<double>& lrs);
  size_t groups() const { return optimizer_.param_groups().size(); }

  Optimizer& optimizer_;
  std::vector<double> base_lrs_;
  int64_t last_epoch_ = -1;
  int64_t step_count_ = 0;
  std::vector<double> last_lr_;

  friend class SequentialLR;
};

}  // namespace ember::optim
