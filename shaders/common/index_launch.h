#pragma once
// Launch helpers for kernels whose operands are not all walked element by element: an operand that
// reaches along a gathered dim (gather's in, scatter's out, multinomial's cdf), the row-major position
// of a launch piece (triangle, random draws), and 0-dim tensors seen as one element.
#include <cstdint>
#include <string_view>
#include <vector>

#include "shaders/common/launch.h"

namespace ember::vulkan {

// `ref` seen with `shape`'s sizes and a zero stride along `dim`: the launch then addresses the
// element at coordinate 0 of that dim, and the kernel adds index * stride itself. `ref` has `shape`'s
// rank; its other dims reach at least as far as `shape`'s.
TensorRef along_dim_view(const TensorRef& ref, const TensorRef& shape, int dim);

// Bytes that an operand reaches beyond each launch element along a gathered dim: `count` elements
// `stride` elements apart, of `element_bytes` each.
uint64_t reach_bytes(int64_t count, int64_t stride, size_t element_bytes);

// A slice [first, first + size) of an indexed dim.
struct DimSlice {
  int64_t first = 0;
  int64_t size = 0;
};
// The slices of an indexed dim of `count` elements `stride` apart that a launch takes one at a time:
// the whole dim when its reach fits half a binding, else slices that each reach at most half, leaving
// the other half to the rest of the operand.
std::vector<DimSlice> dim_slices(const Context& context, int64_t count, int64_t stride, size_t element_bytes);

// What for_each_window may give each operand of a launch where one also reaches `reach` bytes further.
// Throws UnsupportedError, naming `op`, when the reach alone is more than a binding can hold.
uint64_t window_limit(const Context& context, uint64_t reach, std::string_view op);

// The window of operand `i` of `piece`, widened to also hold `count` elements `stride` apart from each
// of its elements. for_each_window must have been given max_window_bytes less reach_bytes(...).
Window widened_window(const Context& context, const LaunchShape& piece, int i, bool write,
                      int64_t count, int64_t stride);

// A stand-in operand with `ref`'s sizes, contiguous, one byte per element, that is never bound: in
// every piece that plan_launch and for_each_window make of a launch that includes it, its byte offset
// is the row-major position of the piece's first element (pieces are runs of row-major positions).
TensorRef position_tracker(const TensorRef& ref);

// Whether a launch piece may take strided.glsl's rows_run (the index kernels' ROWS specialization
// constant): one or two dims, an inner dim of at least kRunElements elements, fewer than 2^24 in all.
bool takes_rows_runs(const LaunchShape& piece);

// A 0-dim view as a one-dim view of one element, for kernels that address a dim.
TensorRef at_least_1d(const TensorRef& ref);

}  // namespace ember::vulkan
