#include "runtime/cuda/cuda_device.h"

#include <string>

namespace ember::cuda {

namespace {

// 12040 -> "12.4", as CUDA encodes driver and runtime versions.
std::string version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

}  // namespace

DeviceInfo describe_device(int index) {
  cudaDeviceProp properties{};
  check(cudaGetDeviceProperties(&properties, index), "cudaGetDeviceProperties");
  int driver_version = 0;
  check(cudaDriverGetVersion(&driver_version), "cudaDriverGetVersion");
  int runtime_version = 0;
  check(cudaRuntimeGetVersion(&runtime_version), "cudaRuntimeGetVersion");

  DeviceInfo info;
  info.backend = Backend::CUDA;
  info.index = index;
  info.name = properties.name;
  // Integrated parts (Jetson) share memory with the host; everything else CUDA runs on is a discrete card.
  info.kind = properties.integrated ? "integrated GPU" : "discrete GPU";
  info.vendor = "NVIDIA";
  info.driver = "CUDA driver " + version_string(driver_version);
  info.api_version = "CUDA " + version_string(runtime_version);

  MemoryHeapInfo heap;
  heap.size = properties.totalGlobalMem;
  heap.device_local = true;
  info.heaps.push_back(heap);

  info.subgroup_size = static_cast<uint32_t>(properties.warpSize);
  // Kernels may opt in to more shared memory than the default per-block limit.
  const size_t shared_memory = properties.sharedMemPerBlockOptin > 0 ? properties.sharedMemPerBlockOptin
                                                                      : properties.sharedMemPerBlock;
  info.shared_memory_bytes = static_cast<uint32_t>(shared_memory);
  for (int i = 0; i < 3; ++i) info.max_workgroup_size[i] = static_cast<uint32_t>(properties.maxThreadsDim[i]);
  info.max_workgroup_invocations = static_cast<uint32_t>(properties.maxThreadsPerBlock);
  // CUDA kernels take raw pointers: nothing limits what one operand can reach but the memory itself.
  info.max_storage_buffer_range = properties.totalGlobalMem;
  info.max_allocation_size = properties.totalGlobalMem;
  info.float16 = true;
  info.bfloat16 = true;
  info.int8 = true;
  info.int64 = true;
  info.float64 = true;
  info.cooperative_matrix = properties.major >= 7 ? "tensor cores (sm_" + std::to_string(properties.major) +
                                                        std::to_string(properties.minor) + ")"
                                                  : "none";
  return info;
}

CudaBlockSource::CudaBlockSource(std::shared_ptr<DeviceContext> context, uint64_t total_bytes)
    : context_(std::move(context)), total_bytes_(total_bytes) {}

std::optional<MemoryBlock> CudaBlockSource::allocate_block(uint64_t bytes) {
  ScopedDevice device(*context_);
  void* pointer = nullptr;
  const cudaError_t result = cudaMalloc(&pointer, bytes);
  if (result == cudaErrorMemoryAllocation) {
    // The caller drops its cache and retries; the error must not linger for the next launch check.
    cudaGetLastError();
    return std::nullopt;
  }
  context_->check(result, "cudaMalloc");
  MemoryBlock block;
  block.handle = reinterpret_cast<uint64_t>(pointer);
  block.size = bytes;
  return block;
}

void CudaBlockSource::release_block(const MemoryBlock& block) {
  // The allocator's destructor calls this, so it must not throw. A lost device's memory went with its
  // context, and at process exit the runtime may already be unloading; either way there is nothing to free.
  if (context_->lost()) return;
  try {
    ScopedDevice device(*context_);
    context_->check(cudaFree(reinterpret_cast<void*>(block.handle)), "cudaFree");
  } catch (const Error&) {
  }
}

uint64_t CudaBlockSource::device_available(uint64_t /*reserved_by_us*/) const {
  // cudaMemGetInfo's free bytes already leave out what this process holds.
  ScopedDevice device(*context_);
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  context_->check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  return free_bytes;
}

CudaDevice::CudaDevice(int index) {
  info_ = describe_device(index);
  context_ = std::make_shared<DeviceContext>(index, info_.name);
  {
    ScopedDevice device(*context_);
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    context_->check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    MemoryHeapInfo& heap = info_.heaps.front();
    heap.size = total_bytes;
    heap.budget = free_bytes;
    heap.usage = total_bytes - free_bytes;  // device-wide: CUDA does not say how much is this process's
  }
  allocator_ = std::make_shared<CachingAllocator>(
      std::make_unique<CudaBlockSource>(context_, info_.heaps.front().size));
  default_stream_ = std::make_shared<CudaStream>(context_);
  kernels_ = std::make_unique<Kernels>(*this);
}

std::shared_ptr<Stream> CudaDevice::create_stream() {
  auto stream = std::make_shared<CudaStream>(context_);
  std::lock_guard lock(streams_mutex_);
  std::erase_if(created_streams_, [](const std::weak_ptr<CudaStream>& s) { return s.expired(); });
  created_streams_.push_back(stream);
  return stream;
}

void CudaDevice::synchronize() {
  std::vector<std::shared_ptr<CudaStream>> streams{default_stream_};
  {
    std::lock_guard lock(streams_mutex_);
    for (const auto& weak : created_streams_) {
      if (auto stream = weak.lock()) streams.push_back(std::move(stream));
    }
  }
  // Outside the lock: waiting releases kept objects, whose destructors may create or drop streams.
  for (const auto& stream : streams) stream->synchronize();
}

}  // namespace ember::cuda
