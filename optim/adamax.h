#pragma once
// Adamax as Python's torch.optim.Adamax (PyTorch 1.13; LibTorch 1.13 has none): Adam whose second moment is
// the infinity norm exp_inf = max(beta2 exp_inf, |g| + eps) (torch/optim/adamax.py), fused into one kernel
// launch per (device, dtype) of each group, the bias correction computed on the device from the step count.
#include <tuple>

#include "nn/arg.h"
#include "optim/optimizer.h"

namespace ember::optim {

struct AdamaxOptions : public OptimizerCloneableOptions<AdamaxOptions> {
  AdamaxOptions(double lr = 2e-3);
  EMBER_ARG(double, lr) = 2e-3;
  typedef std::tuple<double, double> betas_t;
  EMBER_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, maximize) = false;

 public:
  OptionItems items() const override;
  bool set_item(const std::string& key, const OptionValue& value) override;
};

class Adamax : public Optimizer {
 public:
  // Throws Python's errors for a negative lr, eps or weight_decay, and betas outside [0, 1).
  explicit Adamax(std::vector<OptimizerParamGroup> param_groups, AdamaxOptions defaults = {});
  explicit Adamax(std::vector<Tensor> params, AdamaxOptions defaults = {});

 protected:
  OptimAlgorithm algorithm() const override { return OptimAlgorithm::Adamax; }
  OptimHyperparameters hyperparameters(const OptimizerOptions& options) const override;
};

}  // namespace ember::optim
