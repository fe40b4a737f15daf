#include "examples/char_gpt/trainer.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>

#include "examples/char_gpt/batches.h"
#include "examples/char_gpt/corpus.h"

namespace ember::char_gpt {

namespace {

namespace F = nn::functional;

using Clock = std::chrono::steady_clock;

Tensor loss_of(Gpt& model, const Batch& batch) {
  const Tensor logits = model(batch.inputs);
  const int64_t rows = batch.inputs.numel();
  return F::cross_entropy(logits.view({rows, logits.size(-1)}), batch.targets.view({rows}));
}

// The mean loss over the same validation batches every time, read from the device once.
double validation_loss(Gpt& model, const std::vector<int64_t>& tokens, const TrainOptions& options,
                       const std::shared_ptr<Device>& device) {
  NoGradGuard no_grad;
  model->eval();
  Tensor total = zeros({}, TensorOptions().device(device));
  const int64_t limit = static_cast<int64_t>(tokens.size()) - options.model.context - 1;
  for (int64_t i = 0; i < options.eval_batches; ++i) {
    const auto offsets = batch_offsets(options.seed, Split::Validation, i, options.batch_size, limit);
    total = total + loss_of(model, make_batch(tokens, offsets, options.model.context, device));
  }
  model->train();
  return total.item<double>() / static_cast<double>(options.eval_batches);
}

}  // namespace

TrainResult train(const TrainOptions& options) {
  const std::shared_ptr<Device> device = options.device.empty() ? default_device() : get_device(options.device);
  const Corpus corpus = load_fortunes(options.corpus);
  GptConfig config = options.model;
  config.vocabulary = static_cast<int64_t>(corpus.vocabulary.size());
  manual_seed(options.seed);
  Gpt model(config);
  model->to(device);
  if (!options.load_init.empty()) load(options.load_init, model);
  if (!options.save_init.empty()) save_pytorch(options.save_init, model);
  int64_t parameter_count = 0;
  for (const Tensor& p : model->parameters()) parameter_count += p.numel();
  std::printf("char-gpt: %lld parameters, %zu characters of text (%zu distinct), on %s\n",
              static_cast<long long>(parameter_count), corpus.train.size() + corpus.validation.size(),
              corpus.vocabulary.size(), device->info().name.c_str());

  const int64_t train_limit = static_cast<int64_t>(corpus.train.size()) - config.context - 1;
  optim::AdamW optimizer(model->parameters(), optim::AdamWOptions(options.lr)
                                                  .betas(std::make_tuple(0.9, 0.95))
                                                  .weight_decay(options.weight_decay));
  // Warmup from 1% of lr, then a cosine down to 10% of it.
  auto warmup = std::make_shared<optim::LinearLR>(optimizer, 0.01, 1.0, options.warmup);
  auto cosine = std::make_shared<optim::CosineAnnealingLR>(optimizer, options.steps - options.warmup, options.lr / 10);
  optim::SequentialLR schedule(optimizer, {warmup, cosine}, {options.warmup});

  if (options.autocast && !device->supports(DType::Float16)) {
    throw Error("--autocast needs float16, which " + device->info().name + " lacks");
  }
  amp::GradScaler scaler(amp::GradScalerOptions().enabled(options.autocast));

  std::ofstream curve(options.curve);
  curve << "step,train_loss,validation_loss,lr\n";
  TrainResult result;
  Tensor loss_sum = zeros({}, TensorOptions().device(device));
  int64_t losses = 0;
  double train_seconds = 0;
  const std::shared_ptr<Stream> stream = device->default_stream();
  StreamStats validation_work{};
  const StreamStats start = stream->stats();
  Clock::time_point since = Clock::now();
  for (int64_t step = 1; step <= options.steps; ++step) {
    const auto offsets = batch_offsets(options.seed, Split::Train, step - 1, options.batch_size, train_limit);
    const Batch batch = make_batch(corpus.train, offsets, config.context, device);
    const Tensor loss = [&] {
      autocast::AutocastGuard mixed_precision(DType::Float16, options.autocast);
      return loss_of(model, batch);
    }();
    optimizer.zero_grad();
    scaler.scale(loss).backward();
    scaler.unscale_(optimizer);  // clipping sees the true gradients
    nn::utils::clip_grad_norm_(model->parameters(), options.clip);
    scaler.step(optimizer);
    scaler.update();
    const double lr = schedule.get_last_lr().front();
    schedule.step();
    loss_sum = loss_sum + loss.detach();
    ++losses;
    const bool evaluate = step % options.eval_every == 0 || step == options.steps;
    if (step % options.log_every != 0 && !evaluate) continue;
    // Reading the loss waits for the device: only at a log line.
    const double train_loss = loss_sum.item<double>() / static_cast<double>(losses);
    train_seconds += std::chrono::duration<double>(Clock::now() - since).count();
    loss_sum = zeros({}, TensorOptions().device(device));
    losses = 0;
    std::string validation;
    if (evaluate) {
      const StreamStats before = stream->stats();
      result.validation_loss = validation_loss(model, corpus.validation, options, device);
      const StreamStats after = stream->stats();
      validation_work.dispatches += after.dispatches - before.dispatches;
      validation_work.host_waits += after.host_waits - before.host_waits;
      validation = std::to_string(result.validation_loss);
    }
    std::printf("step %5lld/%lld  train loss %.4f%s%s  lr %.2e  %.0f ms/step\n", static_cast<long long>(step),
                static_cast<long long>(options.steps), train_loss, evaluate ? "  validation loss " : "",
                validation.c_str(), lr, 1000 * train_seconds / static_cast<double>(step));
    std::fflush(stdout);
    curve << step << "," << train_loss << "," << validation << "," << lr << "\n";
    curve.flush();
    since = Clock::now();
  }
  result.milliseconds_per_step = 1000 * train_seconds / static_cast<double>(options.steps);
  const StreamStats end = stream->stats();
  result.dispatches_per_step = static_cast<double>(end.dispatches - start.dispatches - validation_work.dispatches) /
                               static_cast<double>(options.steps);
  result.host_waits_per_step = static_cast<double>(end.host_waits - start.host_waits - validation_work.host_waits) /
                               static_cast<double>(options.steps);
  if (options.sample_length > 0) {
    result.sample = sample(model, corpus.vocabulary, options.sample_length, options.temperature, options.top_k,
                           options.seed);
  }
  return result;
}

}  // namespace ember::char_gpt
