// ember-char-gpt: trains a small decoder-only transformer on the text of Debian's `fortunes` package,
// one character at a time, then writes a sample. char_gpt_torch.py beside it is the same run in PyTorch.
//   ember-char-gpt --steps 600 --layers 4 --heads 4 --d-model 128 --context 128 --save-init init.pt
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "ember/vulkan.h"
#include "examples/char_gpt/trainer.h"
#include "tools/cli_checks.h"

int main(int argc, char** argv) {
  ember::char_gpt::TrainOptions options;
  CLI::App app{"Trains a character-level GPT on the fortunes corpus with ember"};
  app.add_option("--corpus", options.corpus, "folder of fortune files")->capture_default_str();
  app.add_option("--device", options.device, "vulkan:0, cuda:0, part of a device name; default: the best found");
  app.add_option("--steps", options.steps, "training steps")->check(ember::cli::kPositive)->capture_default_str();
  app.add_option("--batch-size", options.batch_size, "sequences per step")->check(ember::cli::kPositive)->capture_default_str();
  app.add_option("--context", options.model.context, "characters per sequence")->check(ember::cli::kPositive)->capture_default_str();
  app.add_option("--d-model", options.model.d_model, "embedding width")->check(ember::cli::kPositive)->capture_default_str();
  app.add_option("--heads", options.model.heads, "attention heads")->check(ember::cli::kPositive)->capture_default_str();
  app.add_option("--layers", options.model.layers, "transformer layers")->check(ember::cli::kPositive)->capture_default_str();
  app.add_option("--dropout", options.model.dropout, "dropout in the layers")->check(CLI::Range(0.0, 1.0))->capture_default_str();
  app.add_option("--lr", options.lr, "AdamW's peak learning rate")->check(ember::cli::kPositive)->capture_default_str();
  app.add_option("--warmup", options.warmup, "steps of linear warmup before the cosine decay")->check(ember::cli::kPositive)->capture_default_str();
  app.add_option("--weight-decay", options.weight_decay, "AdamW's weight decay")->capture_default_str();
  app.add_option("--clip", options.clip, "gradient norm clipping")->check(ember::cli::kPositive)->capture_default_str();
  app.add_flag("--autocast", options.autocast, "float16 products under autocast, with a GradScaler");
  app.add_option("--eval-every", options.eval_every, "steps between validations")->check(ember::cli::kPositive)->capture_default_str();
  app.add_option("--eval-batches", options.eval_batches, "validation batches")->check(ember::cli::kPositive)->capture_default_str();
  app.add_option("--log-every", options.log_every, "steps between progress lines")->check(ember::cli::kPositive)->capture_default_str();
  app.add_option("--seed", options.seed, "seed of the weights, the batches and the sample")->capture_default_str();
  app.add_option("--save-init", options.save_init, "write the initial weights as a PyTorch state dict");
  app.add_option("--load-init", options.load_init, "start from these weights (safetensors or PyTorch .pt)");
  app.add_option("--curve", options.curve, "CSV of the loss curve")->capture_default_str();
  app.add_option("--sample", options.sample_length, "characters to generate after training")
      ->check(ember::cli::kNonNegative)
      ->capture_default_str();
  app.add_option("--temperature", options.temperature, "sampling temperature")->check(ember::cli::kPositive)->capture_default_str();
  app.add_option("--top-k", options.top_k, "sample from the k likeliest characters (0: all)")
      ->check(ember::cli::kNonNegative)
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (options.warmup >= options.steps) {
    std::fprintf(stderr, "ember-char-gpt: --warmup (%lld) must be below --steps (%lld)\n",
                 static_cast<long long>(options.warmup), static_cast<long long>(options.steps));
    return 1;
  }
  try {
    const ember::char_gpt::TrainResult result = ember::char_gpt::train(options);
    std::printf("validation loss %.4f, %.1f ms, %.0f dispatches and %.2f host waits per step\n",
                result.validation_loss, result.milliseconds_per_step, result.dispatches_per_step,
                result.host_waits_per_step);
    if (!result.sample.empty()) std::printf("---- sample ----\n%s\n----\n", result.sample.c_str());
    int status = 0;
    for (const std::string& message : ember::vulkan::take_validation_messages()) {
      std::fprintf(stderr, "ember-char-gpt: Vulkan validation: %s\n", message.c_str());
      status = 1;
    }
    return status;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ember-char-gpt: %s\n", e.what());
    return 1;
  }
}
