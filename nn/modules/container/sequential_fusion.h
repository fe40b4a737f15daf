#pragma once
// Pairs of a Sequential's entries that run as one launch: Linear then ReLU or GELU, the activation
// applied in the matmul's store (ember::detail::addmm_activation), and Conv1d/2d/3d then ReLU, applied in
// the convolution's store (ConvImpl::forward_relu). Both record the unfused graph.
#include <optional>

#include "nn/modules/container/any_module.h"

namespace ember::nn::detail {

// first's and then second's forward on `input` in one launch, or nothing where the pair does not fuse:
// other module types (subclasses included), a module with forward hooks, a Linear without a bias or an
// input that is not a matrix (linear is then not one addmm), a Conv followed by GELU.
std::optional<Tensor> fused_forward(const AnyModule& first, const AnyModule& second, const Tensor& input);

}  // namespace ember::nn::detail
