#pragma once
// A CUDA device: its description, its caching allocator over cudaMalloc, its streams and its kernels.
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/cuda_stream.h"
#include "runtime/device.h"

namespace ember::cuda {

// What the driver says about device `index`, without creating its context: the heap budget stays unknown
// (0), because cudaMemGetInfo would create one. An open CudaDevice fills it in.
DeviceInfo describe_device(int index);

// Device memory in blocks from cudaMalloc, for the caching allocator.
class CudaBlockSource final : public BlockSource {
 public:
  CudaBlockSource(std::shared_ptr<DeviceContext> context, uint64_t total_bytes);

  std::optional<MemoryBlock> allocate_block(uint64_t bytes) override;
  void release_block(const MemoryBlock& block) override;
  uint64_t device_total() const override { return total_bytes_; }
  uint64_t device_available(uint64_t reserved_by_us) const override;
  // cudaMalloc has no limit per allocation below the device's memory.
  uint64_t max_block_size() const override { return total_bytes_; }
  std::string device_name() const override { return context_->name(); }

 private:
  std::shared_ptr<DeviceContext> context_;
  uint64_t total_bytes_;
};

class CudaDevice final : public Device {
 public:
  explicit CudaDevice(int index);

  std::shared_ptr<Stream> default_stream() override { return default_stream_; }
  std::shared_ptr<Stream> create_stream() override;
  Kernels& kernels() override { return *kernels_; }
  void synchronize() override;

  DeviceContext& context() { return *context_; }

 private:
  std::shared_ptr<DeviceContext> context_;
  std::shared_ptr<CudaStream> default_stream_;
  std::unique_ptr<Kernels> kernels_;  // the families kernels_cuda/ registered
  std::mutex streams_mutex_;
  std::vector<std::weak_ptr<CudaStream>> created_streams_;
};

}  // namespace ember::cuda
