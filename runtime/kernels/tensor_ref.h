#pragma once
// What kernels take instead of tensors: a strided view of device memory (TensorRef), or for elementwise
// operands, a host scalar (Operand). runtime/ knows nothing of tensor/; a Tensor makes its TensorRef.
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>

#include "runtime/dtype.h"
#include "runtime/scalar.h"

namespace ember {

class Allocation;

inline constexpr int kMaxDims = 16;

// A strided view of device memory: sizes and strides count elements; byte_offset counts from the start
// of the allocation. The caller keeps the allocation alive while the call records its work.
struct TensorRef {
  Allocation* allocation = nullptr;
  uint64_t byte_offset = 0;
  DType dtype = DType::Float32;
  int ndim = 0;
  std::array<int64_t, kMaxDims> sizes{};
  std::array<int64_t, kMaxDims> strides{};

  static TensorRef contiguous(Allocation& allocation, DType dtype,
                              std::initializer_list<int64_t> sizes, uint64_t byte_offset = 0);
  int64_t numel() const;
  bool is_contiguous() const;
  // Bytes from the first element to one past the furthest element the view can reach.
  uint64_t extent_bytes() const;
};

// An elementwise operand: a tensor, or a host scalar that travels in the launch's arguments.
struct Operand {
  Operand() = default;
  Operand(const TensorRef& tensor) : tensor(tensor) {}
  Operand(Scalar scalar) : scalar(scalar) {}
  TensorRef tensor;
  std::optional<Scalar> scalar;
  bool is_scalar() const { return scalar.has_value(); }
};

}  // namespace ember
