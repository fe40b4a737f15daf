#pragma once
// The kernel interface. Declared once here, implemented by shaders/ (Vulkan) and kernels_cuda/ (CUDA).
// Arguments are plain tensor descriptions, so runtime/ knows nothing of tensor/. A backend that lacks a
// kernel for a dtype throws UnsupportedError; nothing is ever computed on the host instead.
#include <array>
#include <cstdint>
#include <initializer_list>

#include "runtime/dtype.h"
#include "runtime/scalar.h"

namespace ember {

class Allocation;
class Stream;

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

enum class BinaryOp { Add, Mul };

class Kernels {
 public:
  virtual ~Kernels() = default;
  // out[...] = value, for every dtype.
  virtual void fill(Stream& stream, const TensorRef& out, Scalar value) = 0;
  // out[...] = in[...] for same-dtype views of equal sizes, any strides (strided to contiguous and back).
  virtual void copy(Stream& stream, const TensorRef& out, const TensorRef& in) = 0;
  // out = a op b. a and b have out's sizes; broadcasting arrives as zero strides. float32 for now.
  virtual void binary(Stream& stream, BinaryOp op, const TensorRef& out, const TensorRef& a,
                      const TensorRef& b) = 0;
  // out (one element) = sum of every element of in. float32 for now, tree-ordered.
  virtual void sum(Stream& stream, const TensorRef& out, const TensorRef& in) = 0;
};

}  // namespace ember
