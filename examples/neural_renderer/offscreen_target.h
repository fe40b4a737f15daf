#pragma once
// Where frames go: an R8G8B8A8_UNORM colour image with its render pass and framebuffer, and a
// host-visible buffer that a frame can be copied into for writing a PNG. No window, no swapchain.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <vector>

#include "examples/neural_renderer/vulkan_app.h"

namespace ember::neural_renderer {

class OffscreenTarget {
 public:
  static constexpr VkFormat kFormat = VK_FORMAT_R8G8B8A8_UNORM;
  // Every frame ends with the image in this layout, ready to be copied out (by ember or to the host).
  static constexpr VkImageLayout kRestingLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;

  OffscreenTarget(VulkanApp& app, uint32_t width, uint32_t height);
  ~OffscreenTarget();
  OffscreenTarget(const OffscreenTarget&) = delete;
  OffscreenTarget& operator=(const OffscreenTarget&) = delete;

  // Begins the render pass over the whole image (its previous contents are discarded).
  void begin_render_pass(VkCommandBuffer commands) const;
  // Records, after a frame's render pass, the copy of the image into the host-visible buffer.
  void record_copy_to_host(VkCommandBuffer commands) const;
  // The RGBA8 pixels of the last copy, row by row; valid once that copy's submit has finished.
  std::vector<uint8_t> host_pixels() const;

  VkImage image() const { return image_; }
  VkRenderPass render_pass() const { return render_pass_; }
  uint32_t width() const { return width_; }
  uint32_t height() const { return height_; }

 private:
  void create_image();
  void create_render_pass();
  void create_framebuffer();
  void create_host_buffer();

  VulkanApp& app_;
  uint32_t width_, height_;
  VkImage image_ = VK_NULL_HANDLE;
  VkDeviceMemory image_memory_ = VK_NULL_HANDLE;
  VkImageView view_ = VK_NULL_HANDLE;
  VkRenderPass render_pass_ = VK_NULL_HANDLE;
  VkFramebuffer framebuffer_ = VK_NULL_HANDLE;
  VkBuffer host_buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory host_memory_ = VK_NULL_HANDLE;
  void* host_mapping_ = nullptr;
};

}  // namespace ember::neural_renderer
