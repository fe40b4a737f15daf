#pragma once
// Host side of contiguous.glsl: the dispatches of the elementwise shaders' fast paths, for launches
// whose operands are all contiguous. A launch is covered by LAYOUT_BLOCKS dispatches (four elements per
// invocation, moved as whole words) where every operand starts on 16 bytes, and LAYOUT_ELEMENTS ones
// (one element per invocation, no index arithmetic) for the rest.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>

#include "runtime/launch_plan.h"
#include "shaders/common/launch.h"

namespace ember::vulkan {

// The LAYOUT specialization constant of contiguous.glsl.
enum class Layout : uint32_t {
  Strided = 0,
  Elements = 1,
  Blocks = 2,
  Rows = 3,
  RowsGather = 4,
  FourDimRows = 5,
  FourDimRowsGather = 6,
};
inline bool is_rows(Layout layout) { return layout >= Layout::Rows; }

// What a device allows contiguous launches.
struct ContiguousLimits {
  uint64_t window_alignment = 16;  // where windows start: 16 bytes, or the device's binding alignment
  uint64_t max_window_bytes = 0;   // maxStorageBufferRange
  uint32_t max_groups_x = 1;       // maxComputeWorkGroupCount[0]
};
ContiguousLimits contiguous_limits(const Context& context);

// Workgroups for one invocation per item, in rows of at most the device's limit: the elementwise shaders
// index their items as launch_item() of contiguous.glsl does, with no grid-stride loop.
struct Groups {
  uint32_t x = 1;
  uint32_t y = 1;
};
Groups groups_for_items(const ContiguousLimits& limits, int64_t items);

// Whether every operand of `shape` (from plan_launch) steps through memory one element at a time, so
// that the launch can take a contiguous layout.
bool is_contiguous(const LaunchShape& shape);

// Dims of a rows launch, at most: contiguous.glsl's row_item reads the first four slots.
inline constexpr int kRowDims = 4;

// The rows layout a piece of a strided launch (for_each_window's) can take, if any. All need at most
// kRowDims dims (the FourDim ones four, the others fewer) and fewer than 2^24 blocks of four elements,
// the innermost dim a multiple of four elements along which out steps by one element, and each operand
// that steps by one to start every row on a block (its window's first element and its other strides
// multiples of four, its window on 16 bytes). Rows: every input steps by one or none (a broadcast);
// RowsGather: some input steps otherwise (a transposed one), and loads its elements one by one.
std::optional<Layout> rows_layout(const Context& context, const LaunchShape& piece);

// Fills StridedParams for a piece that takes a rows_layout: fill_params's windows, dims and strides, the
// dims moved to the last kRowDims slots behind outer dims of one.
template <int N, class Extra, int MaxDims>
void fill_rows_params(const Context& context, const LaunchShape& piece, StridedParams<N, Extra, MaxDims>& params,
                      std::span<Binding> bindings, std::span<const bool> writes) {
  static_assert(MaxDims >= kRowDims);
  fill_params(context, piece, params, bindings, writes);
  const int shift = kRowDims - piece.ndim;
  params.ndim = kRowDims;
  // From the innermost down, so that each slot is read before it is overwritten.
  for (int d = kRowDims - 1; d >= 0; --d) {
    params.sizes[d] = d >= shift ? params.sizes[d - shift] : 1;
    for (int i = 0; i < N; ++i) {
      params.strides[i * MaxDims + d] = d >= shift ? params.strides[i * MaxDims + d - shift] : 0;
    }
  }
}

// Calls `dispatch` for dispatches that cover the contiguous `shape` once, in order. Each piece has one
// dim of stride 1 in every operand and fits one binding window; `groups` has one invocation per element
// (LAYOUT_ELEMENTS) or per block of four (LAYOUT_BLOCKS, whose piece then has a multiple of four
// elements and operands that start on window_alignment). Fill the push constants with
// fill_contiguous_params.
void for_each_contiguous_dispatch(
    const ContiguousLimits& limits, const LaunchShape& shape,
    const std::function<void(Layout layout, const LaunchShape& piece, Groups groups)>& dispatch);

// The window of operand `i` of a contiguous piece, starting on window_alignment, so that an operand
// that starts there has first_element 0.
Window contiguous_window(const ContiguousLimits& limits, const LaunchShape& piece, int i, bool write);

// Fills StridedParams for a piece of for_each_contiguous_dispatch: the element count, each operand's
// window and first element, and one dim of stride 1.
template <int N, class Extra, int MaxDims>
void fill_contiguous_params(const ContiguousLimits& limits, const LaunchShape& piece,
                            StridedParams<N, Extra, MaxDims>& params, std::span<Binding> bindings,
                            std::span<const bool> writes) {
  params.numel = static_cast<uint32_t>(piece.numel());
  params.ndim = 1;
  for (int d = 0; d < MaxDims; ++d) params.sizes[d] = d == 0 ? params.numel : 1;
  for (int i = 0; i < N; ++i) {
    const Window window = contiguous_window(limits, piece, i, writes[i]);
    bindings[i] = window.binding;
    params.offsets[i] = window.first_element;
    for (int d = 0; d < MaxDims; ++d) params.strides[i * MaxDims + d] = d == 0 ? 1 : 0;
  }
}

}  // namespace ember::vulkan
