#pragma once
// RAdam as Python's torch.optim.RAdam (PyTorch 1.13; LibTorch 1.13 has none): Adam whose adaptive step is
// rectified by the variance of its second moment, and left out while the approximated SMA's length rho_t is
// at most 5 (torch/optim/radam.py). Fused into one kernel launch per (device, dtype) of each group; the
// bias corrections and the rectification are computed on the device from the step count. Python 1.13's
// RAdam has no `maximize`.
#include <tuple>

#include "nn/arg.h"
#include "optim/optimizer.h"

namespace ember::optim {

struct RAdamOptions : public OptimizerCloneableOptions<RAdamOptions> {
  RAdamOptions(double lr = 1e-3);
  EMBER_ARG(double, lr) = 1e-3;
  typedef std::tuple<double, double> betas_t;
  EMBER_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;

 public:
  OptionItems items() const override;
  bool set_item(const std::string& key, const OptionValue& value) override;
};

class RAdam : public Optimizer {
 public:
  // Throws Python's errors for a negative lr, eps or weight_decay, and betas outside [0, 1).
  explicit RAdam(std::vector<OptimizerParamGroup> param_groups, RAdamOptions defaults = {});
  explicit RAdam(std::vector<Tensor> params, RAdamOptions defaults = {});

 protected:
  OptimAlgorithm algorithm() const override { return OptimAlgorithm::RAdam; }
  OptimHyperparameters hyperparameters(const OptimizerOptions& options) const override;
};

}  // namespace ember::optim
