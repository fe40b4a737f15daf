#include "runtime/cuda/cuda_stream.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "runtime/error.h"

namespace ember::cuda {

namespace {

// CUDA runs work as it is enqueued, so batches only bound how far the timeline lags behind the work: a
// long stretch of dispatches without an event would leave memory and kept objects unreleased for longer.
constexpr uint64_t kDispatchesPerBatch = 256;

// Page-locked host memory, so that the copy engine reads or writes it asynchronously. With pageable memory
// cudaMemcpyAsync first waits for the stream's earlier work (and a device-to-host copy runs synchronously),
// which would stall the host behind every queued kernel. Copying the user's bytes into it also frees the
// user's buffer on return, as stream.h promises.
std::shared_ptr<std::byte> allocate_pinned(DeviceContext& context, uint64_t bytes) {
  void* host = nullptr;
  context.check(cudaMallocHost(&host, bytes), "cudaMallocHost (staging for a host transfer)");
  return std::shared_ptr<std::byte>(static_cast<std::byte*>(host), [](std::byte* pointer) {
    // Runs from destructors; a failure (the runtime unloading at exit) cannot be reported there.
    if (cudaFreeHost(pointer) != cudaSuccess) cudaGetLastError();
  });
}

}  // namespace

CudaStream::CudaStream(std::shared_ptr<DeviceContext> context) : context_(std::move(context)) {
  ScopedDevice device(*context_);
  // Non-blocking: the legacy default stream would otherwise serialise with this one.
  context_->check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
}

CudaStream::~CudaStream() {
  try {
    synchronize();
  } catch (...) {
    // A lost device has nothing left to wait for; the destructor must not throw.
  }
  Released released;
  {
    std::lock_guard lock(mutex_);
    for (HeldObject& held : held_) released.push_back(std::move(held.object));
    held_.clear();
    for (const TimelinePoint& point : in_flight_) spare_events_.push_back(point.event);
    in_flight_.clear();
  }
  released.clear();
  // Destroying handles of a lost context fails; there is nothing to do about it but go on.
  for (cudaEvent_t event : spare_events_) {
    if (cudaEventDestroy(event) != cudaSuccess) cudaGetLastError();
  }
  if (cudaStreamDestroy(stream_) != cudaSuccess) cudaGetLastError();
}

CudaStream& CudaStream::of(Stream& stream) {
  auto* cuda_stream = dynamic_cast<CudaStream*>(&stream);
  if (!cuda_stream) throw Error("a CUDA kernel or copy was given a stream of another backend");
  return *cuda_stream;
}

uint64_t CudaStream::pending_value() const {
  std::lock_guard lock(mutex_);
  return recorded_ ? submitted_ + 1 : submitted_;
}

uint64_t CudaStream::submitted_value() const {
  std::lock_guard lock(mutex_);
  return submitted_;
}

uint64_t CudaStream::completed_value() {
  Released released;
  std::lock_guard lock(mutex_);
  poll_locked();
  released = take_released_locked();
  return completed_;
}

uint64_t CudaStream::flush() {
  ScopedDevice device(*context_);
  std::lock_guard lock(mutex_);
  return flush_locked();
}

void CudaStream::wait_value(uint64_t value) {
  Released released;
  ScopedDevice device(*context_);
  std::lock_guard lock(mutex_);
  if (value > submitted_) flush_locked();
  if (value > submitted_) {
    throw Error("waiting for timeline value " + std::to_string(value) + " of a CUDA stream that has only " +
                std::to_string(submitted_) + " values");
  }
  poll_locked();
  if (completed_ < value) {
    auto point = std::find_if(in_flight_.begin(), in_flight_.end(),
                              [&](const TimelinePoint& p) { return p.value >= value; });
    stats_.host_waits += 1;
    context_->check(cudaEventSynchronize(point->event), "cudaEventSynchronize");
    poll_locked();
  }
  released = take_released_locked();
}

void CudaStream::wait_event(const Event& event) {
  const std::shared_ptr<Stream>& source = event.stream();
  // This stream's own earlier work is already ordered before its later work.
  if (!source || source.get() == this) return;
  auto* cuda_source = dynamic_cast<CudaStream*>(source.get());
  if (!cuda_source) {
    // Another backend's timeline cannot be waited on from a CUDA stream, so the host waits instead.
    event.synchronize();
    return;
  }
  cuda_source->enqueue_wait(stream_, event.value());
}

void CudaStream::enqueue_wait(cudaStream_t waiter, uint64_t value) {
  ScopedDevice device(*context_);
  std::lock_guard lock(mutex_);
  if (value > submitted_) flush_locked();
  if (value > submitted_) {
    throw Error("waiting for timeline value " + std::to_string(value) + " of a CUDA stream that has only " +
                std::to_string(submitted_) + " values");
  }
  poll_locked();
  if (completed_ >= value) return;
  auto point = std::find_if(in_flight_.begin(), in_flight_.end(),
                            [&](const TimelinePoint& p) { return p.value >= value; });
  // The wait captures the event's state now, so the event may be reused once this returns.
  context_->check(cudaStreamWaitEvent(waiter, point->event, 0), "cudaStreamWaitEvent");
}

void CudaStream::note_dispatch(std::initializer_list<Allocation*> touched) {
  uint64_t value = 0;
  {
    std::lock_guard lock(mutex_);
    recorded_ = true;
    stats_.dispatches += 1;
    value = submitted_ + 1;
    if (++dispatches_in_batch_ >= kDispatchesPerBatch) {
      ScopedDevice device(*context_);
      flush_locked();
    }
  }
  // Outside the lock: recording a use takes the allocator's lock, and the allocator polls streams.
  const std::shared_ptr<Stream> self = shared_from_this();
  for (Allocation* allocation : touched) {
    if (allocation) allocation->record_use(self, value);
  }
}

void CudaStream::copy_from_host(Allocation& dst, uint64_t dst_offset, const void* src, uint64_t bytes) {
  dst.check_range(dst_offset, bytes, "copy_from_host");
  if (bytes == 0) return;
  ScopedDevice device(*context_);
  std::shared_ptr<std::byte> staging = allocate_pinned(*context_, bytes);
  std::memcpy(staging.get(), src, bytes);
  context_->check(cudaMemcpyAsync(device_pointer(dst, dst_offset), staging.get(), bytes,
                                  cudaMemcpyHostToDevice, stream_),
                  "cudaMemcpyAsync (host to device)");
  note_dispatch({&dst});
  keep_alive(std::move(staging));
}

Future<std::vector<std::byte>> CudaStream::copy_to_host(std::shared_ptr<Allocation> src,
                                                        uint64_t src_offset, uint64_t bytes) {
  src->check_range(src_offset, bytes, "copy_to_host");
  if (bytes == 0) return Future<std::vector<std::byte>>::ready_value({});
  ScopedDevice device(*context_);
  std::shared_ptr<std::byte> staging = allocate_pinned(*context_, bytes);
  context_->check(cudaMemcpyAsync(staging.get(), device_pointer(*src, src_offset), bytes,
                                  cudaMemcpyDeviceToHost, stream_),
                  "cudaMemcpyAsync (device to host)");
  note_dispatch({src.get()});
  // The stream holds the staging memory too: a future dropped unwaited must not free it under the copy.
  keep_alive(staging);
  // The host wants this result, so end the batch now; otherwise polling the future would never see it.
  const uint64_t value = flush();
  auto self = std::static_pointer_cast<CudaStream>(shared_from_this());
  return Future<std::vector<std::byte>>::make(
      [self, value] { return self->completed_value() >= value; },
      [self, value] { self->wait_value(value); },
      [staging, bytes] {
        std::vector<std::byte> result(bytes);
        std::memcpy(result.data(), staging.get(), bytes);
        return result;
      },
      {src, staging})
      .at_stream_point(self, value);
}

void CudaStream::copy(Allocation& dst, uint64_t dst_offset, Allocation& src, uint64_t src_offset,
                      uint64_t bytes) {
  dst.check_range(dst_offset, bytes, "copy (destination)");
  src.check_range(src_offset, bytes, "copy (source)");
  if (bytes == 0) return;
  ScopedDevice device(*context_);
  context_->check(cudaMemcpyAsync(device_pointer(dst, dst_offset), device_pointer(src, src_offset), bytes,
                                  cudaMemcpyDeviceToDevice, stream_),
                  "cudaMemcpyAsync (device to device)");
  note_dispatch({&dst, &src});
}

void CudaStream::keep_alive(std::shared_ptr<const void> object) {
  std::lock_guard lock(mutex_);
  const uint64_t value = recorded_ ? submitted_ + 1 : submitted_;
  // Nothing in flight: `object` goes when the caller's copy of it does, after the lock is released.
  if (value <= completed_) return;
  held_.push_back({value, std::move(object)});
}

StreamStats CudaStream::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

uint64_t CudaStream::flush_locked() {
  if (!recorded_) return submitted_;
  cudaEvent_t event = take_event_locked();
  if (cudaError_t result = cudaEventRecord(event, stream_); result != cudaSuccess) {
    spare_events_.push_back(event);
    context_->check(result, "cudaEventRecord");
  }
  submitted_ += 1;
  in_flight_.push_back({submitted_, event});
  recorded_ = false;
  dispatches_in_batch_ = 0;
  stats_.submits += 1;
  return submitted_;
}

void CudaStream::poll_locked() {
  while (!in_flight_.empty()) {
    const TimelinePoint point = in_flight_.front();
    const cudaError_t result = cudaEventQuery(point.event);
    if (result == cudaErrorNotReady) {
      // Some runtimes also leave "not ready" as the thread's last error, where the next launch check
      // would take it for a failed launch.
      cudaGetLastError();
      return;
    }
    context_->check(result, "cudaEventQuery");
    completed_ = point.value;
    in_flight_.pop_front();
    spare_events_.push_back(point.event);
  }
}

CudaStream::Released CudaStream::take_released_locked() {
  Released released;
  while (!held_.empty() && held_.front().value <= completed_) {
    released.push_back(std::move(held_.front().object));
    held_.pop_front();
  }
  return released;
}

cudaEvent_t CudaStream::take_event_locked() {
  if (!spare_events_.empty()) {
    cudaEvent_t event = spare_events_.back();
    spare_events_.pop_back();
    return event;
  }
  cudaEvent_t event = nullptr;
  // Timing would make every record and query slower, and the timeline only needs ordering.
  context_->check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate");
  return event;
}

}  // namespace ember::cuda
