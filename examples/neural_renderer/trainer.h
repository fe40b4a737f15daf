#pragma once
// One run: the renderer draws the target scene, ember reads it as the training target, and the network
// trains on it while the renderer draws its prediction every few steps, ember and the renderer ordered
// by the renderer's timeline semaphore alone.
#include <cstdint>
#include <filesystem>

#include "examples/neural_renderer/field_model.h"
#include "examples/neural_renderer/vulkan_app.h"

namespace ember::neural_renderer {

struct RunOptions {
  int64_t steps = 1000;
  uint32_t size = 128;       // the image is size x size pixels
  int64_t frame_every = 10;  // steps between frames that show the prediction
  int64_t png_every = 200;   // steps between frames written as PNGs (the last step always is)
  std::filesystem::path out = "neural-renderer-out";
  double lr = 5e-3;
  uint64_t seed = 0;
  FieldConfig model;
};

struct RunResult {
  int64_t parameters = 0;
  double first_psnr = 0, last_psnr = 0;  // dB, of the predictions at the first and the last step
  double seconds = 0;                    // the training and frame loop, without setup and readback
  double dispatches_per_step = 0;
  uint64_t host_waits = 0;  // ember's, over the training and frame loop
  int64_t frames = 0, pngs = 0;
};

RunResult train_and_render(VulkanApp& app, const RunOptions& options);

}  // namespace ember::neural_renderer
