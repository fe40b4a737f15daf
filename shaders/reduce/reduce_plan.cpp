#include "shaders/reduce/reduce_plan.h"

#include <string>

#include "runtime/error.h"

namespace ember::vulkan {

int64_t Box::count() const {
  int64_t n = 1;
  for (int d = 0; d < ndim; ++d) n *= sizes[d];
  return n;
}

void Box::push_dim(int64_t size, const std::array<int64_t, kBoxOperands>& operand_strides) {
  if (size == 1) return;
  if (ndim > 0) {
    bool mergeable = true;
    for (int i = 0; i < kBoxOperands; ++i) {
      mergeable = mergeable && strides[i][ndim - 1] == operand_strides[i] * size;
    }
    if (mergeable) {
      sizes[ndim - 1] *= size;
      for (int i = 0; i < kBoxOperands; ++i) strides[i][ndim - 1] = operand_strides[i];
      return;
    }
  }
  if (ndim == kMaxDims) throw Error("a launch plan has more than 16 dims");
  sizes[ndim] = size;
  for (int i = 0; i < kBoxOperands; ++i) strides[i][ndim] = operand_strides[i];
  ++ndim;
}

int64_t Box::reach(int i) const {
  int64_t last = base[i];
  for (int d = 0; d < ndim; ++d) last += (sizes[d] - 1) * strides[i][d];
  return last + 1;
}

namespace {

Box without_outer_dim(const Box& box, int64_t position) {
  Box sub = box;
  for (int i = 0; i < kBoxOperands; ++i) {
    sub.base[i] += position * box.strides[i][0];
    for (int d = 1; d < box.ndim; ++d) sub.strides[i][d - 1] = box.strides[i][d];
  }
  for (int d = 1; d < box.ndim; ++d) sub.sizes[d - 1] = box.sizes[d];
  --sub.ndim;
  return sub;
}

}  // namespace

void split_box(const Box& box, int max_dims, const std::function<bool(const Box&)>& fits,
               const std::function<void(const Box&)>& launch, std::string_view what) {
  if (box.count() == 0) return;
  if (box.ndim <= max_dims && fits(box)) {
    launch(box);
    return;
  }
  if (box.ndim == 0) {
    throw UnsupportedError(std::string(what) +
                           ": one output's slice of the operands is larger than a buffer binding of "
                           "this device can reach");
  }
  if (box.ndim > max_dims || box.sizes[0] == 1) {
    for (int64_t position = 0; position < box.sizes[0]; ++position) {
      split_box(without_outer_dim(box, position), max_dims, fits, launch, what);
    }
    return;
  }
  const int64_t half = box.sizes[0] / 2;
  Box first = box;
  first.sizes[0] = half;
  Box second = box;
  second.sizes[0] = box.sizes[0] - half;
  for (int i = 0; i < kBoxOperands; ++i) second.base[i] += half * box.strides[i][0];
  split_box(first, max_dims, fits, launch, what);
  split_box(second, max_dims, fits, launch, what);
}

Window element_window(const Context& context, Allocation* allocation, uint64_t byte_offset,
                      uint32_t element_size, int64_t elements, bool write) {
  LaunchShape shape;
  shape.ndim = 1;
  shape.sizes[0] = elements;
  shape.noperands = 1;
  shape.operands[0].allocation = allocation;
  shape.operands[0].byte_offset = byte_offset;
  shape.operands[0].element_size = element_size;
  shape.operands[0].strides[0] = 1;
  return operand_window(context, shape, 0, write);
}

uint32_t ceil_log2(uint64_t value) {
  uint32_t log = 0;
  while ((uint64_t{1} << log) < value) ++log;
  return log;
}

}  // namespace ember::vulkan
