#include "examples/neural_renderer/offscreen_target.h"

#include <cstring>

namespace ember::neural_renderer {

OffscreenTarget::OffscreenTarget(VulkanApp& app, uint32_t width, uint32_t height)
    : app_(app), width_(width), height_(height) {
  create_image();
  create_render_pass();
  create_framebuffer();
  create_host_buffer();
}

OffscreenTarget::~OffscreenTarget() {
  const VkDevice device = app_.device();
  if (host_mapping_) vkUnmapMemory(device, host_memory_);
  vkDestroyBuffer(device, host_buffer_, nullptr);
  vkFreeMemory(device, host_memory_, nullptr);
  vkDestroyFramebuffer(device, framebuffer_, nullptr);
  vkDestroyRenderPass(device, render_pass_, nullptr);
  vkDestroyImageView(device, view_, nullptr);
  vkDestroyImage(device, image_, nullptr);
  vkFreeMemory(device, image_memory_, nullptr);
}

void OffscreenTarget::create_image() {
  const VkDevice device = app_.device();
  VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = kFormat;
  info.extent = {width_, height_, 1};
  info.mipLevels = 1;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  // TRANSFER_SRC: ember's copy_from_image reads the target from it, and PNGs are copied out of it.
  info.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  check(vkCreateImage(device, &info, nullptr, &image_), "vkCreateImage");
  VkMemoryRequirements requirements;
  vkGetImageMemoryRequirements(device, image_, &requirements);
  VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocate.allocationSize = requirements.size;
  allocate.memoryTypeIndex = app_.memory_type(requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  check(vkAllocateMemory(device, &allocate, nullptr, &image_memory_), "vkAllocateMemory");
  check(vkBindImageMemory(device, image_, image_memory_, 0), "vkBindImageMemory");

  VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  view.image = image_;
  view.viewType = VK_IMAGE_VIEW_TYPE_2D;
  view.format = kFormat;
  view.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  check(vkCreateImageView(device, &view, nullptr, &view_), "vkCreateImageView");
}

void OffscreenTarget::create_render_pass() {
  VkAttachmentDescription colour{};
  colour.format = kFormat;
  colour.samples = VK_SAMPLE_COUNT_1_BIT;
  // The fullscreen triangle writes every pixel, so neither the old contents nor a clear are needed.
  colour.loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  colour.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  colour.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  colour.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  colour.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  colour.finalLayout = kRestingLayout;
  VkAttachmentReference reference{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkSubpassDescription subpass{};
  subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpass.colorAttachmentCount = 1;
  subpass.pColorAttachments = &reference;
  VkSubpassDependency dependencies[2]{};
  // Before: earlier copies out of the image (ember's or the host readback) finish reading it before
  // the layout transition overwrites it.
  dependencies[0].srcSubpass = VK_SUBPASS_EXTERNAL;
  dependencies[0].dstSubpass = 0;
  dependencies[0].srcStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  dependencies[0].dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  dependencies[0].srcAccessMask = 0;
  dependencies[0].dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  // After: the pixels are written before anything copies them out.
  dependencies[1].srcSubpass = 0;
  dependencies[1].dstSubpass = VK_SUBPASS_EXTERNAL;
  dependencies[1].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  dependencies[1].dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
  dependencies[1].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  dependencies[1].dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  VkRenderPassCreateInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  info.attachmentCount = 1;
  info.pAttachments = &colour;
  info.subpassCount = 1;
  info.pSubpasses = &subpass;
  info.dependencyCount = 2;
  info.pDependencies = dependencies;
  check(vkCreateRenderPass(app_.device(), &info, nullptr, &render_pass_), "vkCreateRenderPass");
}

void OffscreenTarget::create_framebuffer() {
  VkFramebufferCreateInfo info{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  info.renderPass = render_pass_;
  info.attachmentCount = 1;
  info.pAttachments = &view_;
  info.width = width_;
  info.height = height_;
  info.layers = 1;
  check(vkCreateFramebuffer(app_.device(), &info, nullptr, &framebuffer_), "vkCreateFramebuffer");
}

void OffscreenTarget::create_host_buffer() {
  const VkDevice device = app_.device();
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = VkDeviceSize{width_} * height_ * 4;
  info.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  check(vkCreateBuffer(device, &info, nullptr, &host_buffer_), "vkCreateBuffer");
  VkMemoryRequirements requirements;
  vkGetBufferMemoryRequirements(device, host_buffer_, &requirements);
  VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocate.allocationSize = requirements.size;
  allocate.memoryTypeIndex = app_.memory_type(
      requirements.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  check(vkAllocateMemory(device, &allocate, nullptr, &host_memory_), "vkAllocateMemory");
  check(vkBindBufferMemory(device, host_buffer_, host_memory_, 0), "vkBindBufferMemory");
  check(vkMapMemory(device, host_memory_, 0, VK_WHOLE_SIZE, 0, &host_mapping_), "vkMapMemory");
}

void OffscreenTarget::begin_render_pass(VkCommandBuffer commands) const {
  VkRenderPassBeginInfo begin{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  begin.renderPass = render_pass_;
  begin.framebuffer = framebuffer_;
  begin.renderArea = {{0, 0}, {width_, height_}};
  vkCmdBeginRenderPass(commands, &begin, VK_SUBPASS_CONTENTS_INLINE);
}

void OffscreenTarget::record_copy_to_host(VkCommandBuffer commands) const {
  VkBufferImageCopy region{};
  region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  region.imageExtent = {width_, height_, 1};
  vkCmdCopyImageToBuffer(commands, image_, kRestingLayout, host_buffer_, 1, &region);
  VkBufferMemoryBarrier to_host{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
  to_host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  to_host.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  to_host.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  to_host.buffer = host_buffer_;
  to_host.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr, 1,
                       &to_host, 0, nullptr);
}

std::vector<uint8_t> OffscreenTarget::host_pixels() const {
  std::vector<uint8_t> pixels(size_t{width_} * height_ * 4);
  std::memcpy(pixels.data(), host_mapping_, pixels.size());
  return pixels;
}

}  // namespace ember::neural_renderer
