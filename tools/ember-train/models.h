#pragma once
// The two Fashion-MNIST models ember-train offers, as nn::Sequential so that each Linear followed by a
// ReLU runs as one fused matmul. Both take (N, 1, 28, 28) images and give (N, 10) logits.
#include <string>

#include "ember.h"

namespace ember::train {

// 784-256-10 with ReLU.
nn::Sequential make_mlp();

// conv32-pool-conv64-pool-fc128-fc10 with ReLU: 3x3 convolutions with padding 1, 2x2 max pooling.
nn::Sequential make_cnn();

// "mlp" or "cnn"; anything else is an error that names the choices.
nn::Sequential make_model(const std::string& name);

}  // namespace ember::train
