#include "examples/neural_renderer/trainer.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include "ember/vulkan.h"
#include "examples/neural_renderer/png_output.h"
#include "examples/neural_renderer/renderer.h"

namespace ember::neural_renderer {

namespace {

namespace F = nn::functional;
using Clock = std::chrono::steady_clock;

// Waits for ember's stream and the shared queue when it goes out of scope, and stops ember from handing
// out the adopted device as its default, since the application's VkDevice goes next.
struct IdleOnExit {
  VulkanApp& app;
  std::shared_ptr<Device> device;
  ~IdleOnExit() {
    try {
      device->synchronize();  // submits what ember still holds, then waits for it
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ember-neural-renderer: while finishing ember's work: %s\n", e.what());
    }
    app.wait_idle();
    set_default_device(nullptr);
  }
};

double psnr_of(double mse) { return -10.0 * std::log10(mse); }

// The renderer's target scene, drawn by the renderer and copied by ember straight from its image:
// (H * W, 3) values in [0, 1], row by row like pixel_centres.
Tensor render_target(Renderer& renderer, uint64_t& timeline_value, const std::shared_ptr<Device>& device,
                     const std::filesystem::path& out) {
  renderer.draw_target(++timeline_value);
  // The copy waits on the GPU for the draw; the host does not.
  vulkan::wait_semaphore(*device->default_stream(), renderer.timeline(), timeline_value);
  const Tensor rgba = vulkan::copy_from_image(device, renderer.colour_region(), vulkan::ImageLayout::NHWC, kFloat32);
  write_rgba_png(out / "target.png", renderer.read_pixels(), renderer.width(), renderer.height());
  const int64_t pixels = int64_t{renderer.width()} * renderer.height();
  return rgba.narrow(3, 0, 3).reshape({pixels, 3});
}

void write_curve(const std::filesystem::path& path, const std::vector<float>& losses, std::vector<double>& psnr) {
  std::ofstream curve(path);
  curve << "step,loss,psnr\n";
  for (size_t i = 0; i < losses.size(); ++i) {
    psnr.push_back(psnr_of(losses[i]));
    curve << i + 1 << "," << losses[i] << "," << psnr.back() << "\n";
  }
  if (!curve) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace

RunResult train_and_render(VulkanApp& app, const RunOptions& options) {
  std::filesystem::create_directories(options.out);
  // ember works on the application's device and queue from here on; the handles stay the application's.
  const std::shared_ptr<Device> device = vulkan::adopt_device(app.external_device());
  // Module constructors and factories given no device create their tensors here, not on a device of
  // ember's own.
  set_default_device(device);
  const std::shared_ptr<Stream> stream = device->default_stream();
  Renderer renderer(app, options.size, options.size);
  // Declared after the renderer and ember's device so that, on every way out (exceptions included), the
  // GPU is idle before either goes: their objects must not die under work still in flight.
  const IdleOnExit idle_on_exit{app, device};
  uint64_t timeline_value = 0;  // the last value anyone (renderer or ember) signals on the timeline

  const Tensor target = render_target(renderer, timeline_value, device, options.out);
  manual_seed(options.seed);
  FieldModel model(options.model);
  const Tensor inputs = positional_encoding(pixel_centres(options.size, options.size, device), options.model.frequencies);
  optim::Adam optimizer(model->parameters(), optim::AdamOptions(options.lr));
  RunResult result;
  for (const Tensor& p : model->parameters()) result.parameters += p.numel();

  // What the renderer shows: ember's buffer, bound in the renderer's descriptor set as it is.
  Tensor display = vulkan::graphics_empty(device, {target.numel()}, kFloat32, {});
  renderer.show_prediction_from(vulkan::export_buffer(display));
  // Each step's loss stays on the device until the loop is over, so that logging never waits.
  Tensor losses = zeros({options.steps}, TensorOptions().device(device));

  const StreamStats before = stream->stats();
  const Clock::time_point start = Clock::now();
  uint64_t last_frame_done = 0;  // the timeline value at which the last prediction frame has been drawn
  for (int64_t step = 1; step <= options.steps; ++step) {
    const Tensor prediction = model(inputs);
    const Tensor loss = F::mse_loss(prediction, target);
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    losses.narrow(0, step - 1, 1).copy_(loss.detach().reshape({1}));

    const bool png = step % options.png_every == 0 || step == options.steps;
    if (!png && step % options.frame_every != 0) continue;
    // The last frame may still be reading `display`: ember's copy waits for it on the GPU.
    if (last_frame_done) vulkan::wait_semaphore(*stream, renderer.timeline(), last_frame_done);
    display.copy_(prediction.detach().reshape({-1}));
    vulkan::signal_semaphore(*stream, renderer.timeline(), ++timeline_value);
    renderer.draw_prediction(timeline_value, timeline_value + 1, png);
    last_frame_done = ++timeline_value;
    ++result.frames;
    if (png) {
      // The renderer's own readback waits on the host; ember's stream does not.
      const std::string name = "prediction_" + std::to_string(step) + ".png";
      write_rgba_png(options.out / name, renderer.read_pixels(), renderer.width(), renderer.height());
      ++result.pngs;
      std::printf("step %lld: %s\n", static_cast<long long>(step), name.c_str());
      std::fflush(stdout);
    }
  }
  const StreamStats after = stream->stats();
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.host_waits = after.host_waits - before.host_waits;
  result.dispatches_per_step =
      static_cast<double>(after.dispatches - before.dispatches) / static_cast<double>(options.steps);

  std::vector<double> psnr;
  write_curve(options.out / "curve.csv", losses.to_vector<float>(), psnr);
  plot_psnr_png(options.out / "curve.png", psnr);
  result.first_psnr = psnr.front();
  result.last_psnr = psnr.back();

  return result;
}

}  // namespace ember::neural_renderer
