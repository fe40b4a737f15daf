#pragma once
// Host planning shared by the reduce and scan launchers. Their shaders see a tensor as outer dims (one
// result or one row each) and the dims they work along. Dims are merged where every operand traverses
// them contiguously, and a launch is split along its outer dims where the shader's push constants or a
// binding window cannot hold it.
#include <array>
#include <cstdint>
#include <functional>
#include <string_view>

#include "runtime/kernels/tensor_ref.h"
#include "shaders/common/launch.h"

namespace ember::vulkan {

inline constexpr int kBoxOperands = 3;

// Dims with each operand's element strides, and where each operand's first element lies (in elements
// from the operand's own start).
struct Box {
  int ndim = 0;
  std::array<int64_t, kMaxDims> sizes{};
  std::array<std::array<int64_t, kMaxDims>, kBoxOperands> strides{};
  std::array<int64_t, kBoxOperands> base{};

  int64_t count() const;
  // Appends a dim inside the others. Size-1 dims vanish; a dim that every operand reaches by
  // continuing the previous one merges into it.
  void push_dim(int64_t size, const std::array<int64_t, kBoxOperands>& operand_strides);
  // Elements from operand i's first element to one past its furthest, counting `base`.
  int64_t reach(int i) const;
};

// Calls `launch` with sub-boxes that cover `box` once, each with at most `max_dims` dims and accepted by
// `fits`. The outermost dim is split in halves while a box does not fit, and taken one position at a
// time while there are too many dims. Throws UnsupportedError, naming `what`, when a single position
// does not fit.
void split_box(const Box& box, int max_dims, const std::function<bool(const Box&)>& fits,
               const std::function<void(const Box&)>& launch, std::string_view what);

// The binding window of `elements` elements of `element_size` bytes from byte `byte_offset` of
// `allocation`.
Window element_window(const Context& context, Allocation* allocation, uint64_t byte_offset,
                      uint32_t element_size, int64_t elements, bool write);

// Powers of two and ceilings for launch shapes.
uint32_t ceil_log2(uint64_t value);
inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace ember::vulkan
