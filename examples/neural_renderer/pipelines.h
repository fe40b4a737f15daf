#pragma once
// The two graphics pipelines the renderer draws with, both a fullscreen triangle: one paints the
// procedural target scene, the other shows the network's prediction from a storage buffer.
#include <vulkan/vulkan.h>

#include <cstdint>

namespace ember::neural_renderer {

class ScenePipelines {
 public:
  ScenePipelines(VkDevice device, VkRenderPass render_pass, uint32_t width, uint32_t height);
  ~ScenePipelines();
  ScenePipelines(const ScenePipelines&) = delete;
  ScenePipelines& operator=(const ScenePipelines&) = delete;

  // Points the show-prediction shader at bytes [offset, offset + range) of `buffer`: H*W*3 floats. Call
  // it before recording a frame that shows the prediction, as recorded frames keep the descriptor.
  void bind_prediction_buffer(VkBuffer buffer, VkDeviceSize offset, VkDeviceSize range);

  // Inside the render pass: one fullscreen triangle with the pipeline's state.
  void record_target_scene(VkCommandBuffer commands) const;
  void record_show_prediction(VkCommandBuffer commands) const;

 private:
  void create_layouts();
  VkPipeline create_pipeline(VkRenderPass render_pass, const uint32_t* fragment_words, size_t fragment_bytes);
  void record_fullscreen_draw(VkCommandBuffer commands, VkPipeline pipeline) const;

  VkDevice device_;
  uint32_t width_, height_;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  VkDescriptorSet prediction_set_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline target_scene_ = VK_NULL_HANDLE;
  VkPipeline show_prediction_ = VK_NULL_HANDLE;
};

}  // namespace ember::neural_renderer
