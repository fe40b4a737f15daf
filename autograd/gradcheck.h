#pragma once
// gradcheck and gradgradcheck: compare the gradients autograd computes with central finite
// differences, as torch.autograd.gradcheck does. Use float64 inputs where the device has float64;
// float32 inputs get a larger step and tolerances unless given.
#include <functional>
#include <optional>

#include "autograd/node.h"

namespace ember::autograd {

struct GradcheckOptions {
  std::optional<double> eps;   // default 1e-6 in float64, 1e-3 in float32
  std::optional<double> atol;  // default 1e-5 in float64, 1e-2 in float32
  std::optional<double> rtol;  // default 1e-3 in float64, 1e-2 in float32
  bool raise_exception = true;  // throw with both Jacobians on mismatch, instead of returning false
};

using DifferentiableFn = std::function<tensor_list(const tensor_list& inputs)>;

// Checks d outputs / d inputs for every input that requires grad.
bool gradcheck(const DifferentiableFn& fn, const tensor_list& inputs, const GradcheckOptions& options = {});
// Checks the gradients of the gradient: the vector-Jacobian product with random output gradients is
// itself gradchecked with respect to the inputs and those gradients.
bool gradgradcheck(const DifferentiableFn& fn, const tensor_list& inputs, const GradcheckOptions& options = {});

}  // namespace ember::autograd
