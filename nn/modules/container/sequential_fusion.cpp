#include "nn/modules/container/sequential_fusion.h"

#include <typeinfo>

#include "nn/modules/activation.h"
#include "nn/modules/conv.h"
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

// A convolution of D spatial dims then relu, when `head` is exactly ConvImpl<D>.
template <size_t D>
std::optional<Tensor> conv_relu(Module& head, const Tensor& input) {
  if (typeid(head) != typeid(ConvImpl<D>)) return std::nullopt;
  return static_cast<ConvImpl<D>&>(head).forward_relu(input);
}

}  // namespace

std::optional<Tensor> fused_forward(const AnyModule& first, const AnyModule& second, const Tensor& input) {
  Module& head = *first.ptr();
  const Module& tail = *second.ptr();
  if (head.has_forward_hooks() || tail.has_forward_hooks()) return std::nullopt;
  const std::optional<UnaryOp> activation = store_activation(tail);
  if (!activation) return std::nullopt;
  // Exact types: a subclass may compute something else in its forward.
  if (typeid(head) == typeid(LinearImpl)) {
    const auto& linear = static_cast<const LinearImpl&>(head);
    if (!linear.bias.defined() || input.dim() != 2) return std::nullopt;
    return ember::detail::addmm_activation(linear.bias, input, linear.weight.t(), *activation);
  }
  if (*activation != UnaryOp::Relu) return std::nullopt;
  if (auto out = conv_relu<1>(head, input)) return out;
  if (auto out = conv_relu<2>(head, input)) return out;
  return conv_relu<3>(head, input);
}

}  // namespace ember::nn::detail
