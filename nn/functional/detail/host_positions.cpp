#include "nn/functional/detail/host_positions.h"

namespace ember::nn::functional::detail {

Tensor host_positions(const std::vector<int64_t>& positions, const Tensor& like) {
  return from_blob(positions.data(), {static_cast<int64_t>(positions.size())},
                   TensorOptions().dtype(kInt64).device(like.device()));
}

}  // namespace ember::nn::functional::detail
