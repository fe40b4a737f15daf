#pragma once
// ASGD as Python's torch.optim.ASGD (PyTorch 1.13; LibTorch 1.13 has none): SGD whose step size eta
// decays as lr / (1 + lambd lr t)^alpha, with a decay term that shrinks the parameter by lambd eta, and
// an average `ax` of the parameters from step t0 on (torch/optim/asgd.py). Python keeps eta and mu (the
// averaging weight 1 / max(1, t - t0)) as float32 0-dim tensors per parameter, each computed at the end
// of a step for the next; ember keeps them beside the step count on the device, so the fused kernel (one
// launch per (device, dtype) of each group) never waits on the host. The average is `state(p)["ax"]`.
#include "nn/arg.h"
#include "optim/optimizer.h"

namespace ember::optim {

struct ASGDOptions : public OptimizerCloneableOptions<ASGDOptions> {
  ASGDOptions(double lr = 1e-2);
  EMBER_ARG(double, lr) = 1e-2;
  EMBER_ARG(double, lambd) = 1e-4;  // the decay term
  EMBER_ARG(double, alpha) = 0.75;  // eta's power
  EMBER_ARG(double, t0) = 1e6;      // the step after which the average starts
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, maximize) = false;

 public:
  OptionItems items() const override;
  bool set_item(const std::string& key, const OptionValue& value) override;
};

class ASGD : public Optimizer {
 public:
  // Throws Python's errors for a negative lr or weight_decay.
  explicit ASGD(std::vector<OptimizerParamGroup> param_groups, ASGDOptions defaults = {});
  explicit ASGD(std::vector<Tensor> params, ASGDOptions defaults = {});

 protected:
  OptimAlgorithm algorithm() const override { return OptimAlgorithm::ASGD; }
  OptimHyperparameters hyperparameters(const OptimizerOptions& options) const override;
};

}  // namespace ember::optim
