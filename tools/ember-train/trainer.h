#pragma once
// One ember-train run: the model, Adam, the Fashion-MNIST loaders, and per epoch a pass over the training
// set, an evaluation on the test set, the metrics (CSV and PNG) and a checkpoint. A resumed run loads
// the last checkpoint (model, optimizer, generator, epoch) and the metrics so far, and goes on.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "ember.h"

namespace ember::train {

struct TrainConfig {
  std::string model = "mlp";
  int epochs = 2;
  int64_t batch_size = 64;
  double lr = 1e-3;
  std::string device;  // empty: the best device found
  std::filesystem::path out = "runs/fmnist";
  std::filesystem::path data = "/usr/share/datasets/fashion-mnist";
  bool resume = false;
  uint64_t seed = 0;
  // One loader thread keeps up with the device (a batch is 64 images picked and uploaded); a second one
  // only competes with lavapipe's threads for the CPUs (docs/PERFORMANCE.md, Training).
  size_t workers = 1;
  int64_t max_batches = 0;  // per epoch, 0: all (for quick runs and tests)
};

struct TrainResult {
  int epochs_done = 0;
  double test_accuracy = 0;
  double last_epoch_seconds = 0;
};

TrainResult train(const TrainConfig& config);

}  // namespace ember::train
