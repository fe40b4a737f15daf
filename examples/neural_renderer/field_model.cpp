#include "examples/neural_renderer/field_model.h"

#include <numbers>
#include <vector>

namespace ember::neural_renderer {

Tensor pixel_centres(int64_t width, int64_t height, const std::shared_ptr<Device>& device) {
  std::vector<float> centres;
  centres.reserve(static_cast<size_t>(width * height * 2));
  for (int64_t y = 0; y < height; ++y) {
    for (int64_t x = 0; x < width; ++x) {
      centres.push_back(static_cast<float>((2.0 * x + 1.0) / static_cast<double>(width) - 1.0));
      centres.push_back(static_cast<float>((2.0 * y + 1.0) / static_cast<double>(height) - 1.0));
    }
  }
  return from_blob(centres.data(), {width * height, 2}, TensorOptions().dtype(kFloat32).device(device));
}

int64_t encoded_features(int64_t frequencies) { return 2 + 4 * frequencies; }

Tensor positional_encoding(const Tensor& positions, int64_t frequencies) {
  std::vector<Tensor> features{positions};
  double scale = std::numbers::pi;
  for (int64_t k = 0; k < frequencies; ++k, scale *= 2) {
    const Tensor scaled = positions * scale;
    features.push_back(sin(scaled));
    features.push_back(cos(scaled));
  }
  return cat(features, 1);
}

FieldModelImpl::FieldModelImpl(const FieldConfig& config) : config(config) { reset(); }

void FieldModelImpl::reset() {
  nn::Sequential layers;
  int64_t inputs = encoded_features(config.frequencies);
  for (int64_t i = 0; i < config.layers; ++i) {
    layers->push_back(nn::Linear(inputs, config.width));
    layers->push_back(nn::ReLU());
    inputs = config.width;
  }
  layers->push_back(nn::Linear(inputs, 3));
  layers->push_back(nn::Sigmoid());
  mlp = register_module("mlp", layers);
}

Tensor FieldModelImpl::forward(const Tensor& encoded) { return mlp(encoded); }

}  // namespace ember::neural_renderer
