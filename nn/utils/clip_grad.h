#pragma once
// Gradient clipping (https://pytorch.org/docs/1.13/generated/torch.nn.utils.clip_grad_norm_.html).
//   Tensor total = nn::utils::clip_grad_norm_(model->parameters(), 1.0);
#include <vector>

#include "tensor/tensor_api.h"

namespace ember::nn::utils {

// Scales every gradient by max_norm / (total norm + 1e-6) where that is below 1, and returns the total
// norm (of all gradients together, as one vector) as a 0-dim tensor. Everything stays on the device: no
// host wait, unless error_if_nonfinite asks for a check of the total. norm_type may be infinity.
// Unlike LibTorch's, which returns a double (a host wait per step), it returns Python's 0-dim tensor.
Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
Tensor clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type = 2.0, bool error_if_nonfinite = false);

// Clamps every gradient to [-clip_value, clip_value] in place.
void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);
void clip_grad_value_(const Tensor& parameter, double clip_value);

}  // namespace ember::nn::utils
