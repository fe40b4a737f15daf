#pragma once
// Rprop as Python's torch.optim.Rprop (PyTorch 1.13; LibTorch 1.13 has none): each element's step size grows
// by etaplus while its gradient keeps its sign and shrinks by etaminus when the sign flips (that step then
// moves nothing and forgets the gradient), within step_sizes, and the parameter moves by the step size
// against the gradient's sign (torch/optim/rprop.py). Fused into one kernel launch per (device, dtype) of
// each group. Python keeps the step count as an int that no formula reads; ember keeps it as the other
// optimizers do (`step`, a float32 0-dim tensor in state_dict()).
#include <tuple>

#include "nn/arg.h"
#include "optim/optimizer.h"

namespace ember::optim {

struct RpropOptions : public OptimizerCloneableOptions<RpropOptions> {
  RpropOptions(double lr = 1e-2);
  EMBER_ARG(double, lr) = 1e-2;  // each element's first step size
  typedef std::tuple<double, double> etas_t;
  EMBER_ARG(etas_t, etas) = std::make_tuple(0.5, 1.2);  // (etaminus, etaplus)
  typedef std::tuple<double, double> step_sizes_t;
  EMBER_ARG(step_sizes_t, step_sizes) = std::make_tuple(1e-6, 50.0);  // (min, max)
  EMBER_ARG(bool, maximize) = false;

 public:
  OptionItems items() const override;
  bool set_item(const std::string& key, const OptionValue& value) override;
};

class Rprop : public Optimizer {
 public:
  // Throws Python's errors for a negative lr and etas outside 0 < etaminus < 1 < etaplus.
  explicit Rprop(std::vector<OptimizerParamGroup> param_groups, RpropOptions defaults = {});
  explicit Rprop(std::vector<Tensor> params, RpropOptions defaults = {});

 protected:
  OptimAlgorithm algorithm() const override { return OptimAlgorithm::Rprop; }
  OptimHyperparameters hyperparameters(const OptimizerOptions& options) const override;
};

}  // namespace ember::optim
