#include "nn/functional/norm_support.h"

#include <string>

#include "runtime/error.h"

namespace ember::nn::functional::norm_detail {

DType stat_dtype(DType input) { return input == DType::Float64 ? DType::Float64 : DType::Float32; }

void check_floating_input(const Tensor& input, const char* kernel) {
  if (!input.is_floating_point()) {
    throw Error("\"" + std::string(kernel) + "\" not implemented for '" + scalar_type_name(input.dtype()) + "'");
  }
}

void check_param_dtype(const Tensor& param, DType input) {
  if (!param.defined() || param.dtype() == input) return;
  const bool half_input = input == DType::Float16 || input == DType::BFloat16;
  if (half_input && param.dtype() == DType::Float32) return;
  throw Error("expected scalar type " + scalar_type_name(input) + " but found " + scalar_type_name(param.dtype()));
}

Tensor flat_contiguous(const Tensor& t) { return t.reshape({-1}).contiguous(); }

NormShape channel_shape(const Tensor& x) {
  NormShape shape;
  shape.outer = x.size(0);
  shape.channels = x.size(1);
  shape.inner = 1;
  for (int64_t d = 2; d < x.dim(); ++d) shape.inner *= x.size(d);
  return shape;
}

Tensor attached(const Tensor& t, std::initializer_list<const Tensor*> inputs) {
  Tensor result = t;
  for (const Tensor* input : inputs) {
    if (input->defined() && input->requires_grad()) result = result + input->sum() * 0;
  }
  return result;
}

Tensor per_channel(const Tensor& t) { return t.reshape({1, -1, 1}); }

}  // namespace ember::nn::functional::norm_detail
