#pragma once
// Adam as torch::optim::Adam (LibTorch 1.13) with Python's `maximize`: PyTorch 1.13's formula
// (torch/optim/adam.py, L2 weight decay on the gradient, amsgrad), fused into one kernel launch per
// (device, dtype) of each group, the bias corrections computed on the device from the step count.
#include <tuple>

#include "nn/arg.h"
#include "optim/optimizer.h"

namespace ember::optim {

struct AdamOptions : public OptimizerCloneableOptions<AdamOptions> {
  AdamOptions(double lr = 1e-3);
  EMBER_ARG(double, lr) = 1e-3;
  typedef std::tuple<double, double> betas_t;
  EMBER_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, amsgrad) = false;
  EMBER_ARG(bool, maximize) = false;

 public:
  OptionItems items() const override;
  bool set_item(const std::string& key, const OptionValue& value) override;
};

class Adam : public Optimizer {
 public:
  // Throws LibTorch's errors for a negative lr, eps or weight_decay, and betas outside [0, 1).
  explicit Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults = {});
  explicit Adam(std::vector<Tensor> params, AdamOptions defaults = {});

 protected:
  OptimAlgorithm algorithm() const override { return OptimAlgorithm::Adam; }
  OptimHyperparameters hyperparameters(const OptimizerOptions& options) const override;
};

}  // namespace ember::optim
