#pragma once
// ember's CUDA interop, opt-in: memory and semaphores that Vulkan exported as opaque file descriptors,
// imported into the CUDA backend (cudaImportExternalMemory, cudaImportExternalSemaphore), so that one
// buffer is both a Vulkan tensor and a CUDA tensor and the two streams order their work GPU to GPU.
//
//   VkDeviceSize bytes = 0;
//   int fd = ember::vulkan::export_memory_fd(vulkan_tensor, &bytes);
//   ember::Tensor same = ember::cuda::import_memory_fd(cuda_device, fd, bytes, ember::kFloat32, {n});
//
// In a build without the CUDA backend every function here throws UnsupportedError saying so.
#include <cstdint>
#include <memory>

#include "runtime/device.h"
#include "runtime/stream.h"
#include "tensor/tensor.h"

namespace ember::cuda {

// A tensor over memory exported as an opaque fd of `allocation_size` bytes (the size of the whole
// VkDeviceMemory), starting at its first byte. On success the tensor's storage owns the descriptor and
// the mapping, released once the CUDA work recorded on it is done; on failure the caller keeps `fd`.
Tensor import_memory_fd(const std::shared_ptr<Device>& device, int fd, uint64_t allocation_size,
                        DType dtype, IntArrayRef sizes);

// A Vulkan timeline semaphore exported as an opaque fd, imported into CUDA. It owns the descriptor
// after a successful import.
class ExternalSemaphore {
 public:
  ExternalSemaphore(const std::shared_ptr<Device>& device, int fd);
  ~ExternalSemaphore();
  ExternalSemaphore(const ExternalSemaphore&) = delete;
  ExternalSemaphore& operator=(const ExternalSemaphore&) = delete;

  // CUDA work recorded on `stream` after this waits until the semaphore reaches `value`.
  void wait(Stream& stream, uint64_t value);
  // The semaphore is set to `value` once the work recorded on `stream` so far is done.
  void signal(Stream& stream, uint64_t value);

 private:
  std::shared_ptr<Device> device_;
  void* handle_ = nullptr;  // cudaExternalSemaphore_t
};

}  // namespace ember::cuda
