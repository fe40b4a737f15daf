#include "runtime/vulkan/vulkan_stream.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "runtime/error.h"
#include "runtime/record_function.h"
#include "runtime/vulkan/kernel_profile.h"

namespace ember::vulkan {

namespace {

std::shared_ptr<Allocation> allocate_staging(const std::weak_ptr<CachingAllocator>& staging,
                                             uint64_t bytes, const std::shared_ptr<Stream>& stream) {
  auto allocator = staging.lock();
  if (!allocator) throw Error("host transfer on a stream whose device was closed");
  auto allocation = allocator->allocate(std::max<uint64_t>(bytes, 1), stream);
  if (!allocation->mapped()) throw UnsupportedError("the staging memory is not host-visible");
  return allocation;
}

VkBuffer buffer_of(const Allocation& allocation) {
  return reinterpret_cast<VkBuffer>(allocation.handle());
}

constexpr VkPipelineStageFlags kWorkStages =
    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;

}  // namespace

VulkanStream::VulkanStream(std::shared_ptr<Context> context, std::shared_ptr<CachingAllocator> staging)
    : context_(std::move(context)), staging_(std::move(staging)) {
  if (const char* limit = std::getenv("EMBER_MAX_DISPATCHES_PER_SUBMIT")) {
    max_batch_ = std::max(1, std::atoi(limit));
  }
  if (kernel_profiling()) {
    profiled_by_environment_ = context_->properties.limits.timestampComputeAndGraphics;
    if (!profiled_by_environment_) {
      std::fprintf(stderr, "EMBER_PROFILE: %s has no timestamps on its compute queues; not profiled\n",
                   context_->properties.deviceName);
    }
  }
  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool_info.queueFamilyIndex = context_->queue_family;
  context_->check(context_->fn.vkCreateCommandPool(context_->device, &pool_info, nullptr, &pool_),
                  "vkCreateCommandPool");
  VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo semaphore_info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type};
  VkResult result =
      context_->fn.vkCreateSemaphore(context_->device, &semaphore_info, nullptr, &timeline_);
  if (result != VK_SUCCESS) {
    context_->fn.vkDestroyCommandPool(context_->device, pool_, nullptr);
    context_->check(result, "vkCreateSemaphore");
  }
}

VulkanStream::~VulkanStream() {
  try {
    synchronize();
  } catch (const Error&) {
    // A lost device has nothing left to wait for.
  }
  for (InFlight& batch : in_flight_) {
    if (batch.timestamps.pool) spare_query_pools_.push_back(batch.timestamps.pool);
  }
  if (batch_timestamps_.pool) spare_query_pools_.push_back(batch_timestamps_.pool);
  in_flight_.clear();
  batch_keep_alive_.clear();
  for (VkQueryPool pool : spare_query_pools_) context_->fn.vkDestroyQueryPool(context_->device, pool, nullptr);
  context_->fn.vkDestroyCommandPool(context_->device, pool_, nullptr);  // frees its command buffers
  context_->fn.vkDestroySemaphore(context_->device, timeline_, nullptr);
}

uint64_t VulkanStream::pending_value() const {
  std::lock_guard lock(mutex_);
  return recording_ ? submitted_ + 1 : submitted_;
}

uint64_t VulkanStream::submitted_value() const {
  std::lock_guard lock(mutex_);
  return submitted_;
}

uint64_t VulkanStream::poll_semaphore() {
  uint64_t value = 0;
  context_->check(context_->fn.vkGetSemaphoreCounterValue(context_->device, timeline_, &value),
                  "vkGetSemaphoreCounterValue");
  uint64_t seen = completed_.load();
  while (value > seen && !completed_.compare_exchange_weak(seen, value)) {
  }
  return std::max(value, seen);
}

uint64_t VulkanStream::completed_value() {
  // Lock-free on purpose: the allocator polls streams while holding its own lock.
  return poll_semaphore();
}

VkCommandBuffer VulkanStream::begin_batch() {
  if (recording_) return recording_;
  context_->throw_if_lost();
  VkCommandBuffer commands = VK_NULL_HANDLE;
  if (!spare_.empty()) {
    commands = spare_.back();
    spare_.pop_back();
  } else {
    VkCommandBufferAllocateInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    info.commandPool = pool_;
    info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    info.commandBufferCount = 1;
    context_->check(context_->fn.vkAllocateCommandBuffers(context_->device, &info, &commands),
                    "vkAllocateCommandBuffers");
  }
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  context_->check(context_->fn.vkBeginCommandBuffer(commands, &begin), "vkBeginCommandBuffer");
  if (times_batches()) {
    // Two timestamps for each dispatch the batch can hold, and first a pair with nothing between them,
    // which measures what the timestamps cost by themselves.
    if (spare_query_pools_.empty()) {
      VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
      info.queryType = VK_QUERY_TYPE_TIMESTAMP;
      info.queryCount = timestamps_per_batch();
      VkQueryPool created = VK_NULL_HANDLE;
      context_->check(context_->fn.vkCreateQueryPool(context_->device, &info, nullptr, &created), "vkCreateQueryPool");
      spare_query_pools_.push_back(created);
    }
    batch_timestamps_.pool = spare_query_pools_.back();
    spare_query_pools_.pop_back();
    context_->fn.vkCmdResetQueryPool(commands, batch_timestamps_.pool, 0, timestamps_per_batch());
    if (!tracked_) {
      track_timed_stream(shared_from_this());
      tracked_ = true;
    }
  }
  // Submits to one queue are not ordered with each other by themselves, and the hazard tracker starts
  // empty in each batch: this barrier orders the batch after the work of every earlier submit. It is
  // not counted in StreamStats::barriers, which counts the tracker's.
  VkMemoryBarrier after_earlier_batches{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  after_earlier_batches.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  after_earlier_batches.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                        VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  context_->fn.vkCmdPipelineBarrier(commands, kWorkStages, kWorkStages, 0, 1, &after_earlier_batches, 0, nullptr, 0,
                                    nullptr);
  recording_ = commands;
  bound_pipeline_ = VK_NULL_HANDLE;
  hazards_.clear();
  return commands;
}

void VulkanStream::track(std::span<const BufferAccess> accesses) {
  if (hazards_.conflicts(accesses)) {
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                            VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    context_->fn.vkCmdPipelineBarrier(recording_, kWorkStages, kWorkStages, 0, 1, &barrier, 0,
                                      nullptr, 0, nullptr);
    stats_.barriers += 1;
    hazards_.clear();
  }
  hazards_.add(accesses);
}

void VulkanStream::after_record(std::span<Allocation* const> allocations) {
  stats_.dispatches += 1;
  batch_dispatches_ += 1;
  auto self = shared_from_this();
  for (Allocation* allocation : allocations) allocation->record_use(self, submitted_ + 1);
  if (batch_dispatches_ >= max_batch_) flush_locked();
}

std::string texel_view_refusal(const Context& context, const Allocation& allocation, VkDeviceSize offset,
                               VkDeviceSize range) {
  const VkPhysicalDeviceLimits& limits = context.properties.limits;
  const MemoryBlock& block = allocation.block();
  const VkDeviceSize bytes = (range + kTexelBytes - 1) / kTexelBytes * kTexelBytes;
  if (!(block.usage & VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT)) {
    return "a texel binding needs a buffer made with VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT";
  }
  if (offset % limits.minTexelBufferOffsetAlignment != 0 || offset % kTexelBytes != 0) {
    return "a texel binding starts at byte " + std::to_string(offset) + ", not on the device's " +
           std::to_string(limits.minTexelBufferOffsetAlignment) + "-byte texel alignment";
  }
  if (offset + bytes > block.size || bytes / kTexelBytes > limits.maxTexelBufferElements) {
    return "a texel binding of " + std::to_string(bytes) + " bytes at byte " + std::to_string(offset) +
           " reaches past its buffer or the device's " + std::to_string(limits.maxTexelBufferElements) + " texels";
  }
  return {};
}

bool can_read_as_texels(const Context& context, const Binding& binding) {
  const char* switch_value = std::getenv("EMBER_TEXEL_READS");  // read at every call, as tests flip it
  const bool switched_off = switch_value != nullptr && std::string(switch_value) == "0";
  return !switched_off && binding.allocation != nullptr &&
         texel_view_refusal(context, *binding.allocation, binding.offset, binding.range).empty();
}

std::shared_ptr<const void> VulkanStream::texel_view(const Allocation& allocation, VkDeviceSize offset,
                                                     VkDeviceSize range, VkBufferView& view) {
  if (std::string refusal = texel_view_refusal(*context_, allocation, offset, range); !refusal.empty()) {
    throw Error(refusal);
  }
  const VkDeviceSize bytes = (range + kTexelBytes - 1) / kTexelBytes * kTexelBytes;
  VkBufferViewCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO};
  info.buffer = buffer_of(allocation);
  info.format = VK_FORMAT_R32G32B32A32_UINT;
  info.offset = offset;
  info.range = bytes;
  context_->check(context_->fn.vkCreateBufferView(context_->device, &info, nullptr, &view), "vkCreateBufferView");
  // Destroyed when the batch that uses it has finished.
  return std::shared_ptr<const void>(view, [context = context_](const void* handle) {
    context->fn.vkDestroyBufferView(context->device, static_cast<VkBufferView>(const_cast<void*>(handle)), nullptr);
  });
}

void VulkanStream::dispatch(const Pipeline& pipeline, std::span<const Binding> bindings,
                            const void* push, uint32_t push_bytes, uint32_t groups_x,
                            uint32_t groups_y, uint32_t groups_z) {
  if (bindings.size() != pipeline.shader.storage_buffer_bindings.size()) {
    throw Error("dispatch gives " + std::to_string(bindings.size()) + " buffers to a shader with " +
                std::to_string(pipeline.shader.storage_buffer_bindings.size()));
  }
  if (push_bytes != pipeline.shader.push_constant_bytes) {
    throw Error("dispatch gives " + std::to_string(push_bytes) +
                " bytes of push constants to a shader that declares " +
                std::to_string(pipeline.shader.push_constant_bytes));
  }
  // Push descriptors allow at least 32 (maxPushDescriptors); the attention backward binds 10.
  constexpr size_t kMaxBindings = 16;
  if (bindings.size() > kMaxBindings) throw Error("too many buffers for one dispatch");
  BufferAccess accesses[kMaxBindings];
  VkDescriptorBufferInfo infos[kMaxBindings];
  VkBufferView views[kMaxBindings];
  std::shared_ptr<const void> view_owners[kMaxBindings];
  VkWriteDescriptorSet writes[kMaxBindings];
  Allocation* allocations[kMaxBindings];
  for (size_t i = 0; i < bindings.size(); ++i) {
    const Binding& b = bindings[i];
    const VkBuffer buffer = buffer_of(*b.allocation);
    const BindingKind kind = pipeline.shader.kinds[i];
    accesses[i] = {buffer, b.offset, b.offset + b.range, b.write};
    infos[i] = {buffer, b.offset, b.range};
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstBinding = pipeline.shader.storage_buffer_bindings[i];
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = descriptor_type(kind);
    if (kind == BindingKind::Texel) {
      view_owners[i] = texel_view(*b.allocation, b.offset, b.range, views[i]);
      writes[i].pTexelBufferView = &views[i];
    } else {
      writes[i].pBufferInfo = &infos[i];
    }
    allocations[i] = b.allocation;
  }
  std::vector<std::shared_ptr<const void>> garbage;
  std::lock_guard lock(mutex_);
  // A Profile that started while this batch was recording times the dispatches from the next batch on.
  if (recording_ && batch_timestamps_.pool == VK_NULL_HANDLE && times_batches()) flush_locked();
  VkCommandBuffer commands = begin_batch();
  for (size_t i = 0; i < bindings.size(); ++i) {
    if (view_owners[i]) keep_alive(std::move(view_owners[i]));
  }
  track({accesses, bindings.size()});
  const EntryPoints& fn = context_->fn;
  if (bound_pipeline_ != pipeline.pipeline) {
    fn.vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline);
    bound_pipeline_ = pipeline.pipeline;
  }
  fn.vkCmdPushDescriptorSetKHR(commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout, 0,
                               static_cast<uint32_t>(bindings.size()), writes);
  if (push_bytes) {
    fn.vkCmdPushConstants(commands, pipeline.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes, push);
  }
  auto record_dispatch = [&] { fn.vkCmdDispatch(commands, groups_x, groups_y, groups_z); };
  if (batch_timestamps_.pool != VK_NULL_HANDLE) {
    if (batch_timestamps_.shaders.empty()) write_timestamp_pair(commands, 0, [] {});
    write_timestamp_pair(commands, static_cast<uint32_t>(2 + 2 * batch_timestamps_.shaders.size()), record_dispatch);
    batch_timestamps_.shaders.push_back(&pipeline.name);
    batch_timestamps_.scopes.push_back(profiler::detail::current_scope());
  } else {
    record_dispatch();
  }
  after_record({allocations, bindings.size()});
  garbage = recycle(completed_.load());
}

void VulkanStream::copy(Allocation& dst, uint64_t dst_offset, Allocation& src, uint64_t src_offset,
                        uint64_t bytes) {
  dst.check_range(dst_offset, bytes, "copy destination");
  src.check_range(src_offset, bytes, "copy source");
  if (bytes == 0) return;
  const VkDeviceSize from = src.offset() + src_offset;
  const VkDeviceSize to = dst.offset() + dst_offset;
  const BufferAccess accesses[] = {{buffer_of(src), from, from + bytes, false},
                                   {buffer_of(dst), to, to + bytes, true}};
  const VkBufferCopy region{from, to, bytes};
  Allocation* const touched[] = {&src, &dst};
  record_commands(accesses, touched, [&](VkCommandBuffer commands) {
    context_->fn.vkCmdCopyBuffer(commands, buffer_of(src), buffer_of(dst), 1, &region);
  });
}

void VulkanStream::fill_words(Allocation& dst, uint64_t dst_offset, uint64_t bytes, uint32_t word) {
  dst.check_range(dst_offset, bytes, "fill destination");
  const VkDeviceSize at = dst.offset() + dst_offset;
  if (at % 4 != 0 || bytes % 4 != 0) {
    throw Error("fill_words: " + std::to_string(bytes) + " bytes at byte " + std::to_string(at) +
                " of a buffer are not whole 4-byte words");
  }
  if (bytes == 0) return;
  const BufferAccess access{buffer_of(dst), at, at + bytes, true};
  Allocation* const touched[] = {&dst};
  record_commands({&access, 1}, touched, [&](VkCommandBuffer commands) {
    context_->fn.vkCmdFillBuffer(commands, buffer_of(dst), at, bytes, word);
  });
}

void VulkanStream::record_commands(std::span<const BufferAccess> accesses,
                                   std::span<Allocation* const> allocations,
                                   const std::function<void(VkCommandBuffer)>& record) {
  std::vector<std::shared_ptr<const void>> garbage;
  std::lock_guard lock(mutex_);
  VkCommandBuffer commands = begin_batch();
  track(accesses);
  record(commands);
  after_record(allocations);
  garbage = recycle(completed_.load());
}

void VulkanStream::wait_semaphore(VkSemaphore semaphore, uint64_t value) {
  std::lock_guard lock(mutex_);
  flush_locked();
  batch_waits_.emplace_back(semaphore, value);
}

void VulkanStream::signal_semaphore(VkSemaphore semaphore, uint64_t value) {
  std::vector<std::shared_ptr<const void>> garbage;
  std::lock_guard lock(mutex_);
  begin_batch();  // a submit even when nothing is recorded, so that the signal happens
  batch_signals_.emplace_back(semaphore, value);
  flush_locked();
  garbage = recycle(completed_.load());
}

void VulkanStream::flush_locked() {
  if (!recording_) return;
  const EntryPoints& fn = context_->fn;
  // Makes the batch's writes visible to the host once the timeline value is reached.
  VkMemoryBarrier to_host{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  to_host.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  fn.vkCmdPipelineBarrier(recording_, kWorkStages, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0,
                          nullptr, 0, nullptr);
  context_->check(fn.vkEndCommandBuffer(recording_), "vkEndCommandBuffer");

  const uint64_t value = submitted_ + 1;
  std::vector<VkSemaphore> wait_semaphores;
  std::vector<uint64_t> wait_values;
  std::vector<VkPipelineStageFlags> wait_stages;
  for (auto [semaphore, wait_value] : batch_waits_) {
    wait_semaphores.push_back(semaphore);
    wait_values.push_back(wait_value);
    wait_stages.push_back(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
  }
  VkTimelineSemaphoreSubmitInfo timeline_info{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  timeline_info.waitSemaphoreValueCount = static_cast<uint32_t>(wait_values.size());
  timeline_info.pWaitSemaphoreValues = wait_values.data();
  std::vector<VkSemaphore> signal_semaphores{timeline_};
  std::vector<uint64_t> signal_values{value};
  for (auto [semaphore, signal_value] : batch_signals_) {
    signal_semaphores.push_back(semaphore);
    signal_values.push_back(signal_value);
  }
  timeline_info.signalSemaphoreValueCount = static_cast<uint32_t>(signal_values.size());
  timeline_info.pSignalSemaphoreValues = signal_values.data();
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO, &timeline_info};
  submit.waitSemaphoreCount = static_cast<uint32_t>(wait_semaphores.size());
  submit.pWaitSemaphores = wait_semaphores.data();
  submit.pWaitDstStageMask = wait_stages.data();
  VkCommandBuffer commands = recording_;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &commands;
  submit.signalSemaphoreCount = static_cast<uint32_t>(signal_semaphores.size());
  submit.pSignalSemaphores = signal_semaphores.data();
  recording_ = VK_NULL_HANDLE;
  batch_dispatches_ = 0;
  batch_waits_.clear();
  batch_signals_.clear();
  context_->submit(submit);
  wait_sources_.clear();
  submitted_ = value;
  stats_.submits += 1;
  in_flight_.push_back({commands, value, std::move(batch_keep_alive_), std::move(batch_timestamps_)});
  batch_keep_alive_.clear();
  batch_timestamps_ = {};
}

uint64_t VulkanStream::flush() {
  std::vector<std::shared_ptr<const void>> garbage;
  std::lock_guard lock(mutex_);
  flush_locked();
  garbage = recycle(poll_semaphore());
  return submitted_;
}

std::vector<std::shared_ptr<const void>> VulkanStream::recycle(uint64_t completed) {
  std::vector<std::shared_ptr<const void>> released;
  while (!in_flight_.empty() && in_flight_.front().value <= completed) {
    InFlight& done = in_flight_.front();
    for (auto& object : done.keep_alive) released.push_back(std::move(object));
    retire_timestamps(done.timestamps);
    spare_.push_back(done.commands);
    in_flight_.pop_front();
  }
  return released;
}

bool VulkanStream::times_batches() const {
  return profiled_by_environment_ || (profile_running() && context_->properties.limits.timestampComputeAndGraphics);
}

void VulkanStream::write_timestamp_pair(VkCommandBuffer commands, uint32_t first_query,
                                        const std::function<void()>& record_between) {
  const EntryPoints& fn = context_->fn;
  fn.vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, batch_timestamps_.pool, first_query);
  record_between();
  fn.vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, batch_timestamps_.pool, first_query + 1);
}

void VulkanStream::retire_timestamps(Timestamps& timestamps) {
  if (timestamps.pool == VK_NULL_HANDLE) return;
  const auto count = static_cast<uint32_t>(2 + 2 * timestamps.shaders.size());
  std::vector<uint64_t> ticks(count);
  // A batch without dispatches wrote no timestamps, not even the empty pair.
  if (!timestamps.shaders.empty() &&
      context_->fn.vkGetQueryPoolResults(context_->device, timestamps.pool, 0, count, count * sizeof(uint64_t),
                                         ticks.data(), sizeof(uint64_t), VK_QUERY_RESULT_64_BIT) == VK_SUCCESS) {
    const double nanoseconds_per_tick = context_->properties.limits.timestampPeriod;
    auto interval = [&](size_t pair) {
      return static_cast<double>(ticks[2 * pair + 1] - ticks[2 * pair]) * nanoseconds_per_tick;
    };
    add_empty_interval(interval(0));
    for (size_t i = 0; i < timestamps.shaders.size(); ++i) {
      add_kernel_time(*timestamps.shaders[i], interval(1 + i));
      profiler::detail::add_scope_device_time(timestamps.scopes[i], interval(1 + i));
    }
  }
  spare_query_pools_.push_back(timestamps.pool);
  timestamps = {};
}

void VulkanStream::wait_value(uint64_t value) {
  {
    std::lock_guard lock(mutex_);
    if (value > submitted_) flush_locked();
    if (value > submitted_) {
      throw Error("wait for timeline value " + std::to_string(value) + " that no submit signals");
    }
  }
  if (poll_semaphore() < value) {
    {
      std::lock_guard lock(mutex_);
      stats_.host_waits += 1;
    }
    VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    info.semaphoreCount = 1;
    info.pSemaphores = &timeline_;
    info.pValues = &value;
    constexpr uint64_t kSecond = 1'000'000'000ull;
    VkResult result;
    while ((result = context_->fn.vkWaitSemaphores(context_->device, &info, kSecond)) == VK_TIMEOUT) {
      context_->throw_if_lost();
    }
    context_->check(result, "vkWaitSemaphores");
  }
  std::vector<std::shared_ptr<const void>> garbage;
  std::lock_guard lock(mutex_);
  garbage = recycle(poll_semaphore());
}

void VulkanStream::wait_event(const Event& event) {
  if (!event.stream() || event.stream().get() == this) return;  // stream order already holds
  auto* other = dynamic_cast<VulkanStream*>(event.stream().get());
  if (!other || other->context_ != context_) {
    throw Error("Stream::wait_event: the event belongs to a stream of another device");
  }
  if (other->submitted_value() < event.value()) other->flush();
  if (other->completed_value() >= event.value()) return;
  std::lock_guard lock(mutex_);
  // Work recorded before the wait need not wait: submit it now.
  flush_locked();
  batch_waits_.emplace_back(other->timeline_, event.value());
  wait_sources_.push_back(event.stream());
}

void VulkanStream::copy_from_host(Allocation& dst, uint64_t dst_offset, const void* src,
                                  uint64_t bytes) {
  dst.check_range(dst_offset, bytes, "copy_from_host");
  if (bytes == 0) return;
  if (dst.mapped() && dst.idle()) {
    std::memcpy(static_cast<std::byte*>(dst.mapped()) + dst_offset, src, bytes);
    return;
  }
  // The memory is not host-visible, or queued work may still use it: stage and copy in stream order.
  std::shared_ptr<Allocation> staging = allocate_staging(staging_, bytes, shared_from_this());
  staging->wait_idle();
  std::memcpy(staging->mapped(), src, bytes);
  copy(dst, dst_offset, *staging, 0, bytes);
  keep_alive(staging);
}

Future<std::vector<std::byte>> VulkanStream::copy_to_host(std::shared_ptr<Allocation> src,
                                                          uint64_t src_offset, uint64_t bytes) {
  src->check_range(src_offset, bytes, "copy_to_host");
  if (src->mapped() && src->idle()) {
    const auto* begin = static_cast<const std::byte*>(src->mapped()) + src_offset;
    return Future<std::vector<std::byte>>::ready_value(std::vector<std::byte>(begin, begin + bytes));
  }
  // Snapshot in stream order, so that work recorded later cannot change what the host reads.
  std::shared_ptr<Allocation> staging = allocate_staging(staging_, bytes, shared_from_this());
  copy(*staging, 0, *src, src_offset, bytes);
  const uint64_t value = pending_value();
  auto self = std::static_pointer_cast<VulkanStream>(shared_from_this());
  return Future<std::vector<std::byte>>::make(
      [self, value] { return Event(self, value).query(); },
      [self, value] { self->wait_value(value); },
      [staging, bytes] {
        const auto* begin = static_cast<const std::byte*>(staging->mapped());
        return std::vector<std::byte>(begin, begin + bytes);
      },
      {src, staging})
      .at_stream_point(self, value);
}

void VulkanStream::keep_alive(std::shared_ptr<const void> object) {
  std::lock_guard lock(mutex_);
  if (recording_) {
    batch_keep_alive_.push_back(std::move(object));
  } else if (!in_flight_.empty() && in_flight_.back().value > completed_.load()) {
    in_flight_.back().keep_alive.push_back(std::move(object));
  }
}

StreamStats VulkanStream::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace ember::vulkan
