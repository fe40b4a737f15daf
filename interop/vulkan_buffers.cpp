// Tensors over an application's buffers, a tensor's buffer handed to an application, and buffers that
// ember allocates for graphics use or for export to another API or process.
#include <string>

#include "interop/vulkan_support.h"
#include "runtime/vulkan/memory.h"
#include "tensor/known_values.h"
#include "tensor/ops_support.h"

namespace ember::vulkan {

namespace {

void check_geometry(IntArrayRef sizes, IntArrayRef strides, const char* what) {
  if (!strides.empty() && strides.size() != sizes.size()) {
    throw Error(std::string(what) + ": " + std::to_string(strides.size()) + " strides for " +
                std::to_string(sizes.size()) + " sizes");
  }
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0) throw Error(std::string(what) + ": negative size in " + to_string(sizes));
    if (!strides.empty() && strides[d] < 0) {
      throw Error(std::string(what) + ": ember views take no negative strides, got " + to_string(strides));
    }
  }
}

// The VkBuffer and VkDeviceMemory behind a tensor that ember allocated outside its caching allocator.
struct OwnedBuffer {
  std::shared_ptr<Context> context;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;

  ~OwnedBuffer() {
    if (memory) context->fn.vkFreeMemory(context->device, memory, nullptr);
    if (buffer) context->fn.vkDestroyBuffer(context->device, buffer, nullptr);
  }
};

// A buffer of `bytes` with its own memory: dedicated and exportable, or imported from `import_fd`.
// Returns the block (handle, memory, usage, export size) and the object that frees it.
std::pair<MemoryBlock, std::shared_ptr<OwnedBuffer>> create_buffer(VulkanDevice& device, uint64_t bytes,
                                                                   VkBufferUsageFlags usage, bool dedicated,
                                                                   bool external, int import_fd,
                                                                   VkDeviceSize import_size) {
  const std::shared_ptr<Context> context = device.shared_context();
  const EntryPoints& fn = context->fn;
  context->throw_if_lost();
  auto owned = std::make_shared<OwnedBuffer>();
  owned->context = context;
  const auto out_of_memory = [&](uint64_t requested, const char* call) {
    const AllocatorStats stats = device.allocator().stats();
    return OutOfMemoryError(context->info.name, requested, stats.allocated_bytes, stats.reserved_bytes,
                            device.allocator().source().device_total(),
                            std::string(call) + " failed for a buffer outside the caching allocator");
  };

  VkExternalMemoryBufferCreateInfo external_info{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  external_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, external ? &external_info : nullptr};
  info.size = bytes;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkResult result = fn.vkCreateBuffer(context->device, &info, nullptr, &owned->buffer);
  if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY) {
    throw out_of_memory(bytes, "vkCreateBuffer");
  }
  context->check(result, "vkCreateBuffer");
  VkMemoryRequirements requirements;
  fn.vkGetBufferMemoryRequirements(context->device, owned->buffer, &requirements);
  if (import_fd >= 0 && import_size < requirements.size) {
    throw Error("import_memory_fd: the memory holds " + std::to_string(import_size) + " bytes, the tensor needs " +
                std::to_string(requirements.size));
  }

  VkMemoryDedicatedAllocateInfo dedicated_info{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicated_info.buffer = owned->buffer;
  VkExportMemoryAllocateInfo export_info{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
  export_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkImportMemoryFdInfoKHR import_info{VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR};
  import_info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  import_info.fd = import_fd;
  const void* chain = nullptr;
  if (dedicated) {
    dedicated_info.pNext = chain;
    chain = &dedicated_info;
  }
  if (external) {
    VkBaseInStructure* head = import_fd >= 0 ? reinterpret_cast<VkBaseInStructure*>(&import_info)
                                             : reinterpret_cast<VkBaseInStructure*>(&export_info);
    head->pNext = static_cast<const VkBaseInStructure*>(chain);
    chain = head;
  }
  VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, chain};
  allocate.allocationSize = import_fd >= 0 ? import_size : requirements.size;
  allocate.memoryTypeIndex = choose_memory_type(*context, requirements.memoryTypeBits, MemoryUse::Device);
  result = fn.vkAllocateMemory(context->device, &allocate, nullptr, &owned->memory);
  if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY) {
    throw out_of_memory(allocate.allocationSize, "vkAllocateMemory");
  }
  context->check(result, import_fd >= 0 ? "vkAllocateMemory (importing an fd)" : "vkAllocateMemory");
  context->check(fn.vkBindBufferMemory(context->device, owned->buffer, owned->memory, 0), "vkBindBufferMemory");

  MemoryBlock block;
  block.handle = reinterpret_cast<uint64_t>(owned->buffer);
  block.memory = reinterpret_cast<uint64_t>(owned->memory);
  block.usage = usage;
  block.export_size = external ? allocate.allocationSize : 0;
  // Left unmapped even where it could be mapped: this memory is shared with the application (or
  // another device), whose use of it ember's idle() cannot see. Host copies then go through staging in
  // stream order, after any wait_semaphore, instead of writing under the application's draw.
  return {block, owned};
}

Tensor tensor_in_own_buffer(const std::shared_ptr<Device>& device, IntArrayRef sizes, DType dtype,
                            VkBufferUsageFlags usage, bool dedicated, bool external, int import_fd,
                            VkDeviceSize import_size, const char* what) {
  if (!device) throw Error(std::string(what) + ": no device");
  VulkanDevice& vulkan = detail::vulkan_device(*device, what);
  check_geometry(sizes, {}, what);
  ember::detail::check_dtype_supported(*device, dtype);
  const uint64_t bytes = ember::detail::contiguous_nbytes(sizes, dtype);
  // Kernels bind whole 32-bit words, so the buffer holds at least one.
  auto [block, owned] = create_buffer(vulkan, std::max<uint64_t>((bytes + 3) / 4 * 4, 4), usage, dedicated,
                                      external, import_fd, import_size);
  return ember::detail::tensor_over(device, block, [owned = owned] {}, bytes, dtype, sizes.vec(),
                                    ember::detail::contiguous_strides(sizes), 0);
}

}  // namespace

VkBufferUsageFlags tensor_buffer_usage() { return kBindingUsage; }
VkBufferUsageFlags graphics_buffer_usage() { return kGraphicsUsage; }

Tensor from_buffer(const std::shared_ptr<Device>& device, VkBuffer buffer, VkDeviceSize offset,
                   VkDeviceSize size, DType dtype, IntArrayRef sizes, IntArrayRef strides) {
  constexpr const char* what = "from_buffer";
  if (!device) throw Error("from_buffer: no device");
  detail::vulkan_device(*device, what);
  if (buffer == VK_NULL_HANDLE) throw Error("from_buffer: the buffer is VK_NULL_HANDLE");
  check_geometry(sizes, strides, what);
  const uint64_t element = element_size(dtype);
  if (offset % element != 0 || offset % 4 != 0 || size % 4 != 0) {
    throw Error("from_buffer: offset " + std::to_string(offset) + " and size " + std::to_string(size) +
                " must be multiples of 4, and the offset of the element size " + std::to_string(element));
  }
  const std::vector<int64_t> geometry =
      strides.empty() ? ember::detail::contiguous_strides(sizes) : strides.vec();
  const uint64_t reach = ember::detail::strided_nbytes(sizes, geometry, dtype);
  if (reach > size) {
    throw Error("from_buffer: sizes " + to_string(sizes) + " with strides " + to_string(geometry) + " reach " +
                std::to_string(reach) + " bytes, past the " + std::to_string(size) + " bytes given");
  }
  MemoryBlock block;
  block.handle = reinterpret_cast<uint64_t>(buffer);
  block.usage = kBindingUsage;  // what the application promised; it may have more
  // The application owns the buffer: nothing to release.
  return ember::detail::tensor_over(device, block, [] {}, offset + size, dtype, sizes.vec(), geometry,
                                    static_cast<int64_t>(offset / element));
}

BufferView export_buffer(const Tensor& tensor) {
  const detail::TensorRange range = detail::tensor_range(tensor, "export_buffer");
  BufferView view;
  view.buffer = range.buffer;
  view.offset = range.begin;
  view.range = range.end - range.begin;
  view.usage = tensor.storage()->allocation->block().usage;
  return view;
}

Tensor graphics_empty(const std::shared_ptr<Device>& device, IntArrayRef sizes, DType dtype,
                      const GraphicsAllocation& options) {
  if (options.exportable) {
    std::string why;
    if (!device) throw Error("graphics_empty: no device");
    if (!supports_external_memory(*device, &why)) throw UnsupportedError("graphics_empty (exportable): " + why);
  }
  const VkBufferUsageFlags usage = kBindingUsage | kGraphicsUsage | options.extra_usage;
  return tensor_in_own_buffer(device, sizes, dtype, usage, options.dedicated || options.exportable,
                              options.exportable, -1, 0, "graphics_empty");
}

bool supports_external_memory(const Device& device, std::string* why_not) {
  const std::string reason =
      detail::missing_extension(device, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, &Context::external_memory_fd);
  if (why_not) *why_not = reason;
  return reason.empty();
}

int export_memory_fd(const Tensor& tensor, VkDeviceSize* allocation_size) {
  if (!tensor.defined()) throw Error("export_memory_fd: the tensor is undefined");
  VulkanDevice& device = detail::vulkan_device(*tensor.device(), "export_memory_fd");
  ember::detail::forget_known_values(tensor);  // the importer may write it
  const MemoryBlock& block = tensor.storage()->allocation->block();
  if (block.export_size == 0) {
    throw Error("export_memory_fd: the tensor's memory is not exportable; make it with "
                "graphics_empty(device, sizes, dtype, {.exportable = true})");
  }
  VkMemoryGetFdInfoKHR info{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
  info.memory = reinterpret_cast<VkDeviceMemory>(block.memory);
  info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  int fd = -1;
  Context& context = device.context();
  context.check(context.fn.vkGetMemoryFdKHR(context.device, &info, &fd), "vkGetMemoryFdKHR");
  if (allocation_size) *allocation_size = block.export_size;
  return fd;
}

Tensor import_memory_fd(const std::shared_ptr<Device>& device, int fd, VkDeviceSize allocation_size,
                        DType dtype, IntArrayRef sizes) {
  if (!device) throw Error("import_memory_fd: no device");
  if (fd < 0) throw Error("import_memory_fd: the file descriptor " + std::to_string(fd) + " is not valid");
  std::string why;
  if (!supports_external_memory(*device, &why)) throw UnsupportedError("import_memory_fd: " + why);
  // An exporter's dedicated memory must be imported as dedicated, and ember exports only dedicated memory.
  return tensor_in_own_buffer(device, sizes, dtype, kBindingUsage | kGraphicsUsage, true, true, fd,
                              allocation_size, "import_memory_fd");
}

}  // namespace ember::vulkan
