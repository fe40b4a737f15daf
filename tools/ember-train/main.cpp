// ember-train: trains an MLP or a CNN on Fashion-MNIST on the best device found (or --device), with a
// progress bar per epoch, per-epoch metrics as CSV and a PNG plot, and a checkpoint per epoch.
//   ember-train --model mlp|cnn --epochs N --batch-size 64 --lr 1e-3 --device vulkan:0 --out runs/fmnist
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "ember/vulkan.h"
#include "tools/cli_checks.h"
#include "tools/ember-train/trainer.h"

int main(int argc, char** argv) {
  ember::train::TrainConfig config;
  CLI::App app{"Trains a model on Fashion-MNIST with ember"};
  app.add_option("--model", config.model, "mlp (784-256-10) or cnn (conv32-pool-conv64-pool-fc128-fc10)")
      ->check(CLI::IsMember({"mlp", "cnn"}))
      ->capture_default_str();
  app.add_option("--epochs", config.epochs, "epochs to train (in all, when resuming)")->check(ember::cli::kPositive)->capture_default_str();
  app.add_option("--batch-size", config.batch_size, "examples per step")->check(ember::cli::kPositive)->capture_default_str();
  app.add_option("--lr", config.lr, "Adam's learning rate")->check(ember::cli::kPositive)->capture_default_str();
  app.add_option("--device", config.device, "vulkan:0, cuda:0, part of a device name; default: the best found");
  app.add_option("--out", config.out, "folder for metrics.csv, metrics.png and checkpoint.safetensors")->capture_default_str();
  app.add_option("--data", config.data, "folder of the Fashion-MNIST IDX files")->capture_default_str();
  app.add_flag("--resume", config.resume, "continue from the checkpoint in --out");
  app.add_option("--seed", config.seed, "seed of the initial weights and of the shuffling")->capture_default_str();
  app.add_option("--workers", config.workers, "loader threads")->capture_default_str();
  app.add_option("--max-batches", config.max_batches, "stop each epoch after this many steps (0: all)")
      ->check(ember::cli::kNonNegative)
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    const ember::train::TrainResult result = ember::train::train(config);
    std::printf("test accuracy after %d epochs: %.2f%%\n", result.epochs_done, 100 * result.test_accuracy);
    // Under EMBER_VALIDATION a message from the Vulkan validation layers fails the run, as in the tests.
    int status = 0;
    for (const std::string& message : ember::vulkan::take_validation_messages()) {
      std::fprintf(stderr, "ember-train: Vulkan validation: %s\n", message.c_str());
      status = 1;
    }
    return status;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ember-train: %s\n", e.what());
    return 1;
  }
}
