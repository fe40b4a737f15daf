#pragma once
// A Stream over a cudaStream_t. CUDA runs work as soon as it is enqueued, so "submitting" a batch here only
// records an event after it; the chain of those events is the stream's timeline, one event per value.
#include <cuda_runtime.h>

#include <cstdint>
#include <deque>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/allocator.h"
#include "runtime/cuda/cuda_check.h"
#include "runtime/stream.h"

namespace ember::cuda {

// The device address of `byte_offset` bytes into `allocation`.
inline void* device_pointer(const Allocation& allocation, uint64_t byte_offset) {
  return reinterpret_cast<void*>(allocation.handle() + allocation.offset() + byte_offset);
}

class CudaStream final : public Stream {
 public:
  explicit CudaStream(std::shared_ptr<DeviceContext> context);
  ~CudaStream() override;
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  // The CUDA stream behind `stream`; throws Error when it belongs to another backend.
  static CudaStream& of(Stream& stream);

  uint64_t pending_value() const override;
  uint64_t submitted_value() const override;
  uint64_t completed_value() override;
  uint64_t flush() override;
  void wait_value(uint64_t value) override;
  void wait_event(const Event& event) override;

  void copy_from_host(Allocation& dst, uint64_t dst_offset, const void* src, uint64_t bytes) override;
  Future<std::vector<std::byte>> copy_to_host(std::shared_ptr<Allocation> src, uint64_t src_offset,
                                              uint64_t bytes) override;
  void copy(Allocation& dst, uint64_t dst_offset, Allocation& src, uint64_t src_offset,
            uint64_t bytes) override;

  void keep_alive(std::shared_ptr<const void> object) override;
  StreamStats stats() const override;

  cudaStream_t handle() const { return stream_; }
  DeviceContext& context() const { return *context_; }

  // Call after enqueuing a kernel or copy on handle(). Counts it, records its use of each allocation it
  // touches (so that the memory is not reused before it has run), and ends the batch when it is full.
  void note_dispatch(std::initializer_list<Allocation*> touched);

 private:
  struct TimelinePoint {
    uint64_t value;
    cudaEvent_t event;  // recorded after the work that completes `value`
  };
  struct HeldObject {
    uint64_t value;
    std::shared_ptr<const void> object;
  };
  using Released = std::vector<std::shared_ptr<const void>>;

  // The caller holds mutex_ and has made the device current.
  uint64_t flush_locked();
  void poll_locked();
  Released take_released_locked();
  cudaEvent_t take_event_locked();
  // Makes `waiter` wait on the device for this stream's `value`. Another stream's wait_event calls it.
  void enqueue_wait(cudaStream_t waiter, uint64_t value);

  std::shared_ptr<DeviceContext> context_;
  cudaStream_t stream_ = nullptr;

  // Guards everything below. Objects that go out of scope (kept-alive allocations) are destroyed only after
  // it is released: freeing an allocation takes the allocator's lock, which in turn polls streams.
  mutable std::mutex mutex_;
  bool recorded_ = false;  // work was enqueued since the last flush
  uint64_t dispatches_in_batch_ = 0;
  uint64_t submitted_ = 0;
  uint64_t completed_ = 0;
  std::deque<TimelinePoint> in_flight_;  // in value order
  std::vector<cudaEvent_t> spare_events_;
  std::deque<HeldObject> held_;  // in value order
  StreamStats stats_;
};

}  // namespace ember::cuda
