#include "runtime/allocator.h"

#include <algorithm>
#include <tuple>

#include "runtime/error.h"
#include "runtime/stream.h"

namespace ember {

namespace {

constexpr uint64_t kMinAlignment = 512;          // every chunk starts on this boundary
constexpr uint64_t kSmallLimit = 1 << 20;        // requests up to this share small segments
constexpr uint64_t kSmallSegment = 2 << 20;
constexpr uint64_t kMediumLimit = 10 << 20;      // requests up to this share medium segments
constexpr uint64_t kMediumSegment = 20 << 20;
constexpr uint64_t kLargeRounding = 2 << 20;     // larger requests get their own segment

bool use_completed(const StreamUse& use) {
  try {
    return use.stream->completed_value() >= use.value;
  } catch (const DeviceLostError&) {
    return true;  // a lost device runs nothing more, so nothing can still touch the memory
  }
}

// A cached chunk may be reused on `reuser` when every GPU use recorded on other streams has finished.
// Uses on `reuser` itself are safe: its later work runs after them in stream order.
bool reusable_on(const Chunk* chunk, const Stream* reuser) {
  return std::all_of(chunk->uses.begin(), chunk->uses.end(), [&](const StreamUse& use) {
    return use.stream.get() == reuser || use_completed(use);
  });
}

void merge_uses(std::vector<StreamUse>& into, const std::vector<StreamUse>& from) {
  for (const StreamUse& use : from) {
    auto same = std::find_if(into.begin(), into.end(),
                             [&](const StreamUse& u) { return u.stream == use.stream; });
    if (same == into.end()) {
      into.push_back(use);
    } else {
      same->value = std::max(same->value, use.value);
    }
  }
}

}  // namespace

struct Segment {
  MemoryBlock block;
  bool small = false;  // serves requests up to kSmallLimit; its chunks live in the small free lists
  std::function<void()> release;  // set for adopted memory: hands it back to its owner
  std::vector<std::unique_ptr<Chunk>> chunks;  // in no particular order; prev/next give address order
};

bool CachingAllocator::BySize::operator()(const Chunk* a, const Chunk* b) const {
  return std::tie(a->size, a->segment, a->offset) < std::tie(b->size, b->segment, b->offset);
}

CachingAllocator::CachingAllocator(std::unique_ptr<BlockSource> source) : source_(std::move(source)) {}

CachingAllocator::~CachingAllocator() {
  // Live allocations keep this object alive, so every chunk is free here; wait for in-flight uses.
  release_cached_segments(/*wait_for_uses=*/true);
}

uint64_t CachingAllocator::round_size(uint64_t bytes) {
  if (bytes == 0) return kMinAlignment;
  if (bytes <= kMediumLimit) return (bytes + kMinAlignment - 1) / kMinAlignment * kMinAlignment;
  return (bytes + kLargeRounding - 1) / kLargeRounding * kLargeRounding;
}

uint64_t CachingAllocator::segment_size_for(uint64_t rounded) const {
  uint64_t size = rounded;
  if (rounded <= kSmallLimit) {
    size = kSmallSegment;
  } else if (rounded <= kMediumLimit) {
    size = kMediumSegment;
  }
  return std::max(rounded, std::min(size, source_->max_block_size()));
}

CachingAllocator::StreamPool& CachingAllocator::pool_for(const std::shared_ptr<Stream>& stream) {
  for (auto& pool : pools_) {
    if (pool->stream == stream) return *pool;
  }
  pools_.push_back(std::make_unique<StreamPool>());
  pools_.back()->stream = stream;
  return *pools_.back();
}

CachingAllocator::FreeList& CachingAllocator::list_for(StreamPool& pool, bool small) {
  return small ? pool.small : pool.large;
}

void CachingAllocator::insert_free(Chunk* chunk) {
  list_for(pool_for(chunk->owner), chunk->segment->small).insert(chunk);
}

void CachingAllocator::erase_free(Chunk* chunk) {
  list_for(pool_for(chunk->owner), chunk->segment->small).erase(chunk);
}

Chunk* CachingAllocator::take_from(FreeList& list, uint64_t rounded, const Stream* reuser) {
  Chunk key;
  key.size = rounded;
  key.segment = nullptr;
  key.offset = 0;
  for (auto it = list.lower_bound(&key); it != list.end(); ++it) {
    Chunk* chunk = *it;
    if (!reusable_on(chunk, reuser)) continue;
    list.erase(it);
    return chunk;
  }
  return nullptr;
}

Chunk* CachingAllocator::find_cached(uint64_t rounded, const std::shared_ptr<Stream>& stream) {
  // Small requests never carve up large segments, or large segments would never return whole.
  const bool small = rounded <= kSmallLimit;
  StreamPool& own = pool_for(stream);
  if (Chunk* chunk = take_from(list_for(own, small), rounded, stream.get())) return chunk;
  // Another stream's cache is usable once that memory's uses have passed on their timelines.
  for (auto& pool : pools_) {
    if (pool.get() == &own) continue;
    if (Chunk* chunk = take_from(list_for(*pool, small), rounded, stream.get())) return chunk;
  }
  return nullptr;
}

Chunk* CachingAllocator::new_segment(uint64_t rounded) {
  const uint64_t size = segment_size_for(rounded);
  if (size > source_->max_block_size()) return nullptr;
  if (size > source_->device_available(stats_.reserved_bytes)) return nullptr;
  std::optional<MemoryBlock> block = source_->allocate_block(size);
  if (!block) return nullptr;
  auto segment = std::make_unique<Segment>();
  segment->block = *block;
  segment->small = rounded <= kSmallLimit;
  auto chunk = std::make_unique<Chunk>();
  chunk->segment = segment.get();
  chunk->size = size;
  Chunk* raw = chunk.get();
  segment->chunks.push_back(std::move(chunk));
  segments_.push_back(std::move(segment));
  stats_.reserved_bytes += size;
  stats_.device_blocks += 1;
  stats_.device_allocations += 1;
  return raw;
}

void CachingAllocator::split(Chunk* chunk, uint64_t rounded) {
  const uint64_t remaining = chunk->size - rounded;
  const uint64_t min_split = chunk->segment->small ? kMinAlignment : kSmallLimit;
  if (remaining < min_split) return;
  auto rest = std::make_unique<Chunk>();
  rest->segment = chunk->segment;
  rest->offset = chunk->offset + rounded;
  rest->size = remaining;
  rest->owner = chunk->owner;
  rest->uses = chunk->uses;
  rest->prev = chunk;
  rest->next = chunk->next;
  if (chunk->next) chunk->next->prev = rest.get();
  chunk->next = rest.get();
  chunk->size = rounded;
  Chunk* raw = rest.get();
  chunk->segment->chunks.push_back(std::move(rest));
  insert_free(raw);
}

std::shared_ptr<Allocation> CachingAllocator::allocate(uint64_t bytes,
                                                       const std::shared_ptr<Stream>& stream) {
  const uint64_t rounded = round_size(bytes);
  std::lock_guard lock(mutex_);
  Chunk* chunk = find_cached(rounded, stream);
  if (chunk) {
    stats_.cache_hits += 1;
  } else {
    chunk = new_segment(rounded);
    if (!chunk && release_cached_segments(/*wait_for_uses=*/true)) {
      stats_.oom_retries += 1;
      chunk = new_segment(rounded);
    }
    if (!chunk) {
      const std::string detail =
          rounded > source_->max_block_size()
              ? "one allocation can be at most " + format_bytes(source_->max_block_size()) + " here"
              : "";
      throw OutOfMemoryError(source_->device_name(), bytes, stats_.allocated_bytes,
                             stats_.reserved_bytes, source_->device_total(), detail);
    }
  }
  chunk->owner = stream;
  split(chunk, rounded);
  chunk->allocated = true;
  stats_.allocated_bytes += chunk->size;
  stats_.peak_allocated_bytes = std::max(stats_.peak_allocated_bytes, stats_.allocated_bytes);
  stats_.allocations += 1;
  return std::shared_ptr<Allocation>(
      new Allocation(shared_from_this(), chunk, &chunk->segment->block, bytes));
}

std::shared_ptr<Allocation> CachingAllocator::adopt(const MemoryBlock& block, std::function<void()> release,
                                                    const std::shared_ptr<Stream>& stream) {
  if (!release) throw Error("adopted memory needs a release function");
  auto segment = std::make_unique<Segment>();
  segment->block = block;
  segment->release = std::move(release);
  auto chunk = std::make_unique<Chunk>();
  chunk->segment = segment.get();
  chunk->size = block.size;
  chunk->allocated = true;
  chunk->owner = stream;
  Chunk* raw = chunk.get();
  segment->chunks.push_back(std::move(chunk));
  std::lock_guard lock(mutex_);
  adopted_.push_back(std::move(segment));
  return std::shared_ptr<Allocation>(new Allocation(shared_from_this(), raw, &raw->segment->block, block.size));
}

// The owner gets its memory back only after the GPU work that ember recorded on it has finished.
void CachingAllocator::release_adopted(Segment* segment) {
  std::unique_ptr<Segment> owned;
  {
    std::lock_guard lock(mutex_);
    auto it = std::find_if(adopted_.begin(), adopted_.end(),
                           [&](const std::unique_ptr<Segment>& s) { return s.get() == segment; });
    owned = std::move(*it);
    adopted_.erase(it);
  }
  for (const StreamUse& use : owned->chunks.front()->uses) {
    try {
      use.stream->wait_value(use.value);
    } catch (const DeviceLostError&) {
      // a lost device runs nothing more, so nothing can still touch the memory
    }
  }
  owned->release();
}

void CachingAllocator::free_chunk(Chunk* chunk) {
  if (chunk->segment->release) return release_adopted(chunk->segment);
  std::lock_guard lock(mutex_);
  chunk->allocated = false;
  stats_.allocated_bytes -= chunk->size;
  // Completed uses need no tracking any more.
  std::erase_if(chunk->uses, [](const StreamUse& use) { return use_completed(use); });
  // Merge with free neighbours of the same stream, so that split memory becomes whole again.
  auto absorb = [&](Chunk* left, Chunk* right) {
    left->size += right->size;
    merge_uses(left->uses, right->uses);
    left->next = right->next;
    if (right->next) right->next->prev = left;
    auto& chunks = left->segment->chunks;
    chunks.erase(std::find_if(chunks.begin(), chunks.end(),
                              [&](const std::unique_ptr<Chunk>& c) { return c.get() == right; }));
  };
  if (Chunk* next = chunk->next; next && !next->allocated && next->owner == chunk->owner) {
    erase_free(next);
    absorb(chunk, next);
  }
  if (Chunk* prev = chunk->prev; prev && !prev->allocated && prev->owner == chunk->owner) {
    erase_free(prev);
    absorb(prev, chunk);
    chunk = prev;
  }
  insert_free(chunk);
}

bool CachingAllocator::release_cached_segments(bool wait_for_uses) {
  bool released = false;
  for (auto it = segments_.begin(); it != segments_.end();) {
    Segment& segment = **it;
    Chunk* only = segment.chunks.size() == 1 ? segment.chunks.front().get() : nullptr;
    if (!only || only->allocated) {
      ++it;
      continue;
    }
    if (!reusable_on(only, nullptr)) {
      if (!wait_for_uses) {
        ++it;
        continue;
      }
      for (const StreamUse& use : only->uses) use.stream->wait_value(use.value);
    }
    erase_free(only);
    source_->release_block(segment.block);
    stats_.reserved_bytes -= segment.block.size;
    stats_.device_blocks -= 1;
    it = segments_.erase(it);
    released = true;
  }
  return released;
}

void CachingAllocator::empty_cache() {
  std::lock_guard lock(mutex_);
  release_cached_segments(/*wait_for_uses=*/true);
}

AllocatorStats CachingAllocator::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void CachingAllocator::reset_peak() {
  std::lock_guard lock(mutex_);
  stats_.peak_allocated_bytes = stats_.allocated_bytes;
}

Allocation::~Allocation() { allocator_->free_chunk(chunk_); }

void* Allocation::mapped() const {
  return block_->mapped ? static_cast<std::byte*>(block_->mapped) + chunk_->offset : nullptr;
}

void Allocation::check_range(uint64_t offset, uint64_t bytes, const char* what) const {
  if (offset > size() || bytes > size() - offset) {
    throw Error(std::string(what) + ": bytes [" + std::to_string(offset) + ", " +
                std::to_string(offset + bytes) + ") lie outside an allocation of " +
                std::to_string(size()) + " bytes");
  }
}

void Allocation::record_use(const std::shared_ptr<Stream>& stream, uint64_t value) {
  std::lock_guard lock(allocator_->mutex_);
  merge_uses(chunk_->uses, {StreamUse{stream, value}});
}

bool Allocation::idle() const {
  std::lock_guard lock(allocator_->mutex_);
  return reusable_on(chunk_, nullptr);
}

void Allocation::wait_idle() const {
  std::vector<StreamUse> uses;
  {
    std::lock_guard lock(allocator_->mutex_);
    uses = chunk_->uses;
  }
  for (const StreamUse& use : uses) use.stream->wait_value(use.value);
}

}  // namespace ember
