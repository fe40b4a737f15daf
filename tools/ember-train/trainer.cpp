#include "tools/ember-train/trainer.h"

#include <unistd.h>

#include <cstdio>
#include <map>

#include "data/data.h"
#include "optim/optim.h"
#include "serialize/serialize.h"
#include "tools/ember-train/metrics.h"
#include "tools/ember-train/models.h"
#include "tools/ember-train/progress.h"

namespace ember::train {

namespace {

namespace F = nn::functional;
using data::datasets::FashionMNIST;
using data::datasets::MNIST;

constexpr const char* kModelPrefix = "model.";
constexpr const char* kOptimizerPrefix = "optimizer.";
constexpr int64_t kTestBatch = 1000;

// What is saved beside the tensors: the epoch, the model's name, the optimizer's groups and where the
// shuffling generator stands.
struct CheckpointPaths {
  std::filesystem::path checkpoint, metrics_csv, metrics_png;
};

CheckpointPaths paths_in(const std::filesystem::path& out) {
  return {out / "checkpoint.safetensors", out / "metrics.csv", out / "metrics.png"};
}

void save_checkpoint(const std::filesystem::path& path, const TrainConfig& config, int epoch, nn::Module& model,
                     const optim::Optimizer& optimizer, const Generator& shuffle) {
  OrderedDict<std::string, Tensor> tensors{"Tensor"};
  for (const auto& item : model.state_dict()) tensors.insert(kModelPrefix + item.key(), item.value());
  const optim::OptimizerStateDict optimizer_state = optimizer.state_dict();
  for (const auto& item : optimizer_state.tensors) tensors.insert(kOptimizerPrefix + item.key(), item.value());
  save(path.string(), tensors,
       {{"epoch", std::to_string(epoch)},
        {"model", config.model},
        {"optimizer.param_groups", optimizer_state.param_groups_json},
        {"generator.seed", std::to_string(shuffle.initial_seed())},
        {"generator.offset", std::to_string(shuffle.offset())}});
}

// Restores the model, the optimizer and the generator from `path`; returns the epochs done.
int load_checkpoint(const std::filesystem::path& path, const TrainConfig& config, const std::shared_ptr<Device>& device,
                    nn::Module& model, optim::Optimizer& optimizer, Generator& shuffle) {
  Checkpoint checkpoint = load(path.string(), device);
  auto meta = [&](const std::string& key) {
    const auto found = checkpoint.metadata.find(key);
    if (found == checkpoint.metadata.end()) throw Error(path.string() + ": no '" + key + "' in the checkpoint's metadata");
    return found->second;
  };
  if (meta("model") != config.model) {
    throw Error(path.string() + " holds the " + meta("model") + " model, not the " + config.model + " that --model asks for");
  }
  OrderedDict<std::string, Tensor> model_state{"Tensor"};
  optim::OptimizerStateDict optimizer_state;
  for (const auto& item : checkpoint.tensors) {
    const std::string& key = item.key();
    if (key.rfind(kModelPrefix, 0) == 0) model_state.insert(key.substr(std::string(kModelPrefix).size()), item.value());
    else if (key.rfind(kOptimizerPrefix, 0) == 0) optimizer_state.tensors.insert(key.substr(std::string(kOptimizerPrefix).size()), item.value());
  }
  optimizer_state.param_groups_json = meta("optimizer.param_groups");
  model.load_state_dict(model_state);
  optimizer.load_state_dict(optimizer_state);
  shuffle.manual_seed(std::stoull(meta("generator.seed")));
  shuffle.set_offset(std::stoull(meta("generator.offset")));
  return std::stoi(meta("epoch"));
}

// Mean loss and accuracy over the test set, read from the device once.
std::pair<double, double> evaluate(nn::Sequential& model, data::DataLoader<FashionMNIST>& loader, size_t examples) {
  NoGradGuard no_grad;
  model->eval();
  Tensor loss_sum, correct;
  for (data::Example<>& batch : loader) {
    const Tensor logits = model->forward(batch.data);
    const Tensor loss = F::cross_entropy(logits, batch.target, F::CrossEntropyFuncOptions().reduction(kSum));
    const Tensor hits = logits.argmax(1).eq(batch.target).sum();
    loss_sum = loss_sum.defined() ? loss_sum + loss : loss;
    correct = correct.defined() ? correct + hits : hits;
  }
  model->train();
  const double n = static_cast<double>(examples);
  return {loss_sum.item<double>() / n, correct.item<double>() / n};
}

}  // namespace

TrainResult train(const TrainConfig& config) {
  const std::shared_ptr<Device> device = config.device.empty() ? default_device() : get_device(config.device);
  std::printf("ember-train: %s on %s\n", config.model.c_str(), device->info().name.c_str());
  manual_seed(config.seed);
  nn::Sequential model = make_model(config.model);
  model->to(device);
  optim::Adam optimizer(model->parameters(), optim::AdamOptions(config.lr));
  Generator shuffle(config.seed);

  std::filesystem::create_directories(config.out);
  const CheckpointPaths paths = paths_in(config.out);
  int first_epoch = 1;
  std::vector<EpochMetrics> history;
  if (config.resume) {
    if (!std::filesystem::exists(paths.checkpoint)) throw Error("--resume: no checkpoint at " + paths.checkpoint.string());
    first_epoch = load_checkpoint(paths.checkpoint, config, device, *model, optimizer, shuffle) + 1;
    if (std::filesystem::exists(paths.metrics_csv)) history = read_metrics_csv(paths.metrics_csv);
    while (!history.empty() && history.back().epoch >= first_epoch) history.pop_back();
    std::printf("resuming after epoch %d\n", first_epoch - 1);
  }

  FashionMNIST train_set(config.data.string(), MNIST::Mode::kTrain, device);
  FashionMNIST test_set(config.data.string(), MNIST::Mode::kTest, device);
  const size_t test_examples = *test_set.size();
  data::DataLoader train_loader(std::move(train_set), data::DataLoaderOptions(static_cast<size_t>(config.batch_size))
                                                          .shuffle(true)
                                                          .generator(&shuffle)
                                                          .workers(config.workers));
  data::DataLoader test_loader(std::move(test_set), data::DataLoaderOptions(kTestBatch).workers(config.workers));
  const bool terminal = isatty(fileno(stdout)) != 0;

  TrainResult result;
  result.epochs_done = first_epoch - 1;
  if (!history.empty()) result.test_accuracy = history.back().test_accuracy;
  for (int epoch = first_epoch; epoch <= config.epochs; ++epoch) {
    const int64_t batches = config.max_batches > 0 ? std::min<int64_t>(config.max_batches, static_cast<int64_t>(train_loader.size()))
                                                   : static_cast<int64_t>(train_loader.size());
    EpochProgress progress(epoch, config.epochs, batches, terminal);
    int64_t step = 0;
    for (data::Example<>& batch : train_loader) {
      if (step++ == batches) break;
      optimizer.zero_grad();
      const Tensor loss = F::cross_entropy(model->forward(batch.data), batch.target);
      loss.backward();
      optimizer.step();
      progress.step(loss, batch.data.size(0));
    }
    EpochMetrics row;
    row.epoch = epoch;
    row.train_loss = progress.finish();
    row.seconds = progress.seconds();
    row.samples_per_second = progress.samples_per_second();
    std::tie(row.test_loss, row.test_accuracy) = evaluate(model, test_loader, test_examples);
    std::printf("epoch %d: test loss %.4f, test accuracy %.2f%%\n", epoch, printable_loss(row.test_loss), 100 * row.test_accuracy);
    history.push_back(row);
    write_metrics_csv(paths.metrics_csv, history);
    plot_metrics_png(paths.metrics_png, history, "ember-train " + config.model + " on Fashion-MNIST");
    save_checkpoint(paths.checkpoint, config, epoch, *model, optimizer, shuffle);
    result.epochs_done = epoch;
    result.test_accuracy = row.test_accuracy;
    result.last_epoch_seconds = row.seconds;
  }
  return result;
}

}  // namespace ember::train
