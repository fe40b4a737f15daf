#include "shaders/common/launch.h"

#include <algorithm>

#include "runtime/allocator.h"

namespace ember::vulkan {

Window aligned_window(const LaunchShape& piece, int i, bool write, uint64_t alignment) {
  const LaunchOperand& operand = piece.operands[i];
  const uint64_t start = operand.allocation->offset() + operand.byte_offset;
  const uint64_t aligned = start / alignment * alignment;
  // Chunks start on 512-byte boundaries and their sizes are multiples of 512, so an aligned start (for
  // alignments up to 512) and the range rounded up to whole 32-bit words never reach past the chunk.
  const uint64_t range = (start - aligned + piece.extent_bytes(i) + 3) / 4 * 4;
  Window window;
  window.binding = {operand.allocation, aligned, range, write};
  window.first_element = static_cast<uint32_t>((start - aligned) / operand.element_size);
  return window;
}

Window operand_window(const Context& context, const LaunchShape& piece, int i, bool write) {
  return aligned_window(piece, i, write, context.properties.limits.minStorageBufferOffsetAlignment);
}

uint64_t max_window_bytes(const Context& context) {
  const uint64_t range = context.properties.limits.maxStorageBufferRange;
  return range - context.properties.limits.minStorageBufferOffsetAlignment - 4;
}

uint32_t workgroups_for(const Context& context, int64_t numel) {
  const int64_t wanted = (numel + kWorkgroupSize - 1) / kWorkgroupSize;
  const int64_t limit = context.properties.limits.maxComputeWorkGroupCount[0];
  return static_cast<uint32_t>(std::clamp<int64_t>(wanted, 1, limit));
}

}  // namespace ember::vulkan
