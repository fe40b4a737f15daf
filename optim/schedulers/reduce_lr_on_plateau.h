#pragma once
// ReduceLROnPlateau: lr times factor when a metric has stopped improving for `patience` epochs, as
// Python 1.13's. The metric is a host number: reading a device loss for it is the caller's one sync.
#include <string>

#include "nn/arg.h"
#include "optim/optimizer.h"
#include "optim/schedulers/group_values.h"

namespace ember::optim {

struct ReduceLROnPlateauOptions {
  EMBER_ARG(std::string, mode) = "min";  // "min" or "max"
  EMBER_ARG(double, factor) = 0.1;
  EMBER_ARG(int64_t, patience) = 10;
  EMBER_ARG(double, threshold) = 1e-4;
  EMBER_ARG(std::string, threshold_mode) = "rel";  // "rel" or "abs"
  EMBER_ARG(int64_t, cooldown) = 0;
  EMBER_ARG(GroupValues, min_lr) = 0.0;
  EMBER_ARG(double, eps) = 1e-8;
};

class ReduceLROnPlateau {
 public:
  // Throws Python's errors for factor >= 1, a min_lr list not of one per group, and unknown modes.
  explicit ReduceLROnPlateau(Optimizer& optimizer, const ReduceLROnPlateauOptions& options = {});

  void step(double metric);
  // The groups' lr after the last step (before the first: their lr now).
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  int64_t num_bad_epochs() const { return num_bad_epochs_; }

  // Python's state_dict() as JSON text (infinities as the strings "Infinity" and "-Infinity"), and its load.
  std::string state_dict() const;
  void load_state_dict(const std::string& state);

 private:
  bool is_better(double a, double best) const;
  void reduce_lr();

  Optimizer& optimizer_;
  ReduceLROnPlateauOptions options_;
  std::vector<double> min_lrs_;
  double best_ = 0;
  double mode_worse_ = 0;
  int64_t num_bad_epochs_ = 0;
  int64_t cooldown_counter_ = 0;
  int64_t last_epoch_ = 0;
  std::vector<double> last_lr_;
};

}  // namespace ember::optim
