#pragma once
// Turns kernel arguments into launches that both backends can take: dims that all operands traverse
// contiguously are merged, and a launch whose operands span more than one buffer binding can reach, or
// that has more dims than a kernel's push constants hold, is split along its outer dims.
#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>

#include "runtime/kernels/tensor_ref.h"

namespace ember {

inline constexpr int kMaxOperands = 5;

struct LaunchOperand {
  Allocation* allocation = nullptr;
  uint64_t byte_offset = 0;
  uint32_t element_size = 0;
  std::array<int64_t, kMaxDims> strides{};
};

struct LaunchShape {
  int ndim = 0;
  std::array<int64_t, kMaxDims> sizes{};
  int noperands = 0;
  std::array<LaunchOperand, kMaxOperands> operands{};

  int64_t numel() const;
  // Bytes from operand `i`'s first element to one past the furthest element it reaches.
  uint64_t extent_bytes(int i) const;
};

// All operands must have the first operand's sizes. Throws Error when they differ.
LaunchShape plan_launch(std::initializer_list<const TensorRef*> operands);

// Calls `launch` for pieces that together cover `shape` once, in row-major order, each one that `fits`
// accepts: a size-1 outermost dim is dropped, otherwise the outermost dim is halved, until it fits. An
// empty shape gives no pieces; one element that does not fit is an Error.
void for_each_piece(const LaunchShape& shape, const std::function<bool(const LaunchShape&)>& fits,
                    const std::function<void(const LaunchShape&)>& launch);

// Calls `launch` for pieces that together cover `shape` once, each with at most `max_dims` dims and each
// operand's extent at most `max_window_bytes`. An empty shape gives no pieces.
void for_each_window(const LaunchShape& shape, int max_dims, uint64_t max_window_bytes,
                     const std::function<void(const LaunchShape&)>& launch);

}  // namespace ember
