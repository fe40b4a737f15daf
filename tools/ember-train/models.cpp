#include "tools/ember-train/models.h"

namespace ember::train {

nn::Sequential make_mlp() {
  return nn::Sequential(nn::Flatten(), nn::Linear(784, 256), nn::ReLU(), nn::Linear(256, 10));
}

nn::Sequential make_cnn() {
  return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(1, 32, 3).padding(1)), nn::ReLU(), nn::MaxPool2d(2),
                        nn::Conv2d(nn::Conv2dOptions(32, 64, 3).padding(1)), nn::ReLU(), nn::MaxPool2d(2),
                        nn::Flatten(), nn::Linear(64 * 7 * 7, 128), nn::ReLU(), nn::Linear(128, 10));
}

nn::Sequential make_model(const std::string& name) {
  if (name == "mlp") return make_mlp();
  if (name == "cnn") return make_cnn();
  throw Error("unknown model '" + name + "': choose mlp or cnn");
}

}  // namespace ember::train
