#pragma once
// What every elementwise and reduction launch shares. A launch's coalesced dims and each operand's
// strides travel by value in the kernel's parameters; each thread walks a grid-stride loop over linear
// indices and turns each into one element offset per operand.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "runtime/cuda/cuda_stream.h"
#include "runtime/error.h"
#include "runtime/launch_plan.h"

namespace ember::cuda {

inline constexpr int kThreadsPerBlock = 256;
// Beyond this many blocks the grid-stride loop covers the rest; more blocks only add scheduling work.
inline constexpr int64_t kMaxBlocks = 1 << 16;

// Sizes and strides count elements, as in LaunchShape. Unused dims have stride 0.
template <int N>
struct StridedOperands {
  int ndim = 0;
  int64_t numel = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[N][kMaxDims] = {};
  void* data[N] = {};
};

template <int N>
StridedOperands<N> strided_operands(const LaunchShape& shape) {
  StridedOperands<N> operands;
  operands.ndim = shape.ndim;
  operands.numel = shape.numel();
  for (int d = 0; d < shape.ndim; ++d) operands.sizes[d] = shape.sizes[d];
  for (int k = 0; k < N; ++k) {
    const LaunchOperand& operand = shape.operands[k];
    operands.data[k] = device_pointer(*operand.allocation, operand.byte_offset);
    for (int d = 0; d < shape.ndim; ++d) operands.strides[k][d] = operand.strides[d];
  }
  return operands;
}

inline unsigned int grid_size(int64_t numel) {
  const int64_t blocks = (numel + kThreadsPerBlock - 1) / kThreadsPerBlock;
  return static_cast<unsigned int>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
}

// Reports a launch the runtime refused (bad configuration, no kernel image for this GPU).
inline void check_launch(CudaStream& stream, const char* kernel) {
  stream.context().check(cudaGetLastError(), kernel);
}

// Calls `f` with a value of the unsigned type as wide as an element. Kernels that only move bits (fill,
// copy) are instantiated per width, not per dtype.
template <class F>
void with_element_bits(size_t element_size, F&& f) {
  switch (element_size) {
    case 1: f(uint8_t{}); break;
    case 2: f(uint16_t{}); break;
    case 4: f(uint32_t{}); break;
    case 8: f(uint64_t{}); break;
    default: throw Error("no CUDA kernel moves elements of " + std::to_string(element_size) + " bytes");
  }
}

__device__ inline int64_t first_index() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ inline int64_t index_step() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

// The element offset of each operand at `linear`, a row-major index over the launch's sizes.
template <int N>
__device__ inline void element_offsets(const StridedOperands<N>& operands, int64_t linear,
                                       int64_t (&offsets)[N]) {
  // Contiguous operands coalesce into one dim, which needs no division at all.
  if (operands.ndim <= 1) {
    for (int k = 0; k < N; ++k) offsets[k] = linear * operands.strides[k][0];
    return;
  }
  for (int k = 0; k < N; ++k) offsets[k] = 0;
  for (int d = operands.ndim - 1; d > 0; --d) {
    const int64_t size = operands.sizes[d];
    const int64_t coordinate = linear % size;
    linear /= size;
    for (int k = 0; k < N; ++k) offsets[k] += coordinate * operands.strides[k][d];
  }
  // What is left is the outermost coordinate.
  for (int k = 0; k < N; ++k) offsets[k] += linear * operands.strides[k][0];
}

}  // namespace ember::cuda
