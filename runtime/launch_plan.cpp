#include "runtime/launch_plan.h"

#include <string>

#include "runtime/error.h"

namespace ember {

int64_t LaunchShape::numel() const {
  int64_t n = 1;
  for (int d = 0; d < ndim; ++d) n *= sizes[d];
  return n;
}

uint64_t LaunchShape::extent_bytes(int i) const {
  if (numel() == 0) return 0;
  int64_t last = 0;
  for (int d = 0; d < ndim; ++d) last += (sizes[d] - 1) * operands[i].strides[d];
  return static_cast<uint64_t>(last + 1) * operands[i].element_size;
}

LaunchShape plan_launch(std::initializer_list<const TensorRef*> operands) {
  if (operands.size() > kMaxOperands) throw Error("too many kernel operands");
  const TensorRef& first = **operands.begin();
  LaunchShape shape;
  shape.noperands = static_cast<int>(operands.size());
  int op = 0;
  for (const TensorRef* ref : operands) {
    if (ref->ndim != first.ndim) throw Error("kernel operands differ in rank");
    for (int d = 0; d < first.ndim; ++d) {
      if (ref->sizes[d] != first.sizes[d]) {
        throw Error("kernel operands differ in size at dimension " + std::to_string(d) + ": " +
                    std::to_string(first.sizes[d]) + " vs " + std::to_string(ref->sizes[d]));
      }
    }
    shape.operands[op].allocation = ref->allocation;
    shape.operands[op].byte_offset = ref->byte_offset;
    shape.operands[op].element_size = static_cast<uint32_t>(element_size(ref->dtype));
    ++op;
  }
  // Keep dims of size other than 1, outermost first.
  for (int d = 0; d < first.ndim; ++d) {
    if (first.sizes[d] == 1) continue;
    shape.sizes[shape.ndim] = first.sizes[d];
    op = 0;
    for (const TensorRef* ref : operands) shape.operands[op++].strides[shape.ndim] = ref->strides[d];
    ++shape.ndim;
  }
  // Merge a dim into its outer neighbour when every operand steps through both as one.
  int out = 0;
  for (int d = 1; d < shape.ndim; ++d) {
    bool mergeable = true;
    for (int i = 0; i < shape.noperands; ++i) {
      const auto& s = shape.operands[i].strides;
      if (s[out] != s[d] * shape.sizes[d]) mergeable = false;
    }
    if (mergeable) {
      shape.sizes[out] *= shape.sizes[d];
      for (int i = 0; i < shape.noperands; ++i) {
        shape.operands[i].strides[out] = shape.operands[i].strides[d];
      }
    } else {
      ++out;
      shape.sizes[out] = shape.sizes[d];
      for (int i = 0; i < shape.noperands; ++i) {
        shape.operands[i].strides[out] = shape.operands[i].strides[d];
      }
    }
  }
  if (shape.ndim > 0) shape.ndim = out + 1;
  return shape;
}

void for_each_piece(const LaunchShape& shape, const std::function<bool(const LaunchShape&)>& fits,
                    const std::function<void(const LaunchShape&)>& launch) {
  if (shape.numel() == 0) return;
  if (fits(shape)) {
    launch(shape);
    return;
  }
  if (shape.ndim == 0) throw Error("one element is larger than a buffer binding can reach");
  if (shape.sizes[0] == 1) {
    LaunchShape inner = shape;
    for (int d = 1; d < shape.ndim; ++d) {
      inner.sizes[d - 1] = shape.sizes[d];
      for (int i = 0; i < shape.noperands; ++i) {
        inner.operands[i].strides[d - 1] = shape.operands[i].strides[d];
      }
    }
    inner.ndim = shape.ndim - 1;
    for_each_piece(inner, fits, launch);
    return;
  }
  // Halve the outermost dim: the pieces stay regular, and the recursion is logarithmic in its size.
  LaunchShape head = shape;
  head.sizes[0] = shape.sizes[0] / 2;
  LaunchShape tail = shape;
  tail.sizes[0] = shape.sizes[0] - head.sizes[0];
  for (int i = 0; i < shape.noperands; ++i) {
    tail.operands[i].byte_offset += static_cast<uint64_t>(head.sizes[0] * shape.operands[i].strides[0]) *
                                    shape.operands[i].element_size;
  }
  for_each_piece(head, fits, launch);
  for_each_piece(tail, fits, launch);
}

void for_each_window(const LaunchShape& shape, int max_dims, uint64_t max_window_bytes,
                     const std::function<void(const LaunchShape&)>& launch) {
  const auto fits = [&](const LaunchShape& piece) {
    bool fits = piece.ndim <= max_dims;
    for (int i = 0; fits && i < piece.noperands; ++i) fits = piece.extent_bytes(i) <= max_window_bytes;
    return fits;
  };
  for_each_piece(shape, fits, launch);
}

}  // namespace ember
