#pragma once
// A stream records work for one device queue and submits it in bounded batches. Each submit signals
// the next value of the stream's timeline (a timeline semaphore on Vulkan, a chain of events on CUDA),
// and everything that waits (futures, events, the allocator) waits for a timeline value.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/future.h"

namespace ember {

class Allocation;
class Stream;

struct StreamStats {
  uint64_t dispatches = 0;  // kernels and copies recorded
  uint64_t barriers = 0;    // hazard barriers inserted between recorded work
  uint64_t submits = 0;     // batches handed to the queue
  uint64_t host_waits = 0;  // times the host blocked on this stream's timeline
};

// A point on a stream's timeline, as torch.cuda.Event marks one.
class Event {
 public:
  Event() = default;
  Event(std::shared_ptr<Stream> stream, uint64_t value) : stream_(std::move(stream)), value_(value) {}
  bool query() const;        // true once the work before the event has finished
  void synchronize() const;  // host wait
  const std::shared_ptr<Stream>& stream() const { return stream_; }
  uint64_t value() const { return value_; }

 private:
  std::shared_ptr<Stream> stream_;
  uint64_t value_ = 0;
};

class Stream : public std::enable_shared_from_this<Stream> {
 public:
  virtual ~Stream() = default;

  // The timeline value at which everything recorded so far will have completed.
  virtual uint64_t pending_value() const = 0;
  virtual uint64_t submitted_value() const = 0;
  // Polls the device; never blocks.
  virtual uint64_t completed_value() = 0;
  // Submits recorded work, if any. Returns the value that marks the end of everything recorded so far.
  virtual uint64_t flush() = 0;
  // Blocks until `value` is reached, submitting first if needed. Throws DeviceLostError.
  virtual void wait_value(uint64_t value) = 0;
  void synchronize() { wait_value(flush()); }

  // Marks the end of the work recorded so far. Another stream's wait_event orders its later work after it.
  Event record_event();
  virtual void wait_event(const Event& event) = 0;

  // Copies host bytes into device memory. The host buffer may be reused as soon as this returns.
  virtual void copy_from_host(Allocation& dst, uint64_t dst_offset, const void* src,
                              uint64_t bytes) = 0;
  // Reads device memory once the work recorded so far has run. The future keeps `src` alive.
  virtual Future<std::vector<std::byte>> copy_to_host(std::shared_ptr<Allocation> src,
                                                      uint64_t src_offset, uint64_t bytes) = 0;
  // Device-to-device copy of raw bytes, ordered with the stream's other work.
  virtual void copy(Allocation& dst, uint64_t dst_offset, Allocation& src, uint64_t src_offset,
                    uint64_t bytes) = 0;

  // Keeps `object` alive until the work recorded so far has completed.
  virtual void keep_alive(std::shared_ptr<const void> object) = 0;

  virtual StreamStats stats() const = 0;
  // A future that is ready when the work recorded so far has completed.
  Future<void> completion();
};

}  // namespace ember
