#pragma once
// Adadelta as Python's torch.optim.Adadelta (PyTorch 1.13; LibTorch 1.13 has none): the step
// sqrt(acc_delta + eps) / sqrt(square_avg + eps) * g, both averages decaying by rho
// (torch/optim/adadelta.py), fused into one kernel launch per (device, dtype) of each group. Python keeps
// the step count as an int that no formula reads; ember keeps it as the other optimizers do (`step`, a
// float32 0-dim tensor in state_dict()).
#include "nn/arg.h"
#include "optim/optimizer.h"

namespace ember::optim {

struct AdadeltaOptions : public OptimizerCloneableOptions<AdadeltaOptions> {
  AdadeltaOptions(double lr = 1.0);
  EMBER_ARG(double, lr) = 1.0;
  EMBER_ARG(double, rho) = 0.9;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, maximize) = false;

 public:
  OptionItems items() const override;
  bool set_item(const std::string& key, const OptionValue& value) override;
};

class Adadelta : public Optimizer {
 public:
  // Throws Python's errors for a negative lr, eps or weight_decay, and rho outside [0, 1].
  explicit Adadelta(std::vector<OptimizerParamGroup> param_groups, AdadeltaOptions defaults = {});
  explicit Adadelta(std::vector<Tensor> params, AdadeltaOptions defaults = {});

 protected:
  OptimAlgorithm algorithm() const override { return OptimAlgorithm::Adadelta; }
  OptimHyperparameters hyperparameters(const OptimizerOptions& options) const override;
};

}  // namespace ember::optim
