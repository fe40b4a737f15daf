// Vulkan memory and semaphores exported as opaque fds, imported into the CUDA backend. Without CUDA in
// the build, each entry point says so.
#include <string>

#include "ember/cuda.h"
#include "tensor/ops_support.h"

#ifdef EMBER_HAVE_CUDA
#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/cuda_stream.h"
#endif

namespace ember::cuda {

#ifdef EMBER_HAVE_CUDA

namespace {

CudaStream& cuda_stream(Stream& stream, const char* what) {
  auto* cuda = dynamic_cast<CudaStream*>(&stream);
  if (!cuda) throw Error(std::string(what) + " needs a stream of a CUDA device");
  return *cuda;
}

void check_cuda_device(const std::shared_ptr<Device>& device, const char* what) {
  if (!device || device->backend() != Backend::CUDA) {
    throw Error(std::string(what) + " needs a CUDA device" + (device ? ", got " + device->info().name : ""));
  }
}

}  // namespace

Tensor import_memory_fd(const std::shared_ptr<Device>& device, int fd, uint64_t allocation_size, DType dtype,
                        IntArrayRef sizes) {
  check_cuda_device(device, "cuda::import_memory_fd");
  if (fd < 0) throw Error("cuda::import_memory_fd: the file descriptor " + std::to_string(fd) + " is not valid");
  const uint64_t bytes = ember::detail::contiguous_nbytes(sizes, dtype);
  if (bytes > allocation_size) {
    throw Error("cuda::import_memory_fd: sizes " + to_string(sizes) + " need " + std::to_string(bytes) +
                " bytes, the memory holds " + std::to_string(allocation_size));
  }
  check(cudaSetDevice(device->info().index), "cudaSetDevice");
  cudaExternalMemoryHandleDesc memory_desc{};
  memory_desc.type = cudaExternalMemoryHandleTypeOpaqueFd;
  memory_desc.handle.fd = fd;
  memory_desc.size = allocation_size;
  memory_desc.flags = cudaExternalMemoryDedicated;  // ember exports only dedicated allocations
  cudaExternalMemory_t memory = nullptr;
  check(cudaImportExternalMemory(&memory, &memory_desc), "cudaImportExternalMemory");
  // From here CUDA owns the descriptor.
  cudaExternalMemoryBufferDesc buffer_desc{};
  buffer_desc.offset = 0;
  buffer_desc.size = std::max<uint64_t>(bytes, 1);
  void* pointer = nullptr;
  const cudaError_t mapped = cudaExternalMemoryGetMappedBuffer(&pointer, memory, &buffer_desc);
  if (mapped != cudaSuccess) {
    cudaDestroyExternalMemory(memory);
    check(mapped, "cudaExternalMemoryGetMappedBuffer");
  }
  MemoryBlock block;
  block.handle = reinterpret_cast<uint64_t>(pointer);
  const int index = device->info().index;
  auto release = [pointer, memory, index] {
    cudaSetDevice(index);
    cudaFree(pointer);
    cudaDestroyExternalMemory(memory);
  };
  return ember::detail::tensor_over(device, block, release, bytes, dtype, sizes.vec(),
                                    ember::detail::contiguous_strides(sizes), 0);
}

ExternalSemaphore::ExternalSemaphore(const std::shared_ptr<Device>& device, int fd) : device_(device) {
  check_cuda_device(device, "cuda::ExternalSemaphore");
  if (fd < 0) throw Error("cuda::ExternalSemaphore: the file descriptor " + std::to_string(fd) + " is not valid");
  check(cudaSetDevice(device->info().index), "cudaSetDevice");
  cudaExternalSemaphoreHandleDesc desc{};
  desc.type = cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd;
  desc.handle.fd = fd;
  cudaExternalSemaphore_t semaphore = nullptr;
  check(cudaImportExternalSemaphore(&semaphore, &desc), "cudaImportExternalSemaphore");
  handle_ = semaphore;
}

ExternalSemaphore::~ExternalSemaphore() {
  if (!handle_) return;
  cudaSetDevice(device_->info().index);
  cudaDestroyExternalSemaphore(static_cast<cudaExternalSemaphore_t>(handle_));
}

void ExternalSemaphore::wait(Stream& stream, uint64_t value) {
  CudaStream& cuda = cuda_stream(stream, "ExternalSemaphore::wait");
  cudaExternalSemaphoreWaitParams params{};
  params.params.fence.value = value;
  auto semaphore = static_cast<cudaExternalSemaphore_t>(handle_);
  cuda.context().check(cudaWaitExternalSemaphoresAsync(&semaphore, &params, 1, cuda.handle()),
                       "cudaWaitExternalSemaphoresAsync");
}

void ExternalSemaphore::signal(Stream& stream, uint64_t value) {
  CudaStream& cuda = cuda_stream(stream, "ExternalSemaphore::signal");
  cudaExternalSemaphoreSignalParams params{};
  params.params.fence.value = value;
  auto semaphore = static_cast<cudaExternalSemaphore_t>(handle_);
  cuda.context().check(cudaSignalExternalSemaphoresAsync(&semaphore, &params, 1, cuda.handle()),
                       "cudaSignalExternalSemaphoresAsync");
  cuda.flush();  // CUDA runs enqueued work at once; flush only ends ember's batch bookkeeping
}

#else

namespace {

[[noreturn]] void no_cuda(const char* what) {
  throw UnsupportedError(std::string(what) + ": ember was built without the CUDA backend");
}

}  // namespace

Tensor import_memory_fd(const std::shared_ptr<Device>&, int, uint64_t, DType, IntArrayRef) {
  no_cuda("cuda::import_memory_fd");
}
ExternalSemaphore::ExternalSemaphore(const std::shared_ptr<Device>&, int) { no_cuda("cuda::ExternalSemaphore"); }
ExternalSemaphore::~ExternalSemaphore() = default;
void ExternalSemaphore::wait(Stream&, uint64_t) { no_cuda("ExternalSemaphore::wait"); }
void ExternalSemaphore::signal(Stream&, uint64_t) { no_cuda("ExternalSemaphore::signal"); }

#endif

}  // namespace ember::cuda
