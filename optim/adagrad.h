#pragma once
// Adagrad as torch::optim::Adagrad (LibTorch 1.13) with Python's `maximize`: PyTorch 1.13's formula
// (torch/optim/adagrad.py: lr_decay, weight_decay, initial_accumulator_value, eps), fused into one kernel
// launch per (device, dtype) of each group. As in PyTorch, the state (sum = initial_accumulator_value,
// step 0) exists from construction.
#include "nn/arg.h"
#include "optim/optimizer.h"

namespace ember::optim {

struct AdagradOptions : public OptimizerCloneableOptions<AdagradOptions> {
  AdagradOptions(double lr = 1e-2);
  EMBER_ARG(double, lr) = 1e-2;
  EMBER_ARG(double, lr_decay) = 0;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(double, initial_accumulator_value) = 0;
  EMBER_ARG(double, eps) = 1e-10;
  EMBER_ARG(bool, maximize) = false;

 public:
  OptionItems items() const override;
  bool set_item(const std::string& key, const OptionValue& value) override;
};

class Adagrad : public Optimizer {
 public:
  // Throws LibTorch's errors for a negative lr, lr_decay, weight_decay, initial_accumulator_value or eps.
  explicit Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults = {});
  explicit Adagrad(std::vector<Tensor> params, AdagradOptions defaults = {});

 protected:
  OptimAlgorithm algorithm() const override { return OptimAlgorithm::Adagrad; }
  OptimHyperparameters hyperparameters(const OptimizerOptions& options) const override;
  std::optional<double> eager_state_value(const OptimizerOptions& options) const override;
};

}  // namespace ember::optim
