#include "nn/modules/container/sequential_fusion.h"

#include <typeinfo>

#include "nn/modules/activation.h"
#include "nn/modules/linear.h"
#include "tensor/fused_ops.h"

namespace ember::nn::detail {

namespace {

// The activation `module` computes, when the matmul's store can apply it.
std::optional<UnaryOp> store_activation(const Module& module) {
  if (typeid(module) == typeid(ReLUImpl)) return UnaryOp::Relu;
  if (typeid(module) == typeid(GELUImpl)) {
    const std::string& approximate = static_cast<const GELUImpl&>(module).options.approximate();
    if (approximate == "none") return UnaryOp::Gelu;
    if (approximate == "tanh") return UnaryOp::GeluTanh;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Tensor> fused_forward(const AnyModule& first, const AnyModule& second, const Tensor& input) {
  const Module& head = *first.ptr();
  const Module& tail = *second.ptr();
  // Exact types: a subclass may compute something else in its forward.
  if (typeid(head) != typeid(LinearImpl) || head.has_forward_hooks() || tail.has_forward_hooks()) {
    return std::nullopt;
  }
  const auto& linear = static_cast<const LinearImpl&>(head);
  const std::optional<UnaryOp> activation = store_activation(tail);
  if (!activation || !linear.bias.defined() || input.dim() != 2) return std::nullopt;
  return ember::detail::addmm_activation(linear.bias, input, linear.weight.t(), *activation);
}

}  // namespace ember::nn::detail
