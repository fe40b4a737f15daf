#pragma once
// The headless renderer: draws the target scene or the network's prediction into the offscreen image,
// each frame a submit on the shared queue ordered by the renderer's timeline semaphore, which ember's
// stream waits on and signals as well. Only read_pixels waits on the host.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <vector>

#include "ember/vulkan.h"
#include "examples/neural_renderer/offscreen_target.h"
#include "examples/neural_renderer/pipelines.h"
#include "examples/neural_renderer/vulkan_app.h"

namespace ember::neural_renderer {

class Renderer {
 public:
  Renderer(VulkanApp& app, uint32_t width, uint32_t height);
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  // The timeline every frame waits on and signals; it starts at 0.
  VkSemaphore timeline() const { return timeline_; }
  // The whole colour image as ember's copy_from_image reads it, in the layout every frame leaves it in.
  vulkan::ImageRegion colour_region() const;

  // Draws the target scene and copies it for read_pixels; the timeline reaches `signal` after both.
  void draw_target(uint64_t signal);
  // Records the frames that show the prediction from `buffer` (once, before the first draw_prediction).
  void show_prediction_from(const vulkan::BufferView& buffer);
  // Draws the prediction once the timeline reaches `wait`, then signals `signal`. With `copy_to_host`
  // the frame is also copied for read_pixels.
  void draw_prediction(uint64_t wait, uint64_t signal, bool copy_to_host);
  // Waits (the renderer's own host wait, on a fence) for the last frame submitted with a copy, and
  // returns its RGBA8 pixels row by row.
  std::vector<uint8_t> read_pixels();

  uint32_t width() const { return target_.width(); }
  uint32_t height() const { return target_.height(); }

 private:
  enum class Scene { Target, Prediction };
  VkCommandBuffer record_frame(Scene scene, bool copy_to_host);
  void submit(VkCommandBuffer commands, const uint64_t* wait, uint64_t signal, bool copy_to_host);

  VulkanApp& app_;
  OffscreenTarget target_;
  ScenePipelines pipelines_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer target_frame_ = VK_NULL_HANDLE;
  VkCommandBuffer prediction_frame_ = VK_NULL_HANDLE;
  VkCommandBuffer prediction_frame_with_copy_ = VK_NULL_HANDLE;
  VkSemaphore timeline_ = VK_NULL_HANDLE;
  VkFence copied_ = VK_NULL_HANDLE;
  bool copy_pending_ = false;
};

}  // namespace ember::neural_renderer
