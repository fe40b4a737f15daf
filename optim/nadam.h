#pragma once
// NAdam as Python's torch.optim.NAdam (LibTorch 1.13 has none): Adam with Nesterov momentum, whose momentum
// cache mu_t = beta1 (1 - 0.96^(t momentum_decay) / 2) weighs the gradient and the average, each bias-
// corrected by the product of the caches so far (`mu_product`, a float32 0-dim tensor per parameter, as
// Python keeps it). Fused into one kernel launch per (device, dtype) of each group; the product and the
// step count stay on the device.
//
// The formula is PyTorch 2's, which is also 1.13's multi-tensor one (`foreach=True`). 1.13's default
// single-tensor path divides the average by 1 - mu_product * mu_t * mu_t+1, counting mu_t twice (fixed
// in 2.0); ember does not reproduce that.
#include <tuple>

#include "nn/arg.h"
#include "optim/optimizer.h"

namespace ember::optim {

struct NAdamOptions : public OptimizerCloneableOptions<NAdamOptions> {
  NAdamOptions(double lr = 2e-3);
  EMBER_ARG(double, lr) = 2e-3;
  typedef std::tuple<double, double> betas_t;
  EMBER_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(double, momentum_decay) = 4e-3;

 public:
  OptionItems items() const override;
  bool set_item(const std::string& key, const OptionValue& value) override;
};

class NAdam : public Optimizer {
 public:
  // Throws Python's errors for a negative lr, eps, weight_decay or momentum_decay, and betas outside [0, 1).
  explicit NAdam(std::vector<OptimizerParamGroup> param_groups, NAdamOptions defaults = {});
  explicit NAdam(std::vector<Tensor> params, NAdamOptions defaults = {});

 protected:
  OptimAlgorithm algorithm() const override { return OptimAlgorithm::NAdam; }
  OptimHyperparameters hyperparameters(const OptimizerOptions& options) const override;
};

}  // namespace ember::optim
