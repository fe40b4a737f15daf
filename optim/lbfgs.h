#pragma once
// L-BFGS as torch::optim::LBFGS (LibTorch 1.13, torch/optim/lbfgs.py): a step(closure) runs up to
// max_iter iterations, each a two-loop recursion over the last history_size curvature pairs and a fixed
// step or a strong-Wolfe line search. The vectors (the flat gradient, the direction, the history) stay on
// the parameters' device; the scalars the algorithm branches on (the loss, gᵀd, yᵀs, the largest
// gradient) are read back each iteration, as LibTorch and Python read them.
//
//   ember::optim::LBFGS opt(model->parameters(), ember::optim::LBFGSOptions(1).line_search_fn("strong_wolfe"));
//   opt.step([&] { opt.zero_grad(); Tensor loss = criterion(model->forward(x), y); loss.backward(); return loss; });
//
// As in PyTorch there is one param group, every parameter on one device, and the state is global: it is
// kept as the first parameter's. state_dict() holds it as Python's names under that parameter: d, t,
// old_dirs.<i>, old_stps.<i>, ro.<i>, H_diag, prev_flat_grad, prev_loss, func_evals and n_iter (the numbers
// as 0-dim tensors: int64 counts, float64 t and prev_loss). Python's `al` is scratch that each iteration
// rewrites before reading, so it is neither kept nor saved.
#include <deque>
#include <optional>
#include <string>

#include "nn/arg.h"
#include "optim/optimizer.h"

namespace ember::optim {

struct LBFGSOptions : public OptimizerCloneableOptions<LBFGSOptions> {
  LBFGSOptions(double lr = 1);
  EMBER_ARG(double, lr) = 1;
  EMBER_ARG(int64_t, max_iter) = 20;
  EMBER_ARG(std::optional<int64_t>, max_eval) = std::nullopt;  // max_iter * 5 / 4 when not given
  EMBER_ARG(double, tolerance_grad) = 1e-7;
  EMBER_ARG(double, tolerance_change) = 1e-9;
  EMBER_ARG(int64_t, history_size) = 100;
  EMBER_ARG(std::optional<std::string>, line_search_fn) = std::nullopt;  // "strong_wolfe" or none

 public:
  OptionItems items() const override;
  bool set_item(const std::string& key, const OptionValue& value) override;
};

class LBFGS : public Optimizer {
 public:
  // Throws LibTorch's error for more than one param group.
  explicit LBFGS(std::vector<OptimizerParamGroup> param_groups, LBFGSOptions defaults = {});
  explicit LBFGS(std::vector<Tensor> params, LBFGSOptions defaults = {});

  // Requires a closure that clears the gradients, computes the loss, calls backward() and returns the loss.
  // Returns the loss of its first call. Throws, before it calls the closure or changes anything, for no
  // closure, more than one param group, parameters on several devices or of several dtypes, or a
  // line_search_fn other than "strong_wolfe".
  Tensor step(LossClosure closure = nullptr) override;
  // GradScaler's skipping step: LBFGS re-evaluates the closure, which a scaled loss would not survive, so
  // this throws (PyTorch's GradScaler refuses closures too).
  void step_unless(const Tensor& found_inf) override;
  // The global state under the first parameter (see above); empty for the others and before the first step.
  OrderedDict<std::string, Tensor> state(const Tensor& param) const override;

 protected:
  void check_loaded_state(const LoadedState& loaded,
                          const std::vector<std::unique_ptr<OptimizerOptions>>& options) const override;
  void restore_state(const LoadedState& loaded) override;

 private:
  struct History {
    int64_t func_evals = 0;
    int64_t n_iter = 0;
    double t = 0;
    double prev_loss = 0;
    Tensor d;
    Tensor H_diag;  // 0-dim
    Tensor prev_flat_grad;
    std::deque<Tensor> old_dirs;
    std::deque<Tensor> old_stps;
    std::deque<Tensor> ro;  // 0-dim each
  };

  void check_can_step() const;
  int64_t numel() const;
  Tensor gather_flat_grad() const;
  // Parameters += step_size * update (update flat, in the parameters' order).
  void add_grad(double step_size, const Tensor& update);
  std::vector<Tensor> clone_params() const;
  void set_params(const std::vector<Tensor>& values);
  // The loss and flat gradient at x + t d; the parameters are x again afterwards.
  std::pair<double, Tensor> directional_evaluate(const LossClosure& closure, const std::vector<Tensor>& x, double t,
                                                 const Tensor& d);
  struct LineSearchResult {
    double loss;
    Tensor flat_grad;
    double t;
    int64_t func_evals;
  };
  LineSearchResult strong_wolfe(const LossClosure& closure, double t, const Tensor& d, double loss,
                                const Tensor& flat_grad, double gtd);

  std::optional<History> history_;
};

}  // namespace ember::optim
