#pragma once
// The training run: AdamW, linear warmup then cosine decay, gradient clipping, periodic validation on
// fixed batches, a CSV of the loss curve, and samples of generated text.
#include <cstdint>
#include <string>

#include "examples/char_gpt/model.h"

namespace ember::char_gpt {

struct TrainOptions {
  GptConfig model;
  std::string corpus = "/usr/share/games/fortunes";
  std::string device;  // empty: the best device found
  int64_t steps = 600;
  int64_t batch_size = 16;
  double lr = 1e-3;
  int64_t warmup = 60;
  double weight_decay = 0.1;
  double clip = 1.0;
  // Mixed precision: products in float16 under autocast, the loss scaled by a GradScaler.
  bool autocast = false;
  int64_t eval_every = 100;
  int64_t eval_batches = 8;
  int64_t log_every = 20;
  uint64_t seed = 1;
  std::string save_init;  // writes the initial weights as a PyTorch state dict (for char_gpt_torch.py)
  std::string load_init;  // starts from these weights instead of the seed's
  std::string curve = "char_gpt_curve.csv";
  int64_t sample_length = 400;
  double temperature = 0.8;
  int64_t top_k = 20;
};

struct TrainResult {
  double validation_loss = 0;
  double milliseconds_per_step = 0;
  double dispatches_per_step = 0;  // kernels and copies a training step records (validation excluded)
  double host_waits_per_step = 0;  // including the loss reads at log lines
  std::string sample;
};

TrainResult train(const TrainOptions& options);

// `length` characters after a newline, each drawn from softmax(logits / temperature) over the top_k
// likeliest (all when top_k is 0) with multinomial.
std::string sample(Gpt& model, const std::string& vocabulary, int64_t length, double temperature, int64_t top_k,
                   uint64_t seed);

}  // namespace ember::char_gpt
