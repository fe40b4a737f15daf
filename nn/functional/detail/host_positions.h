#pragma once
// Positions that an op plans on the host (gather sources, packing orders), uploaded once as an int64
// index tensor for index_select or index_add.
#include <vector>

#include "tensor/tensor_api.h"

namespace ember::nn::functional::detail {

// `positions` as a 1-D int64 tensor on like's device.
Tensor host_positions(const std::vector<int64_t>& positions, const Tensor& like);

}  // namespace ember::nn::functional::detail
