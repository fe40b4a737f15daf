#pragma once
// A Vulkan stream: command buffers recorded on the host, submitted in bounded batches to the context's
// queue, each batch signalling the next value of the stream's timeline semaphore.
#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "runtime/allocator.h"
#include "runtime/stream.h"
#include "runtime/vulkan/context.h"
#include "runtime/vulkan/hazards.h"
#include "runtime/vulkan/pipelines.h"

namespace ember::vulkan {

// One storage-buffer binding of a dispatch: a window of an allocation's block.
struct Binding {
  Allocation* allocation = nullptr;
  VkDeviceSize offset = 0;  // from the start of the block's buffer
  VkDeviceSize range = 0;
  bool write = false;
};

// Texel bindings are R32G32B32A32_UINT views, as BindingKind::Texel promises.
constexpr VkDeviceSize kTexelBytes = 16;
// Why a texel view of `range` bytes (rounded up to whole texels) at `offset` of the allocation's buffer
// cannot be made, or an empty string when it can.
std::string texel_view_refusal(const Context& context, const Allocation& allocation, VkDeviceSize offset,
                               VkDeviceSize range);
// Whether a kernel may read `binding` through a texel view: a texel variant's launcher asks before it
// picks that variant, and keeps the storage-buffer one otherwise. EMBER_TEXEL_READS=0 answers no
// everywhere, to compare the two or to step around a driver whose texel fetches misbehave.
bool can_read_as_texels(const Context& context, const Binding& binding);

class VulkanStream final : public Stream {
 public:
  VulkanStream(std::shared_ptr<Context> context, std::shared_ptr<CachingAllocator> staging);
  ~VulkanStream() override;

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
  // Sets `bytes` bytes of `dst` from `dst_offset` to repeats of `word`; the start in the buffer and the
  // size are multiples of 4. It is vkCmdFillBuffer, a memset in lavapipe, where a fill shader costs a
  // dispatch (about 70 µs there).
  void fill_words(Allocation& dst, uint64_t dst_offset, uint64_t bytes, uint32_t word);
  StreamStats stats() const override;

  // Records one compute dispatch. Push constants are copied at once.
  void dispatch(const Pipeline& pipeline, std::span<const Binding> bindings, const void* push,
                uint32_t push_bytes, uint32_t groups_x, uint32_t groups_y = 1, uint32_t groups_z = 1);

  // Records commands that `record` writes (copies between buffers and images, ownership barriers), after a
  // hazard barrier when `accesses` conflict with earlier work. `allocations` are the ember memory they touch.
  void record_commands(std::span<const BufferAccess> accesses, std::span<Allocation* const> allocations,
                       const std::function<void(VkCommandBuffer)>& record);
  // Work recorded after this waits on the GPU for `semaphore` (timeline: reaching `value`; binary: its
  // signal). Work recorded before is submitted first, so it does not wait.
  void wait_semaphore(VkSemaphore semaphore, uint64_t value);
  // Submits the work recorded so far, with `semaphore` signalled (to `value` for a timeline) when it is done.
  void signal_semaphore(VkSemaphore semaphore, uint64_t value);

  VkSemaphore timeline() const { return timeline_; }
  Context& context() const { return *context_; }
  // Most dispatches one submit holds (EMBER_MAX_DISPATCHES_PER_SUBMIT, default 256): a bound on how
  // long one submit runs, because GPU watchdogs kill long ones.
  uint32_t max_dispatches_per_submit() const { return max_batch_; }

 private:
  // A batch's timestamps under EMBER_PROFILE (kernel_profile.h): an empty pair, then two per dispatch, and
  // whose they are.
  struct Timestamps {
    VkQueryPool pool = VK_NULL_HANDLE;
    std::vector<const std::string*> shaders;  // Pipeline::name, which lives as long as the device
    std::vector<uint32_t> scopes;  // the profiler region each was recorded in (record_function.h)
  };
  struct InFlight {
    VkCommandBuffer commands;
    uint64_t value;
    std::vector<std::shared_ptr<const void>> keep_alive;
    Timestamps timestamps;
  };

  VkCommandBuffer begin_batch();
  // A uvec4 view of `range` bytes (rounded up to whole texels) at `offset` of the allocation's buffer, in
  // `view`; the returned owner destroys it. Throws Error when the buffer or the device cannot have it.
  std::shared_ptr<const void> texel_view(const Allocation& allocation, VkDeviceSize offset, VkDeviceSize range,
                                         VkBufferView& view);
  // Records accesses into the batch, with a barrier first when they conflict with earlier ones.
  void track(std::span<const BufferAccess> accesses);
  void after_record(std::span<Allocation* const> allocations);
  // Retires finished batches. Returns what they kept alive, for the caller to drop outside the lock.
  std::vector<std::shared_ptr<const void>> recycle(uint64_t completed);
  uint64_t poll_semaphore();
  void flush_locked();
  // Timestamps `first_query` and the next around what `record_between` records.
  // Whether a batch begun now gets timestamps (kernel_profile.h): EMBER_PROFILE when the stream was made,
  // or a running profiler::Profile on a device with timestamps.
  bool times_batches() const;
  void write_timestamp_pair(VkCommandBuffer commands, uint32_t first_query, const std::function<void()>& record_between);
  // The empty pair, then a pair for each dispatch the batch can hold.
  uint32_t timestamps_per_batch() const { return 2 + 2 * max_batch_; }
  // Adds a finished batch's dispatch times to the profile and keeps its query pool for the next batch.
  void retire_timestamps(Timestamps& timestamps);

  std::shared_ptr<Context> context_;
  // Weak: the staging allocator's cached chunks refer to this stream, and a strong pointer would make a cycle.
  std::weak_ptr<CachingAllocator> staging_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkSemaphore timeline_ = VK_NULL_HANDLE;
  uint32_t max_batch_ = 256;
  bool profiled_by_environment_ = false;  // EMBER_PROFILE when the stream was made, and the device has timestamps
  bool tracked_ = false;                  // known to kernel_profile.h's list of timed streams

  mutable std::recursive_mutex mutex_;
  VkCommandBuffer recording_ = VK_NULL_HANDLE;
  VkPipeline bound_pipeline_ = VK_NULL_HANDLE;
  uint32_t batch_dispatches_ = 0;
  std::vector<std::shared_ptr<const void>> batch_keep_alive_;
  std::vector<std::pair<VkSemaphore, uint64_t>> batch_waits_;
  std::vector<std::pair<VkSemaphore, uint64_t>> batch_signals_;  // besides the stream's own timeline
  std::vector<std::shared_ptr<const void>> wait_sources_;  // streams waited on, kept until submit
  HazardTracker hazards_;
  std::deque<InFlight> in_flight_;
  std::vector<VkCommandBuffer> spare_;
  Timestamps batch_timestamps_;
  std::vector<VkQueryPool> spare_query_pools_;
  uint64_t submitted_ = 0;
  std::atomic<uint64_t> completed_{0};
  StreamStats stats_;
};

}  // namespace ember::vulkan
