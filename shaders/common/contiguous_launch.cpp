#include "shaders/common/contiguous_launch.h"

#include <algorithm>
#include <cstdint>

#include "runtime/allocator.h"
#include "runtime/vulkan/vulkan_stream.h"

namespace ember::vulkan {

namespace {

// Pieces are multiples of this many elements, so that each piece after an aligned first one starts on
// 16 bytes too, whatever the element size.
constexpr int64_t kPieceQuantum = 1024;
// Below this many elements, a launch whose count is not a multiple of four runs as elements alone: the
// second dispatch its last few elements would need (~70 us on lavapipe) costs more than the blocks save.
constexpr int64_t kSplitAbove = int64_t{1} << 16;

// Elements [first, first + count) of the contiguous `shape`, as one dim of stride 1.
LaunchShape sub_piece(const LaunchShape& shape, int64_t first, int64_t count) {
  LaunchShape piece = shape;
  piece.ndim = 1;
  piece.sizes = {};
  piece.sizes[0] = count;
  for (int i = 0; i < shape.noperands; ++i) {
    LaunchOperand& operand = piece.operands[i];
    operand.strides = {};
    operand.strides[0] = 1;
    operand.byte_offset += static_cast<uint64_t>(first) * operand.element_size;
  }
  return piece;
}

bool starts_aligned(const LaunchShape& piece, uint64_t alignment) {
  for (int i = 0; i < piece.noperands; ++i) {
    const LaunchOperand& operand = piece.operands[i];
    if ((operand.allocation->offset() + operand.byte_offset) % alignment != 0) return false;
  }
  return true;
}

}  // namespace

ContiguousLimits contiguous_limits(const Context& context) {
  const VkPhysicalDeviceLimits& limits = context.properties.limits;
  return {.window_alignment = std::max<uint64_t>(16, limits.minStorageBufferOffsetAlignment),
          .max_window_bytes = limits.maxStorageBufferRange,
          .max_groups_x = limits.maxComputeWorkGroupCount[0]};
}

Groups groups_for_items(const ContiguousLimits& limits, int64_t items) {
  const int64_t wanted = std::max<int64_t>((items + kWorkgroupSize - 1) / kWorkgroupSize, 1);
  const int64_t row = std::min<int64_t>(wanted, limits.max_groups_x);
  return {static_cast<uint32_t>(row), static_cast<uint32_t>((wanted + row - 1) / row)};
}

bool is_contiguous(const LaunchShape& shape) {
  if (shape.ndim > 1) return false;
  for (int i = 0; shape.ndim == 1 && i < shape.noperands; ++i) {
    if (shape.operands[i].strides[0] != 1) return false;
  }
  return true;
}

std::optional<Layout> rows_layout(const Context& context, const LaunchShape& piece) {
  if (piece.ndim < 1 || piece.ndim > kRowDims || piece.numel() == 0 ||
      piece.numel() / kBlockElements >= (int64_t{1} << 24)) {
    return std::nullopt;
  }
  const int inner = piece.ndim - 1;
  if (piece.sizes[inner] % kBlockElements != 0) return std::nullopt;
  const bool four_dims = piece.ndim == 4;
  Layout layout = four_dims ? Layout::FourDimRows : Layout::Rows;
  for (int i = 0; i < piece.noperands; ++i) {
    const LaunchOperand& operand = piece.operands[i];
    const int64_t step = operand.strides[inner];
    if (i > 0 && step != 1) {
      if (step != 0) layout = four_dims ? Layout::FourDimRowsGather : Layout::RowsGather;
      continue;
    }
    if (step != 1) return std::nullopt;
    for (int d = 0; d < inner; ++d) {
      if (operand.strides[d] % kBlockElements != 0) return std::nullopt;
    }
    const Window window = operand_window(context, piece, i, i == 0);
    if (window.binding.offset % kTexelBytes != 0 || window.first_element % kBlockElements != 0) return std::nullopt;
  }
  return layout;
}

void for_each_contiguous_dispatch(
    const ContiguousLimits& limits, const LaunchShape& shape,
    const std::function<void(Layout layout, const LaunchShape& piece, Groups groups)>& dispatch) {
  const int64_t numel = shape.numel();
  if (numel == 0) return;
  const uint64_t alignment = limits.window_alignment;
  // Each operand's window, from its aligned start, within one binding, and a count that fits the push
  // constants' 32 bits.
  uint32_t widest = 1;
  for (int i = 0; i < shape.noperands; ++i) widest = std::max(widest, shape.operands[i].element_size);
  const int64_t by_window = static_cast<int64_t>((limits.max_window_bytes - alignment - 4) / widest);
  const int64_t max_piece =
      std::max(std::min<int64_t>(by_window, UINT32_MAX) / kPieceQuantum * kPieceQuantum, kPieceQuantum);
  const auto groups = [&](int64_t items) { return groups_for_items(limits, items); };
  for (int64_t first = 0; first < numel;) {
    const int64_t count = std::min(max_piece, numel - first);
    const LaunchShape piece = sub_piece(shape, first, count);
    const int64_t blocks = count / kBlockElements;
    const int64_t rest = count - blocks * kBlockElements;
    if (blocks > 0 && (rest == 0 || count >= kSplitAbove) && starts_aligned(piece, alignment)) {
      dispatch(Layout::Blocks, sub_piece(shape, first, blocks * kBlockElements), groups(blocks));
      const int64_t rest_first = first + blocks * kBlockElements;
      if (rest > 0) dispatch(Layout::Elements, sub_piece(shape, rest_first, rest), groups(rest));
    } else {
      dispatch(Layout::Elements, piece, groups(count));
    }
    first += count;
  }
}

Window contiguous_window(const ContiguousLimits& limits, const LaunchShape& piece, int i, bool write) {
  return aligned_window(piece, i, write, limits.window_alignment);
}

}  // namespace ember::vulkan
