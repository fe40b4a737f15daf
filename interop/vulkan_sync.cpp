// GPU-to-GPU ordering between ember's streams and an application's submits: semaphores both ways, the
// timeline point a render pass waits on, and queue-family ownership transfers.
#include <string>

#include "interop/vulkan_support.h"
#include "runtime/error.h"

namespace ember::vulkan {

namespace {

void check_semaphore(VkSemaphore semaphore, const char* what) {
  if (semaphore == VK_NULL_HANDLE) throw Error(std::string(what) + ": the semaphore is VK_NULL_HANDLE");
}

}  // namespace

void wait_semaphore(Stream& stream, VkSemaphore semaphore, uint64_t value) {
  check_semaphore(semaphore, "wait_semaphore");
  detail::vulkan_stream(stream, "wait_semaphore").wait_semaphore(semaphore, value);
}

void signal_semaphore(Stream& stream, VkSemaphore semaphore, uint64_t value) {
  check_semaphore(semaphore, "signal_semaphore");
  detail::vulkan_stream(stream, "signal_semaphore").signal_semaphore(semaphore, value);
}

// A binary semaphore ignores the value that the timeline submit info carries for it.
void wait_binary_semaphore(Stream& stream, VkSemaphore semaphore) {
  check_semaphore(semaphore, "wait_binary_semaphore");
  detail::vulkan_stream(stream, "wait_binary_semaphore").wait_semaphore(semaphore, 0);
}

void signal_binary_semaphore(Stream& stream, VkSemaphore semaphore) {
  check_semaphore(semaphore, "signal_binary_semaphore");
  detail::vulkan_stream(stream, "signal_binary_semaphore").signal_semaphore(semaphore, 0);
}

TimelinePoint timeline_point(const Event& event) {
  if (!event.stream()) throw Error("timeline_point: the event or future stands for no stream work");
  VulkanStream& stream = detail::vulkan_stream(*event.stream(), "timeline_point");
  // Work recorded but not submitted would never signal the value.
  if (stream.submitted_value() < event.value()) stream.flush();
  return {stream.timeline(), event.value()};
}

TimelinePoint timeline_point(Stream& stream) {
  VulkanStream& vulkan = detail::vulkan_stream(stream, "timeline_point");
  return {vulkan.timeline(), vulkan.flush()};
}

bool supports_external_semaphores(const Device& device, std::string* why_not) {
  const std::string reason = detail::missing_extension(device, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME,
                                                       &Context::external_semaphore_fd);
  if (why_not) *why_not = reason;
  return reason.empty();
}

ExportableTimeline::ExportableTimeline(const std::shared_ptr<Device>& device) : device_(device) {
  if (!device) throw Error("ExportableTimeline: no device");
  std::string why;
  if (!supports_external_semaphores(*device, &why)) throw UnsupportedError("ExportableTimeline: " + why);
  Context& context = detail::vulkan_device(*device, "ExportableTimeline").context();
  VkExportSemaphoreCreateInfo export_info{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
  export_info.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO, &export_info};
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type};
  context.check(context.fn.vkCreateSemaphore(context.device, &info, nullptr, &semaphore_), "vkCreateSemaphore");
}

ExportableTimeline::~ExportableTimeline() {
  Context& context = detail::vulkan_device(*device_, "ExportableTimeline").context();
  context.fn.vkDestroySemaphore(context.device, semaphore_, nullptr);
}

int ExportableTimeline::export_fd() const {
  Context& context = detail::vulkan_device(*device_, "ExportableTimeline::export_fd").context();
  VkSemaphoreGetFdInfoKHR info{VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
  info.semaphore = semaphore_;
  info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  int fd = -1;
  context.check(context.fn.vkGetSemaphoreFdKHR(context.device, &info, &fd), "vkGetSemaphoreFdKHR");
  return fd;
}

uint32_t queue_family(const Device& device) {
  return detail::vulkan_device(device, "queue_family").context().queue_family;
}

namespace {

// One half of an ownership transfer of a tensor's buffer range. A release makes ember's writes
// available before the buffer leaves; an acquire makes it visible to ember's later work.
void transfer_buffer(Stream& stream, const Tensor& tensor, uint32_t from, uint32_t to, bool acquire,
                     const char* what) {
  VulkanStream& vulkan = detail::vulkan_stream(stream, what);
  const detail::TensorRange range = detail::tensor_range(tensor, what);
  if (from == to || range.end == range.begin) return;  // nothing moves within one family
  const EntryPoints& fn = detail::vulkan_device(*tensor.device(), what).context().fn;
  VkBufferMemoryBarrier barrier{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
  barrier.srcQueueFamilyIndex = from;
  barrier.dstQueueFamilyIndex = to;
  barrier.buffer = range.buffer;
  barrier.offset = range.begin;
  barrier.size = range.end - range.begin;
  barrier.srcAccessMask = acquire ? 0 : VK_ACCESS_MEMORY_WRITE_BIT;
  barrier.dstAccessMask = acquire ? VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT : 0;
  const BufferAccess access{range.buffer, range.begin, range.end, true};
  Allocation* const touched[] = {tensor.storage()->allocation.get()};
  vulkan.record_commands({&access, 1}, touched, [&](VkCommandBuffer commands) {
    fn.vkCmdPipelineBarrier(commands,
                            acquire ? VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT : VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                            acquire ? VK_PIPELINE_STAGE_ALL_COMMANDS_BIT : VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                            0, 0, nullptr, 1, &barrier, 0, nullptr);
  });
}

void transfer_image(Stream& stream, const ImageRegion& region, uint32_t from, uint32_t to, bool acquire,
                    const char* what) {
  VulkanStream& vulkan = detail::vulkan_stream(stream, what);
  if (region.image == VK_NULL_HANDLE) throw Error(std::string(what) + ": the image is VK_NULL_HANDLE");
  if (from == to) return;
  const EntryPoints& fn = vulkan.context().fn;
  VkImageMemoryBarrier barrier{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  barrier.srcQueueFamilyIndex = from;
  barrier.dstQueueFamilyIndex = to;
  barrier.image = region.image;
  barrier.oldLayout = region.layout;
  barrier.newLayout = region.final_layout == VK_IMAGE_LAYOUT_UNDEFINED ? region.layout : region.final_layout;
  barrier.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, region.mip_level, 1, region.array_layer, 1};
  barrier.srcAccessMask = acquire ? 0 : VK_ACCESS_MEMORY_WRITE_BIT;
  barrier.dstAccessMask = acquire ? VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT : 0;
  vulkan.record_commands({}, {}, [&](VkCommandBuffer commands) {
    fn.vkCmdPipelineBarrier(commands,
                            acquire ? VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT : VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                            acquire ? VK_PIPELINE_STAGE_ALL_COMMANDS_BIT : VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                            0, 0, nullptr, 0, nullptr, 1, &barrier);
  });
}

uint32_t stream_family(Stream& stream, const char* what) {
  return detail::vulkan_stream(stream, what).context().queue_family;
}

}  // namespace

void acquire_buffer(Stream& stream, const Tensor& tensor, uint32_t from_family) {
  transfer_buffer(stream, tensor, from_family, stream_family(stream, "acquire_buffer"), true, "acquire_buffer");
}

void release_buffer(Stream& stream, const Tensor& tensor, uint32_t to_family) {
  transfer_buffer(stream, tensor, stream_family(stream, "release_buffer"), to_family, false, "release_buffer");
}

void acquire_image(Stream& stream, const ImageRegion& region, uint32_t from_family) {
  transfer_image(stream, region, from_family, stream_family(stream, "acquire_image"), true, "acquire_image");
}

void release_image(Stream& stream, const ImageRegion& region, uint32_t to_family) {
  transfer_image(stream, region, stream_family(stream, "release_image"), to_family, false, "release_image");
}

}  // namespace ember::vulkan
