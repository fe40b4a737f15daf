#include "nn/functional/linear.h"

#include "runtime/error.h"
#include "tensor/autocast.h"

namespace ember::nn::functional {

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  if (autocast::is_active()) return autocast::in_lower_precision(linear, input, weight, bias);
  if (input.dim() == 2 && bias.defined()) return bias.addmm(input, weight.t());
  Tensor out = input.matmul(weight.t());
  return bias.defined() ? out.add(bias) : out;
}

Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias) {
  if (input1.dim() != input2.dim()) {
    throw Error("bilinear(): input dimensions do not match: got " + std::to_string(input1.dim()) + " and " +
                std::to_string(input2.dim()));
  }
  for (int64_t d = 0; d + 1 < input1.dim(); ++d) {
    if (input1.size(d) != input2.size(d)) {
      throw Error("bilinear(): input batch dimensions do not match: got " + to_string(input1.sizes()) + " and " +
                  to_string(input2.sizes()));
    }
  }
  if (weight.dim() != 3) throw Error("bilinear(): weight must be a 3-d tensor, got " + std::to_string(weight.dim()) + "-d");
  if (input1.size(-1) != weight.size(1)) {
    throw Error("bilinear(): input1 size does not match weight size: got " + std::to_string(input1.size(-1)) +
                " but expected " + std::to_string(weight.size(1)));
  }
  if (input2.size(-1) != weight.size(2)) {
    throw Error("bilinear(): input2 size does not match weight size: got " + std::to_string(input2.size(-1)) +
                " but expected " + std::to_string(weight.size(2)));
  }
  if (bias.defined() && bias.size(-1) != weight.size(0)) {
    throw Error("bilinear(): bias size does not match weight size: got " + std::to_string(bias.size(-1)) +
                " but expected " + std::to_string(weight.size(0)));
  }
  Tensor out = einsum("...i,oij,...j->...o", {input1, weight, input2});
  return bias.defined() ? out.add(bias) : out;
}

}  // namespace ember::nn::functional
