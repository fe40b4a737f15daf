#include "examples/neural_renderer/pipelines.h"

#include "examples/neural_renderer/shaders/fullscreen_vert.h"
#include "examples/neural_renderer/shaders/show_prediction_frag.h"
#include "examples/neural_renderer/shaders/target_scene_frag.h"
#include "examples/neural_renderer/vulkan_app.h"

namespace ember::neural_renderer {

namespace {

// What both fragment shaders read from their push constants: the image size in pixels.
struct FramePushConstants {
  int32_t width, height;
};

VkShaderModule create_shader_module(VkDevice device, const uint32_t* words, size_t bytes) {
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = bytes;
  info.pCode = words;
  VkShaderModule module;
  check(vkCreateShaderModule(device, &info, nullptr, &module), "vkCreateShaderModule");
  return module;
}

}  // namespace

ScenePipelines::ScenePipelines(VkDevice device, VkRenderPass render_pass, uint32_t width, uint32_t height)
    : device_(device), width_(width), height_(height) {
  create_layouts();
  target_scene_ = create_pipeline(render_pass, k_target_scene_frag, sizeof k_target_scene_frag);
  show_prediction_ = create_pipeline(render_pass, k_show_prediction_frag, sizeof k_show_prediction_frag);
}

ScenePipelines::~ScenePipelines() {
  vkDestroyPipeline(device_, show_prediction_, nullptr);
  vkDestroyPipeline(device_, target_scene_, nullptr);
  vkDestroyPipelineLayout(device_, layout_, nullptr);
  vkDestroyDescriptorPool(device_, pool_, nullptr);
  vkDestroyDescriptorSetLayout(device_, set_layout_, nullptr);
}

// One layout for both pipelines: the target scene simply leaves the storage buffer unused.
void ScenePipelines::create_layouts() {
  VkDescriptorSetLayoutBinding binding{};
  binding.binding = 0;
  binding.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  binding.descriptorCount = 1;
  binding.stageFlags = VK_SHADER_STAGE_FRAGMENT_BIT;
  VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  set_info.bindingCount = 1;
  set_info.pBindings = &binding;
  check(vkCreateDescriptorSetLayout(device_, &set_info, nullptr, &set_layout_), "vkCreateDescriptorSetLayout");

  VkDescriptorPoolSize pool_size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1};
  VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool_info.maxSets = 1;
  pool_info.poolSizeCount = 1;
  pool_info.pPoolSizes = &pool_size;
  check(vkCreateDescriptorPool(device_, &pool_info, nullptr, &pool_), "vkCreateDescriptorPool");
  VkDescriptorSetAllocateInfo allocate{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  allocate.descriptorPool = pool_;
  allocate.descriptorSetCount = 1;
  allocate.pSetLayouts = &set_layout_;
  check(vkAllocateDescriptorSets(device_, &allocate, &prediction_set_), "vkAllocateDescriptorSets");

  VkPushConstantRange push{VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(FramePushConstants)};
  VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = &set_layout_;
  layout_info.pushConstantRangeCount = 1;
  layout_info.pPushConstantRanges = &push;
  check(vkCreatePipelineLayout(device_, &layout_info, nullptr, &layout_), "vkCreatePipelineLayout");
}

VkPipeline ScenePipelines::create_pipeline(VkRenderPass render_pass, const uint32_t* fragment_words,
                                           size_t fragment_bytes) {
  const VkShaderModule vertex = create_shader_module(device_, k_fullscreen_vert, sizeof k_fullscreen_vert);
  const VkShaderModule fragment = create_shader_module(device_, fragment_words, fragment_bytes);
  VkPipelineShaderStageCreateInfo stages[2]{};
  stages[0].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
  stages[0].module = vertex;
  stages[0].pName = "main";
  stages[1].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
  stages[1].module = fragment;
  stages[1].pName = "main";

  VkPipelineVertexInputStateCreateInfo vertex_input{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  VkPipelineInputAssemblyStateCreateInfo assembly{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  const VkViewport viewport{0, 0, static_cast<float>(width_), static_cast<float>(height_), 0, 1};
  const VkRect2D scissor{{0, 0}, {width_, height_}};
  VkPipelineViewportStateCreateInfo viewport_state{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  viewport_state.viewportCount = 1;
  viewport_state.pViewports = &viewport;
  viewport_state.scissorCount = 1;
  viewport_state.pScissors = &scissor;
  VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  raster.polygonMode = VK_POLYGON_MODE_FILL;
  raster.cullMode = VK_CULL_MODE_NONE;
  raster.lineWidth = 1;
  VkPipelineMultisampleStateCreateInfo multisample{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  VkPipelineColorBlendAttachmentState blend{};
  blend.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT |
                         VK_COLOR_COMPONENT_A_BIT;
  VkPipelineColorBlendStateCreateInfo blend_state{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  blend_state.attachmentCount = 1;
  blend_state.pAttachments = &blend;

  VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  info.stageCount = 2;
  info.pStages = stages;
  info.pVertexInputState = &vertex_input;
  info.pInputAssemblyState = &assembly;
  info.pViewportState = &viewport_state;
  info.pRasterizationState = &raster;
  info.pMultisampleState = &multisample;
  info.pColorBlendState = &blend_state;
  info.layout = layout_;
  info.renderPass = render_pass;
  info.subpass = 0;
  VkPipeline pipeline;
  const VkResult result = vkCreateGraphicsPipelines(device_, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline);
  vkDestroyShaderModule(device_, fragment, nullptr);
  vkDestroyShaderModule(device_, vertex, nullptr);
  check(result, "vkCreateGraphicsPipelines");
  return pipeline;
}

void ScenePipelines::bind_prediction_buffer(VkBuffer buffer, VkDeviceSize offset, VkDeviceSize range) {
  VkDescriptorBufferInfo buffer_info{buffer, offset, range};
  VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  write.dstSet = prediction_set_;
  write.dstBinding = 0;
  write.descriptorCount = 1;
  write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  write.pBufferInfo = &buffer_info;
  vkUpdateDescriptorSets(device_, 1, &write, 0, nullptr);
}

void ScenePipelines::record_fullscreen_draw(VkCommandBuffer commands, VkPipeline pipeline) const {
  vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
  const FramePushConstants frame{static_cast<int32_t>(width_), static_cast<int32_t>(height_)};
  vkCmdPushConstants(commands, layout_, VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof frame, &frame);
  vkCmdDraw(commands, 3, 1, 0, 0);
}

void ScenePipelines::record_target_scene(VkCommandBuffer commands) const {
  record_fullscreen_draw(commands, target_scene_);
}

void ScenePipelines::record_show_prediction(VkCommandBuffer commands) const {
  vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, layout_, 0, 1, &prediction_set_, 0, nullptr);
  record_fullscreen_draw(commands, show_prediction_);
}

}  // namespace ember::neural_renderer
