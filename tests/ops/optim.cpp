// Rows for the fused optimizer kernels: two steps of each algorithm on a parameter and its gradient, over
// the registry's dtypes, shapes and layouts, against torch::optim. (Trajectories, groups and state are
// tested in tests/optim/.)
#include <torch/optim.h>

#include "optim/optim.h"
#include "tests/op_registry.h"

namespace ember::test {
namespace {

// Two steps of the optimizer that `make` builds over a copy of `param`, whose gradient is `grad`.
template <class T, class Make>
T two_steps(const T& param, const T& grad, Make make) {
  T p = param.detach().clone();
  p.requires_grad_(true);
  p.mutable_grad() = grad.detach().clone();
  auto opt = make(p);
  opt.step();
  opt.step();
  return p.detach();
}

Tensor sgd_steps(const Tensor& p, const Tensor& g) {
  return two_steps(p, g, [](const Tensor& q) { return optim::SGD({q}, optim::SGDOptions(0.1).momentum(0.9).nesterov(true).weight_decay(0.1)); });
}
at::Tensor sgd_steps(const at::Tensor& p, const at::Tensor& g) {
  return two_steps(p, g, [](const at::Tensor& q) { return torch::optim::SGD({q}, torch::optim::SGDOptions(0.1).momentum(0.9).nesterov(true).weight_decay(0.1)); });
}
Tensor adam_steps(const Tensor& p, const Tensor& g) {
  return two_steps(p, g, [](const Tensor& q) { return optim::Adam({q}, optim::AdamOptions(0.1).weight_decay(0.1).amsgrad(true)); });
}
at::Tensor adam_steps(const at::Tensor& p, const at::Tensor& g) {
  return two_steps(p, g, [](const at::Tensor& q) { return torch::optim::Adam({q}, torch::optim::AdamOptions(0.1).weight_decay(0.1).amsgrad(true)); });
}
Tensor rmsprop_steps(const Tensor& p, const Tensor& g) {
  return two_steps(p, g, [](const Tensor& q) { return optim::RMSprop({q}, optim::RMSpropOptions(0.01).momentum(0.5).centered(true)); });
}
at::Tensor rmsprop_steps(const at::Tensor& p, const at::Tensor& g) {
  return two_steps(p, g, [](const at::Tensor& q) { return torch::optim::RMSprop({q}, torch::optim::RMSpropOptions(0.01).momentum(0.5).centered(true)); });
}
Tensor adagrad_steps(const Tensor& p, const Tensor& g) {
  return two_steps(p, g, [](const Tensor& q) { return optim::Adagrad({q}, optim::AdagradOptions(0.1).lr_decay(0.1).initial_accumulator_value(0.5)); });
}
at::Tensor adagrad_steps(const at::Tensor& p, const at::Tensor& g) {
  return two_steps(p, g, [](const at::Tensor& q) { return torch::optim::Adagrad({q}, torch::optim::AdagradOptions(0.1).lr_decay(0.1).initial_accumulator_value(0.5)); });
}

// A parameter and a gradient of the same shape: 0-dim, empty, odd sizes, longer than a workgroup's tile.
const std::vector<Shapes> kCases = {{{}, {}}, {{0}, {0}}, {{7}, {7}}, {{5, 13}, {5, 13}}, {{3, 1100}, {3, 1100}}};

EMBER_OP_ROWS(optim_rows) {
  return {
      op("sgd step", 2, [](const auto& x) { return sgd_steps(x[0], x[1]); }).with_dtypes(kFloating).with_cases(kCases),
      op("adam step", 2, [](const auto& x) { return adam_steps(x[0], x[1]); }).with_dtypes(kFloating).with_cases(kCases),
      op("rmsprop step", 2, [](const auto& x) { return rmsprop_steps(x[0], x[1]); })
          .with_dtypes(kFloating)
          .with_cases(kCases)
          .in_range(0.1, 2),
      op("adagrad step", 2, [](const auto& x) { return adagrad_steps(x[0], x[1]); }).with_dtypes(kFloating).with_cases(kCases),
  };
}

}  // namespace
}  // namespace ember::test
