#include "examples/neural_renderer/renderer.h"

#include <stdexcept>

namespace ember::neural_renderer {

Renderer::Renderer(VulkanApp& app, uint32_t width, uint32_t height)
    : app_(app), target_(app, width, height), pipelines_(app.device(), target_.render_pass(), width, height) {
  const VkDevice device = app_.device();
  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.queueFamilyIndex = app_.queue_family();
  check(vkCreateCommandPool(device, &pool_info, nullptr, &pool_), "vkCreateCommandPool");

  VkSemaphoreTypeCreateInfo timeline_type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  timeline_type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  timeline_type.initialValue = 0;
  VkSemaphoreCreateInfo semaphore_info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  semaphore_info.pNext = &timeline_type;
  check(vkCreateSemaphore(device, &semaphore_info, nullptr, &timeline_), "vkCreateSemaphore");
  VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  check(vkCreateFence(device, &fence_info, nullptr, &copied_), "vkCreateFence");

  target_frame_ = record_frame(Scene::Target, true);
}

Renderer::~Renderer() {
  const VkDevice device = app_.device();
  vkDestroyFence(device, copied_, nullptr);
  vkDestroySemaphore(device, timeline_, nullptr);
  vkDestroyCommandPool(device, pool_, nullptr);
}

vulkan::ImageRegion Renderer::colour_region() const {
  vulkan::ImageRegion region;
  region.image = target_.image();
  region.format = OffscreenTarget::kFormat;
  region.layout = OffscreenTarget::kRestingLayout;
  region.width = target_.width();
  region.height = target_.height();
  return region;
}

// Frames never change, so each is recorded once and submitted again and again. SIMULTANEOUS_USE because
// a frame is submitted again before the host has seen the last submit finish (it never looks).
VkCommandBuffer Renderer::record_frame(Scene scene, bool copy_to_host) {
  VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocate.commandPool = pool_;
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  VkCommandBuffer commands;
  check(vkAllocateCommandBuffers(app_.device(), &allocate, &commands), "vkAllocateCommandBuffers");
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT;
  check(vkBeginCommandBuffer(commands, &begin), "vkBeginCommandBuffer");
  target_.begin_render_pass(commands);
  if (scene == Scene::Target) pipelines_.record_target_scene(commands);
  else pipelines_.record_show_prediction(commands);
  vkCmdEndRenderPass(commands);
  if (copy_to_host) target_.record_copy_to_host(commands);
  check(vkEndCommandBuffer(commands), "vkEndCommandBuffer");
  return commands;
}

void Renderer::show_prediction_from(const vulkan::BufferView& buffer) {
  if (prediction_frame_) throw std::logic_error("the prediction buffer is bound once, before the first frame");
  pipelines_.bind_prediction_buffer(buffer.buffer, buffer.offset, buffer.range);
  prediction_frame_ = record_frame(Scene::Prediction, false);
  prediction_frame_with_copy_ = record_frame(Scene::Prediction, true);
}

void Renderer::draw_target(uint64_t signal) { submit(target_frame_, nullptr, signal, true); }

void Renderer::draw_prediction(uint64_t wait, uint64_t signal, bool copy_to_host) {
  if (!prediction_frame_) throw std::logic_error("draw_prediction before show_prediction_from");
  submit(copy_to_host ? prediction_frame_with_copy_ : prediction_frame_, &wait, signal, copy_to_host);
}

void Renderer::submit(VkCommandBuffer commands, const uint64_t* wait, uint64_t signal, bool copy_to_host) {
  if (copy_to_host && copy_pending_) throw std::logic_error("read_pixels the last copy before the next");
  VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  values.waitSemaphoreValueCount = wait ? 1 : 0;
  values.pWaitSemaphoreValues = wait;
  values.signalSemaphoreValueCount = 1;
  values.pSignalSemaphoreValues = &signal;
  // The fragment shader reads what ember wrote, and the layout transition at the start of the render
  // pass overwrites the image that ember may have been copying from.
  const VkPipelineStageFlags wait_stage =
      VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT | VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  VkSubmitInfo info{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  info.pNext = &values;
  info.waitSemaphoreCount = wait ? 1 : 0;
  info.pWaitSemaphores = &timeline_;
  info.pWaitDstStageMask = &wait_stage;
  info.commandBufferCount = 1;
  info.pCommandBuffers = &commands;
  info.signalSemaphoreCount = 1;
  info.pSignalSemaphores = &timeline_;
  app_.submit(info, copy_to_host ? copied_ : VK_NULL_HANDLE);
  copy_pending_ = copy_pending_ || copy_to_host;
}

std::vector<uint8_t> Renderer::read_pixels() {
  if (!copy_pending_) throw std::logic_error("read_pixels without a frame submitted with a copy");
  check(vkWaitForFences(app_.device(), 1, &copied_, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  check(vkResetFences(app_.device(), 1, &copied_), "vkResetFences");
  copy_pending_ = false;
  return target_.host_pixels();
}

}  // namespace ember::neural_renderer
