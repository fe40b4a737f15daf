#pragma once
// RMSprop as torch::optim::RMSprop (LibTorch 1.13) with Python's `maximize`: PyTorch 1.13's formula
// (torch/optim/rmsprop.py: alpha, eps, weight_decay, momentum, centered), fused into one kernel launch
// per (device, dtype) of each group.
#include "nn/arg.h"
#include "optim/optimizer.h"

namespace ember::optim {

struct RMSpropOptions : public OptimizerCloneableOptions<RMSpropOptions> {
  RMSpropOptions(double lr = 1e-2);
  EMBER_ARG(double, lr) = 1e-2;
  EMBER_ARG(double, alpha) = 0.99;
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(double, momentum) = 0;
  EMBER_ARG(bool, centered) = false;
  EMBER_ARG(bool, maximize) = false;

 public:
  OptionItems items() const override;
  bool set_item(const std::string& key, const OptionValue& value) override;
};

class RMSprop : public Optimizer {
 public:
  // Throws LibTorch's errors for a negative lr, eps, momentum, weight_decay or alpha.
  explicit RMSprop(std::vector<OptimizerParamGroup> param_groups, RMSpropOptions defaults = {});
  explicit RMSprop(std::vector<Tensor> params, RMSpropOptions defaults = {});

 protected:
  OptimAlgorithm algorithm() const override { return OptimAlgorithm::RMSprop; }
  OptimHyperparameters hyperparameters(const OptimizerOptions& options) const override;
};

}  // namespace ember::optim
