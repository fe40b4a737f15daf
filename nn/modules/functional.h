#pragma once
// Functional: a function of one tensor as a module, to put into a Sequential (LibTorch's
// torch::nn::Functional; Python uses a lambda module instead).
//   nn::Sequential net(nn::Linear(4, 4), nn::Functional([](const Tensor& x) { return x.relu(); }));
#include <functional>
#include <utility>

#include "nn/cloneable.h"
#include "nn/module_holder.h"

namespace ember::nn {

class FunctionalImpl : public Cloneable<FunctionalImpl> {
 public:
  using Function = std::function<Tensor(const Tensor&)>;
  explicit FunctionalImpl(Function function) : function_(std::move(function)) {}
  // Binds trailing arguments: Functional(ember::leaky_relu, 0.2).
  template <class Callable, class First, class... Rest>
  FunctionalImpl(Callable callable, First first, Rest... rest)
      : function_([=](const Tensor& x) { return callable(x, first, rest...); }) {}

  void reset() override {}
  Tensor forward(const Tensor& input) { return function_(input); }

 private:
  Function function_;
};
EMBER_MODULE(Functional);

}  // namespace ember::nn
