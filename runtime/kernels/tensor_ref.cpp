#include "runtime/kernels/tensor_ref.h"

#include "runtime/error.h"

namespace ember {

TensorRef TensorRef::contiguous(Allocation& allocation, DType dtype,
                                std::initializer_list<int64_t> sizes, uint64_t byte_offset) {
  if (sizes.size() > kMaxDims) throw Error("tensors have at most 16 dimensions");
  TensorRef ref;
  ref.allocation = &allocation;
  ref.byte_offset = byte_offset;
  ref.dtype = dtype;
  ref.ndim = static_cast<int>(sizes.size());
  int d = 0;
  for (int64_t size : sizes) ref.sizes[d++] = size;
  int64_t stride = 1;
  for (int i = ref.ndim - 1; i >= 0; --i) {
    ref.strides[i] = stride;
    stride *= ref.sizes[i];
  }
  return ref;
}

int64_t TensorRef::numel() const {
  int64_t n = 1;
  for (int d = 0; d < ndim; ++d) n *= sizes[d];
  return n;
}

bool TensorRef::is_contiguous() const {
  int64_t expected = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    if (sizes[d] != 1 && strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

uint64_t TensorRef::extent_bytes() const {
  if (numel() == 0) return 0;
  int64_t last = 0;
  for (int d = 0; d < ndim; ++d) last += (sizes[d] - 1) * strides[d];
  return static_cast<uint64_t>(last + 1) * element_size(dtype);
}

}  // namespace ember
