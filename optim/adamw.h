#pragma once
// AdamW as torch::optim::AdamW (LibTorch 1.13) with Python's `maximize`: Adam with the decoupled weight
// decay p *= 1 - lr weight_decay (torch/optim/adamw.py), on the same fused kernel as Adam.
#include <tuple>

#include "nn/arg.h"
#include "optim/optimizer.h"

namespace ember::optim {

struct AdamWOptions : public OptimizerCloneableOptions<AdamWOptions> {
  AdamWOptions(double lr = 1e-3);
  EMBER_ARG(double, lr) = 1e-3;
  typedef std::tuple<double, double> betas_t;
  EMBER_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 1e-2;
  EMBER_ARG(bool, amsgrad) = false;
  EMBER_ARG(bool, maximize) = false;

 public:
  OptionItems items() const override;
  bool set_item(const std::string& key, const OptionValue& value) override;
};

class AdamW : public Optimizer {
 public:
  // Throws LibTorch's errors for a negative lr, eps or weight_decay, and betas outside [0, 1).
  explicit AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults = {});
  explicit AdamW(std::vector<Tensor> params, AdamWOptions defaults = {});

 protected:
  OptimAlgorithm algorithm() const override { return OptimAlgorithm::Adam; }
  OptimHyperparameters hyperparameters(const OptimizerOptions& options) const override;
};

}  // namespace ember::optim
