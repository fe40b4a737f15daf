#include "nn/utils/convert_parameters.h"

#include "autograd/grad_mode.h"
#include "runtime/error.h"

namespace ember::nn::utils {

namespace {

void check_same_device(const std::vector<Tensor>& parameters) {
  for (const Tensor& p : parameters) {
    if (p.device() != parameters.front().device()) {
      throw Error("Found two parameters on different devices, this is currently not supported.");
    }
  }
}

}  // namespace

Tensor parameters_to_vector(const std::vector<Tensor>& parameters) {
  check_same_device(parameters);
  std::vector<Tensor> flat;
  for (const Tensor& p : parameters) flat.push_back(p.view({-1}));
  return cat(flat);
}

void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters) {
  if (vec.dim() != 1) throw Error("expected a 1-d vector, but got a " + std::to_string(vec.dim()) + "-d tensor");
  check_same_device(parameters);
  int64_t total = 0;
  for (const Tensor& p : parameters) total += p.numel();
  if (total != vec.numel()) {
    throw Error("vector_to_parameters: the vector has " + std::to_string(vec.numel()) + " elements, the parameters " +
                std::to_string(total));
  }
  NoGradGuard no_grad;
  int64_t at = 0;
  for (const Tensor& p : parameters) {
    p.set_data(vec.narrow(0, at, p.numel()).view(p.sizes()).detach());
    at += p.numel();
  }
}

}  // namespace ember::nn::utils
