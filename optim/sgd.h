#pragma once
// SGD as torch::optim::SGD (LibTorch 1.13) with Python's `maximize`: PyTorch 1.13's formula
// (torch/optim/sgd.py), fused into one kernel launch per (device, dtype) of each group.
#include "nn/arg.h"
#include "optim/optimizer.h"

namespace ember::optim {

struct SGDOptions : public OptimizerCloneableOptions<SGDOptions> {
  SGDOptions(double lr);
  EMBER_ARG(double, lr);
  EMBER_ARG(double, momentum) = 0;
  EMBER_ARG(double, dampening) = 0;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, nesterov) = false;
  EMBER_ARG(bool, maximize) = false;

 public:
  OptionItems items() const override;
  bool set_item(const std::string& key, const OptionValue& value) override;
};

class SGD : public Optimizer {
 public:
  // Throws LibTorch's errors for a negative lr, momentum or weight_decay, and for nesterov without
  // momentum or with dampening.
  explicit SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults);
  explicit SGD(std::vector<Tensor> params, SGDOptions defaults);

 protected:
  OptimAlgorithm algorithm() const override { return OptimAlgorithm::SGD; }
  OptimHyperparameters hyperparameters(const OptimizerOptions& options) const override;
};

}  // namespace ember::optim
