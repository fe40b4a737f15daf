#pragma once
// The caching sub-allocator shared by both backends, modelled on PyTorch's CUDA caching allocator.
//
// Device memory comes from a BlockSource in large blocks; tensors get sub-ranges ("chunks") of them.
// Freed chunks stay cached in the free list of the stream that freed them. That stream may reuse them at
// once, because its own later work runs after the earlier uses (and the Vulkan hazard tracker puts a
// barrier between them). Any other stream, and the host, may touch the memory only once every recorded
// GPU use has completed on its stream's timeline.
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ember {

class Stream;

// One allocation from the device: a VkBuffer bound to its own VkDeviceMemory, or a cudaMalloc pointer.
struct MemoryBlock {
  uint64_t handle = 0;     // VkBuffer or device pointer, as the backend's kernels expect
  uint64_t memory = 0;     // VkDeviceMemory, or 0
  void* mapped = nullptr;  // host pointer when the memory is host-visible and mapped
  uint64_t size = 0;
  uint32_t usage = 0;          // VkBufferUsageFlags of the buffer, where the backend knows them
  uint64_t export_size = 0;    // bytes of the VkDeviceMemory when it can be exported as an fd, else 0
};

class BlockSource {
 public:
  virtual ~BlockSource() = default;
  // std::nullopt when the device is out of memory; other failures throw.
  virtual std::optional<MemoryBlock> allocate_block(uint64_t bytes) = 0;
  virtual void release_block(const MemoryBlock& block) = 0;
  virtual uint64_t device_total() const = 0;
  // Bytes the device can still give, from the heap budget where the driver reports one.
  virtual uint64_t device_available(uint64_t reserved_by_us) const = 0;
  virtual uint64_t max_block_size() const = 0;
  virtual std::string device_name() const = 0;
};

struct AllocatorStats {
  uint64_t allocated_bytes = 0;       // held by live allocations (rounded sizes)
  uint64_t reserved_bytes = 0;        // held from the device, cached or not
  uint64_t peak_allocated_bytes = 0;
  uint64_t device_blocks = 0;         // live device allocations
  uint64_t device_allocations = 0;    // calls to the device allocator so far
  uint64_t allocations = 0;           // allocate() calls that succeeded
  uint64_t cache_hits = 0;            // served from cached memory without a device allocation
  uint64_t oom_retries = 0;           // times the cache was dropped to satisfy a request
};

// A GPU use of some memory: the stream, and the timeline value at which that use has completed.
struct StreamUse {
  std::shared_ptr<Stream> stream;
  uint64_t value = 0;
};

class CachingAllocator;
struct Segment;

struct Chunk {
  Segment* segment = nullptr;
  uint64_t offset = 0;  // within the segment's block
  uint64_t size = 0;
  bool allocated = false;
  std::shared_ptr<Stream> owner;  // stream whose free list holds it, or that allocated it
  std::vector<StreamUse> uses;    // GPU uses that may still be in flight
  Chunk* prev = nullptr;
  Chunk* next = nullptr;
};

// A live sub-allocation. Destroying it returns the chunk to the cache, in stream order.
class Allocation {
 public:
  ~Allocation();
  Allocation(const Allocation&) = delete;
  Allocation& operator=(const Allocation&) = delete;

  uint64_t handle() const { return block_->handle; }
  const MemoryBlock& block() const { return *block_; }
  uint64_t offset() const { return chunk_->offset; }  // byte offset within the block's buffer
  uint64_t size() const { return requested_; }
  void* mapped() const;  // host pointer to the first byte, or nullptr when not host-visible
  const std::shared_ptr<Stream>& stream() const { return chunk_->owner; }

  // Throws Error naming `what` unless bytes [offset, offset + bytes) lie inside this allocation.
  void check_range(uint64_t offset, uint64_t bytes, const char* what) const;

  // Streams call this when they record a use, so that the memory is not reused or written by the host
  // before `value` is reached on `stream`.
  void record_use(const std::shared_ptr<Stream>& stream, uint64_t value);
  // True when no recorded GPU use of this memory (including uses from before it was handed out) is
  // still in flight, so the host may write it directly.
  bool idle() const;
  // Waits, on the host, until idle().
  void wait_idle() const;

 private:
  friend class CachingAllocator;
  Allocation(std::shared_ptr<CachingAllocator> owner, Chunk* chunk, const MemoryBlock* block,
             uint64_t requested)
      : allocator_(std::move(owner)), chunk_(chunk), block_(block), requested_(requested) {}

  std::shared_ptr<CachingAllocator> allocator_;
  Chunk* chunk_;
  const MemoryBlock* block_;
  uint64_t requested_;
};

class CachingAllocator : public std::enable_shared_from_this<CachingAllocator> {
 public:
  explicit CachingAllocator(std::unique_ptr<BlockSource> source);
  ~CachingAllocator();

  // Throws OutOfMemoryError naming the sizes when the device cannot give the memory even after the
  // cache was dropped. Nothing already allocated is touched by a failure.
  std::shared_ptr<Allocation> allocate(uint64_t bytes, const std::shared_ptr<Stream>& stream);

  // Wraps memory that ember does not own (another framework's VkBuffer or device pointer, as DLPack hands
  // it over) so that tensors use it in place. It is never cached and does not count in the stats: when
  // the allocation dies, the allocator waits for the GPU uses recorded on it, then calls `release` once.
  std::shared_ptr<Allocation> adopt(const MemoryBlock& block, std::function<void()> release,
                                    const std::shared_ptr<Stream>& stream);

  // Returns every cached block to the device, waiting for GPU uses still in flight.
  void empty_cache();
  AllocatorStats stats() const;
  void reset_peak();
  const BlockSource& source() const { return *source_; }

  // Rounding rules, public so that tests can state expectations in the same terms.
  static uint64_t round_size(uint64_t bytes);
  uint64_t segment_size_for(uint64_t rounded) const;

 private:
  friend class Allocation;
  struct BySize {
    bool operator()(const Chunk* a, const Chunk* b) const;
  };
  using FreeList = std::set<Chunk*, BySize>;
  struct StreamPool {
    std::shared_ptr<Stream> stream;
    FreeList small;
    FreeList large;
  };

  void free_chunk(Chunk* chunk);
  void release_adopted(Segment* segment);
  Chunk* find_cached(uint64_t rounded, const std::shared_ptr<Stream>& stream);
  Chunk* take_from(FreeList& list, uint64_t rounded, const Stream* reuser);
  Chunk* new_segment(uint64_t rounded);
  bool release_cached_segments(bool wait_for_uses);
  void split(Chunk* chunk, uint64_t rounded);
  StreamPool& pool_for(const std::shared_ptr<Stream>& stream);
  FreeList& list_for(StreamPool& pool, bool small);
  void insert_free(Chunk* chunk);
  void erase_free(Chunk* chunk);

  std::unique_ptr<BlockSource> source_;
  // Recursive: waiting for a stream can release objects it kept alive, which frees their chunks.
  mutable std::recursive_mutex mutex_;
  std::vector<std::unique_ptr<StreamPool>> pools_;
  std::vector<std::unique_ptr<Segment>> segments_;
  std::vector<std::unique_ptr<Segment>> adopted_;  // memory owned elsewhere, one live allocation each
  AllocatorStats stats_;
};

}  // namespace ember
