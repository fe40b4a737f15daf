// ember-neural-renderer: a headless Vulkan renderer whose device ember adopts. A neural field (positional
// encoding and an MLP) learns the renderer's target scene while the renderer draws the network's
// prediction every few steps from ember's tensor, synchronised by timeline semaphores without host waits.
//   ember-neural-renderer --size 128 --steps 1000 --frame-every 10 --png-every 200 --out out
// EMBER_VALIDATION=1 turns on the validation layer for the renderer and ember alike; any message fails the run.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>

#include "ember/vulkan.h"
#include "examples/neural_renderer/trainer.h"
#include "examples/neural_renderer/vulkan_app.h"
#include "tools/cli_checks.h"

namespace {

bool validation_requested() {
  const char* value = std::getenv("EMBER_VALIDATION");
  return value && std::string_view(value) != "" && std::string_view(value) != "0";
}

}  // namespace

int main(int argc, char** argv) {
  namespace renderer = ember::neural_renderer;
  renderer::RunOptions options;
  CLI::App cli{"Trains a neural field on a rendered scene and renders its prediction as it learns"};
  cli.add_option("--steps", options.steps, "training steps")->check(ember::cli::kPositive)->capture_default_str();
  cli.add_option("--size", options.size, "image width and height in pixels")->check(CLI::Range(8, 4096))->capture_default_str();
  cli.add_option("--frame-every", options.frame_every, "steps between frames of the prediction")->check(ember::cli::kPositive)->capture_default_str();
  cli.add_option("--png-every", options.png_every, "steps between prediction PNGs")->check(ember::cli::kPositive)->capture_default_str();
  cli.add_option("--out", options.out, "folder for target.png, prediction_<step>.png, curve.csv and curve.png")->capture_default_str();
  cli.add_option("--lr", options.lr, "Adam's learning rate")->check(ember::cli::kPositive)->capture_default_str();
  cli.add_option("--seed", options.seed, "seed of the initial weights")->capture_default_str();
  cli.add_option("--width", options.model.width, "units per hidden layer")->check(ember::cli::kPositive)->capture_default_str();
  cli.add_option("--layers", options.model.layers, "hidden layers")->check(ember::cli::kPositive)->capture_default_str();
  cli.add_option("--frequencies", options.model.frequencies, "octaves of the positional encoding")->check(ember::cli::kNonNegative)->capture_default_str();
  CLI11_PARSE(cli, argc, argv);

  int status = 0;
  try {
    renderer::VulkanApp app(validation_requested());
    std::printf("neural-renderer: %ux%u on %s, MLP %lld x %lld, %lld frequencies\n", options.size, options.size,
                app.device_name().c_str(), static_cast<long long>(options.model.layers),
                static_cast<long long>(options.model.width), static_cast<long long>(options.model.frequencies));
    const renderer::RunResult result = renderer::train_and_render(app, options);
    std::printf("%lld parameters, %lld steps in %.2f s (%.1f ms/step), %.1f dispatches per step, %lld frames, %lld PNGs\n",
                static_cast<long long>(result.parameters), static_cast<long long>(options.steps), result.seconds,
                1000 * result.seconds / static_cast<double>(options.steps), result.dispatches_per_step,
                static_cast<long long>(result.frames), static_cast<long long>(result.pngs));
    std::printf("host waits in frame loop: %llu\n", static_cast<unsigned long long>(result.host_waits));
    std::printf("psnr first=%.2fdB last=%.2fdB\n", result.first_psnr, result.last_psnr);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ember-neural-renderer: %s\n", e.what());
    status = 1;
  }
  // After the application's device and instance are gone, so that what their teardown reports counts too.
  for (const std::string& message : ember::vulkan::take_validation_messages()) {
    std::fprintf(stderr, "ember-neural-renderer: Vulkan validation: %s\n", message.c_str());
    status = 1;
  }
  return status;
}
