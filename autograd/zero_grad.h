#pragma once
// Clearing a parameter's gradient, which Module::zero_grad and Optimizer::zero_grad both do to theirs.
#include "tensor/tensor.h"

namespace ember::autograd {

// As PyTorch: with `set_to_none` the gradient is dropped, else it is detached from any graph and zeroed
// in place, so that views of it held elsewhere see the zeros.
inline void zero_grad(Tensor& parameter, bool set_to_none) {
  if (!parameter.grad().defined()) return;
  if (set_to_none) {
    parameter.mutable_grad() = Tensor();
  } else {
    parameter.mutable_grad().detach_();
    parameter.mutable_grad().zero_();
  }
}

}  // namespace ember::autograd
