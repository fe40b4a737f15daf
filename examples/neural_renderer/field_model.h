#pragma once
// The network that learns the picture: a neural field, colour as a function of position. Pixel centres
// in [-1, 1]^2 go through a positional encoding (sin and cos at L octaves, as in NeRF) so that a small
// MLP of ReLU layers can represent sharp edges, and a sigmoid keeps the colours in [0, 1].
#include <cstdint>
#include <memory>

#include "ember.h"

namespace ember::neural_renderer {

struct FieldConfig {
  int64_t frequencies = 8;  // L: octaves of the encoding, 2^0 pi .. 2^(L-1) pi
  int64_t width = 64;       // units of each hidden layer
  int64_t layers = 3;       // hidden layers
};

// The centre of every pixel, row by row, as (x, y) in [-1, 1]: a (height * width, 2) tensor.
Tensor pixel_centres(int64_t width, int64_t height, const std::shared_ptr<Device>& device);

// (N, 2) positions to (N, 2 + 4L) features: the positions, then sin and cos of 2^k pi times each.
Tensor positional_encoding(const Tensor& positions, int64_t frequencies);
int64_t encoded_features(int64_t frequencies);

class FieldModelImpl : public nn::Cloneable<FieldModelImpl> {
 public:
  explicit FieldModelImpl(const FieldConfig& config);
  void reset() override;
  // (N, encoded_features) to (N, 3) colours in [0, 1]. The encoding is computed once by the caller, as
  // the pixel grid never changes and re-encoding it every step would only add dispatches.
  Tensor forward(const Tensor& encoded);

  FieldConfig config;
  nn::Sequential mlp = nullptr;
};
EMBER_MODULE(FieldModel);

}  // namespace ember::neural_renderer
