#pragma once
// Parameters as one flat vector and back (https://pytorch.org/docs/1.13/generated/torch.nn.utils.parameters_to_vector.html).
//   Tensor flat = nn::utils::parameters_to_vector(model->parameters());
#include <vector>

#include "tensor/tensor_api.h"

namespace ember::nn::utils {

// Every parameter flattened and joined, in order (a copy).
Tensor parameters_to_vector(const std::vector<Tensor>& parameters);
// Makes each parameter a view of its slice of `vec` (as Python assigns param.data).
void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters);

}  // namespace ember::nn::utils
