// normalize: LibTorch's composition, input / norm(p, dim, keepdim).clamp_min(eps).
#include "nn/functional/normalize.h"

namespace ember::nn::functional {

Tensor normalize(const Tensor& input, NormalizeFuncOptions options) {
  const Tensor denom = input.norm(options.p(), {options.dim()}, true).clamp_min(options.eps()).expand_as(input);
  if (!options.out()) return input / denom;
  Tensor& out = *options.out();
  return out.copy_(input / denom);
}

}  // namespace ember::nn::functional
