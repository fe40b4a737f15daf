#pragma once
// The options of functional::normalize, as LibTorch 1.13's NormalizeFuncOptions (which LibTorch keeps in
// options/normalization.h; here beside the other normalisations' options file, which holds the layer
// and group norm ones): `F::normalize(x, F::NormalizeFuncOptions().p(1).dim(-1))`.
#include <cstdint>
#include <optional>

#include "nn/arg.h"
#include "tensor/tensor.h"

namespace ember::nn::functional {

// normalize: https://pytorch.org/docs/1.13/generated/torch.nn.functional.normalize.html
struct NormalizeFuncOptions {
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(int64_t, dim) = 1;
  EMBER_ARG(double, eps) = 1e-12;
  // Where the result goes (it must not require grad), as torch::div_out writes it.
  EMBER_ARG(std::optional<Tensor>, out) = std::nullopt;
};

}  // namespace ember::nn::functional
