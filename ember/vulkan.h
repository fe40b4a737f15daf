#pragma once
// ember's Vulkan interop, opt-in: include it beside ember.h in a graphics application that shares its
// VkDevice with ember. It hands ember the application's device (adopt_device), its buffers and images as
// tensors, and synchronises ember's streams with the application's submits through semaphores, GPU to GPU.
// docs/INTEROP.md says what the application must enable, who owns what, and how one frame goes.
//
//   auto device = ember::vulkan::adopt_device(external);
//   ember::Tensor vertices = ember::vulkan::from_buffer(device, app_buffer, 0, bytes, ember::kFloat32, {n, 4});
//   ember::vulkan::wait_semaphore(*device->default_stream(), app_timeline, frame_value);  // app wrote it
//   vertices.mul_(2);
//   ember::vulkan::signal_semaphore(*device->default_stream(), app_timeline, frame_value + 1);
//   // ... the application's draw waits for frame_value + 1 on app_timeline and reads app_buffer ...
//
// Ownership, in one line each: ember never destroys a handle it did not create; a tensor over an
// application's buffer or image copy keeps nothing of the application's alive, so the application keeps
// the buffer alive while the tensor (and any work recorded on it) exists; a buffer ember exports stays
// ember's, alive while the tensor it came from is.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <string>

#include "runtime/stream.h"
#include "runtime/vulkan/external_device.h"
#include "tensor/tensor.h"

namespace ember::vulkan {

// ---------------------------------------------------------------------------------------------- buffers

// Usage flags every buffer that ember binds must have. An application buffer handed to from_buffer needs
// them all; every buffer ember allocates has them, and the graphics ones of graphics_buffer_usage().
VkBufferUsageFlags tensor_buffer_usage();
// Usage flags ember adds to its own buffers so that an application can bind a tensor's buffer as a
// vertex, index or indirect buffer as it is.
VkBufferUsageFlags graphics_buffer_usage();

// A tensor of `sizes` (and `strides`, contiguous when empty) over bytes [offset, offset + size) of an
// application's buffer, which must have tensor_buffer_usage(). The tensor does not own the buffer: the
// application keeps it alive while the tensor and the work recorded on it exist. ember tracks hazards on
// it as on its own memory; work the application does on the buffer must be ordered with ember's through
// wait_semaphore/signal_semaphore. `offset` must be a multiple of the element size, and `size` and
// `offset` multiples of 4.
Tensor from_buffer(const std::shared_ptr<Device>& device, VkBuffer buffer, VkDeviceSize offset,
                   VkDeviceSize size, DType dtype, IntArrayRef sizes, IntArrayRef strides = {});

// Where a tensor's elements live: its buffer, the byte window from its first to one past its last
// element, and the usage flags the buffer was made with. The offset of a tensor that starts its storage
// (any factory's result, graphics_empty's) is a multiple of 512 bytes, so it binds as a storage buffer on
// every device; a view into the middle of a storage may not: bind its clone(). The buffer stays ember's and lives while
// `tensor`'s storage does; the application must order its reads after ember's writes (signal_semaphore).
struct BufferView {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
  VkDeviceSize range = 0;
  VkBufferUsageFlags usage = 0;
};
BufferView export_buffer(const Tensor& tensor);

// How graphics_empty allocates.
struct GraphicsAllocation {
  VkBufferUsageFlags extra_usage = 0;  // beyond tensor_buffer_usage() | graphics_buffer_usage()
  bool dedicated = false;              // its own VkDeviceMemory (VkMemoryDedicatedAllocateInfo)
  bool exportable = false;             // dedicated, and exportable as an opaque fd (export_memory_fd)
};
// An uninitialised contiguous tensor in a VkBuffer of its own, as `options` asks, outside ember's
// caching allocator.
Tensor graphics_empty(const std::shared_ptr<Device>& device, IntArrayRef sizes, DType dtype,
                      const GraphicsAllocation& options);

// ----------------------------------------------------------------------------------- external memory

// True when the device can export and import memory as opaque file descriptors
// (VK_KHR_external_memory_fd, enabled by ember on devices it creates and by the application on adopted
// ones); the reason is written to `why_not` otherwise.
bool supports_external_memory(const Device& device, std::string* why_not = nullptr);
// A new file descriptor for the memory under a tensor from graphics_empty(..., {.exportable = true}).
// The caller owns the descriptor (an import takes it over). `allocation_size` receives the size of the
// VkDeviceMemory, which an importer must state. The memory is dedicated to its buffer, so an importer binds
// it to a buffer created as the exporter's was: the same size and usage (export_buffer's range and usage);
// NVIDIA's driver sizes the memory by the usage, and another usage fails the import's dedicated-size rule.
int export_memory_fd(const Tensor& tensor, VkDeviceSize* allocation_size);
// A tensor over memory another device, process or API exported as an opaque fd. On success the tensor's
// storage owns the descriptor and the imported memory; on failure the caller still owns `fd`.
Tensor import_memory_fd(const std::shared_ptr<Device>& device, int fd, VkDeviceSize allocation_size,
                        DType dtype, IntArrayRef sizes);

// A timeline semaphore on `device` that can be exported as an opaque fd (VK_KHR_external_semaphore_fd),
// for ordering ember's stream with CUDA (cuda::ExternalSemaphore) or another process. ember's streams
// wait for and signal it with wait_semaphore/signal_semaphore. Destroyed with the object, which must
// outlive the submits that use it.
bool supports_external_semaphores(const Device& device, std::string* why_not = nullptr);
class ExportableTimeline {
 public:
  explicit ExportableTimeline(const std::shared_ptr<Device>& device);
  ~ExportableTimeline();
  ExportableTimeline(const ExportableTimeline&) = delete;
  ExportableTimeline& operator=(const ExportableTimeline&) = delete;

  VkSemaphore semaphore() const { return semaphore_; }
  // A new file descriptor for the semaphore; the caller owns it until an import takes it over.
  int export_fd() const;

 private:
  std::shared_ptr<Device> device_;
  VkSemaphore semaphore_ = VK_NULL_HANDLE;
};

// ------------------------------------------------------------------------------------------- images

enum class ImageLayout { NCHW, NHWC };

// A region of an application's image. `layout` is the layout the image is in when ember's copy runs;
// ember moves it to a transfer layout and back to `final_layout` (the same as `layout` when left
// UNDEFINED). Formats: R8, R8G8B8A8 (UNORM or SRGB, copied as stored), R16 and R16G16B16A16 SFLOAT,
// R32 and R32G32B32A32 SFLOAT. The image needs TRANSFER_SRC (read) or TRANSFER_DST (write) usage and a
// queue family shared with ember's queue (or ownership moved with acquire_image/release_image).
struct ImageRegion {
  VkImage image = VK_NULL_HANDLE;
  VkFormat format = VK_FORMAT_UNDEFINED;
  VkImageLayout layout = VK_IMAGE_LAYOUT_UNDEFINED;
  VkImageLayout final_layout = VK_IMAGE_LAYOUT_UNDEFINED;
  int32_t x = 0, y = 0;
  uint32_t width = 0, height = 0;
  uint32_t mip_level = 0, array_layer = 0;
};

// The region's texels as a new tensor of `dtype`, shaped (1, C, H, W) or (1, H, W, C). UNORM texels
// become values in [0, 1] for a floating dtype and stay 0..255 for UInt8. Recorded on the stream that
// runs the device's tensor ops (its default stream): the image must be ready for it (wait_semaphore first) and stays untouched until it
// runs; no host wait.
Tensor copy_from_image(const std::shared_ptr<Device>& device, const ImageRegion& region,
                       ImageLayout layout = ImageLayout::NCHW, DType dtype = DType::Float32);
// Writes `tensor`, shaped (C, H, W), (1, C, H, W) or their NHWC forms, into the region. Floating values
// go to UNORM texels clamped to [0, 1] and rounded. Recorded on the tensor's device's default stream.
void copy_to_image(const Tensor& tensor, const ImageRegion& region, ImageLayout layout = ImageLayout::NCHW);

// ----------------------------------------------------------------------------------- synchronisation

// Work recorded on `stream` after this call waits, on the GPU, until the application's timeline
// `semaphore` reaches `value`. Work recorded before it is submitted now and does not wait. The
// semaphore must outlive the submit (stream.flush() and a completed value bound it).
void wait_semaphore(Stream& stream, VkSemaphore semaphore, uint64_t value);
// Submits everything recorded on `stream` so far, and signals the application's timeline `semaphore`
// to `value` when it is done. No host wait.
void signal_semaphore(Stream& stream, VkSemaphore semaphore, uint64_t value);
// The same for binary semaphores, for applications that present with them: a wait unsignals it again.
void wait_binary_semaphore(Stream& stream, VkSemaphore semaphore);
void signal_binary_semaphore(Stream& stream, VkSemaphore semaphore);

// A point on a Vulkan timeline: a render pass that waits for `semaphore` to reach `value` runs after
// the work that point stands for, without the host.
struct TimelinePoint {
  VkSemaphore semaphore = VK_NULL_HANDLE;
  uint64_t value = 0;
};
// The point of `event`, whose work is submitted first so that the value will be signalled.
TimelinePoint timeline_point(const Event& event);
// The point a future waits for; an error when it stands for no stream work (a ready value).
template <class T>
TimelinePoint timeline_point(const Future<T>& future) {
  return timeline_point(Event(future.stream(), future.stream_value()));
}
// The point after everything recorded on `stream` so far.
TimelinePoint timeline_point(Stream& stream);

// ----------------------------------------------------------------------------- queue-family ownership

// When the application's queue family differs from ember's (device->... queue_family()), a buffer or
// image with exclusive sharing moves between them with a release on one queue and an acquire on the
// other, with a semaphore in between. These record ember's half on `stream`; the application records
// the matching other half on its queue.
uint32_t queue_family(const Device& device);
void acquire_buffer(Stream& stream, const Tensor& tensor, uint32_t from_family);
void release_buffer(Stream& stream, const Tensor& tensor, uint32_t to_family);
void acquire_image(Stream& stream, const ImageRegion& region, uint32_t from_family);
void release_image(Stream& stream, const ImageRegion& region, uint32_t to_family);

}  // namespace ember::vulkan
