// The index kernels that only move elements: gather, triangle (tril/triu) and nonzero. gather and
// triangle copy bits, so they are instantiated per element width, not per dtype. Registers the CUDA
// index family.
#include <cstdint>
#include <string>

#include "kernels_cuda/common/strided_index.cuh"
#include "kernels_cuda/common/typed_operands.cuh"
#include "kernels_cuda/index/cuda_index.h"

namespace ember::cuda {

namespace {

// Operands: out, index (int64), in. `in` comes with stride 0 along dim, so its offset covers the other
// dims; the index adds index * dim_stride.
template <class Bits>
__global__ void __launch_bounds__(kThreadsPerBlock)
    gather_kernel(const __grid_constant__ StridedOperands<3> operands, const int64_t dim_size,
                  const int64_t dim_stride) {
  Bits* out = static_cast<Bits*>(operands.data[0]);
  const int64_t* index = static_cast<const int64_t*>(operands.data[1]);
  const Bits* in = static_cast<const Bits*>(operands.data[2]);
  for (int64_t i = first_index(); i < operands.numel; i += index_step()) {
    int64_t offsets[3];
    element_offsets(operands, i, offsets);
    int64_t position = index[offsets[1]];
    if (position < 0) position += dim_size;
    // An index still out of range reads zero rather than memory the view does not own.
    out[offsets[0]] = position >= 0 && position < dim_size ? in[offsets[2] + position * dim_stride] : Bits(0);
  }
}

// Operands out and in over all their dims, unmerged, so that the last two coordinates come from i.
template <class Bits>
__global__ void __launch_bounds__(kThreadsPerBlock)
    triangle_kernel(const __grid_constant__ StridedOperands<2> operands, const int64_t diagonal, const bool upper) {
  Bits* out = static_cast<Bits*>(operands.data[0]);
  const Bits* in = static_cast<const Bits*>(operands.data[1]);
  const int64_t rows = operands.sizes[operands.ndim - 2];
  const int64_t columns = operands.sizes[operands.ndim - 1];
  for (int64_t i = first_index(); i < operands.numel; i += index_step()) {
    int64_t offsets[2];
    element_offsets(operands, i, offsets);
    const int64_t column = i % columns;
    const int64_t row = (i / columns) % rows;
    const bool keep = upper ? column - row >= diagonal : column - row <= diagonal;
    out[offsets[0]] = keep ? in[offsets[1]] : Bits(0);
  }
}

// `in` over all its dims, unmerged, so that i's coordinates are its row-major position in `in`.
__global__ void __launch_bounds__(kThreadsPerBlock)
    nonzero_kernel(const __grid_constant__ StridedOperands<1> in, const int in_dtype, const int64_t* positions,
                   int64_t* out, const int64_t row_stride, const int64_t column_stride) {
  for (int64_t i = first_index(); i < in.numel; i += index_step()) {
    int64_t offsets[1];
    element_offsets(in, i, offsets);
    // Every dtype's zero is zero as a double, and so is -0.0; NaN is nonzero.
    if (load_as<double>(in_dtype, in.data[0], offsets[0]) == 0.0) continue;
    int64_t* row = out + (positions[i] - 1) * row_stride;
    int64_t linear = i;
    for (int d = in.ndim - 1; d >= 0; --d) {
      row[d * column_stride] = linear % in.sizes[d];
      linear /= in.sizes[d];
    }
  }
}

// A launch over `refs` with every dim kept as it is (plan_launch would merge them).
template <int N>
StridedOperands<N> unmerged_operands(const TensorRef* const (&refs)[N]) {
  LaunchShape shape;
  shape.ndim = refs[0]->ndim;
  shape.noperands = N;
  for (int d = 0; d < shape.ndim; ++d) shape.sizes[d] = refs[0]->sizes[d];
  for (int k = 0; k < N; ++k) {
    shape.operands[k].allocation = refs[k]->allocation;
    shape.operands[k].byte_offset = refs[k]->byte_offset;
    shape.operands[k].element_size = static_cast<uint32_t>(element_size(refs[k]->dtype));
    shape.operands[k].strides = refs[k]->strides;
  }
  return strided_operands<N>(shape);
}

void check_dim(const char* kernel, const TensorRef& ref, int dim) {
  const bool valid = ref.ndim == 0 ? dim == 0 : dim >= 0 && dim < ref.ndim;
  if (!valid) {
    throw Error(std::string(kernel) + " kernel: dim " + std::to_string(dim) + " is out of range for " +
                std::to_string(ref.ndim) + " dims");
  }
}

}  // namespace

void CudaIndex::gather(Stream& stream, const GatherArgs& args) {
  const TensorRef& out = args.out;
  const TensorRef& in = args.in;
  const int dim = args.dim;
  const TensorRef& index = args.index;
  if (out.dtype != in.dtype) throw Error("gather kernel: out and in differ in dtype");
  if (index.dtype != DType::Int64) throw Error("gather kernel: the index must be int64");
  if (in.ndim != out.ndim) throw Error("gather kernel: out and in differ in rank");
  check_dim("gather", in, dim);
  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  TensorRef in_view = in;
  int64_t dim_size = 1;
  int64_t dim_stride = 0;
  if (in.ndim > 0) {
    dim_size = in.sizes[dim];
    dim_stride = in.strides[dim];
    in_view.sizes = out.sizes;
    in_view.strides[dim] = 0;
  }
  const LaunchShape shape = plan_launch({&out, &index, &in_view});
  if (shape.numel() == 0) return;
  const auto operands = strided_operands<3>(shape);
  with_element_bits(element_size(out.dtype), [&](auto zero) {
    using Bits = decltype(zero);
    gather_kernel<Bits><<<grid_size(operands.numel), kThreadsPerBlock, 0, cuda_stream.handle()>>>(
        operands, dim_size, dim_stride);
  });
  check_launch(cuda_stream, "the gather kernel's launch");
  cuda_stream.note_dispatch({out.allocation, index.allocation, in.allocation});
}

void CudaIndex::triangle(Stream& stream, const TriangleArgs& args) {
  const TensorRef& out = args.out;
  const TensorRef& in = args.in;
  const int64_t diagonal = args.diagonal;
  const bool upper = args.upper;
  if (out.dtype != in.dtype) throw Error("triangle kernel: out and in differ in dtype");
  if (in.ndim < 2 || out.ndim != in.ndim) throw Error("triangle kernel: needs out and in of the same rank, at least 2");
  for (int d = 0; d < in.ndim; ++d) {
    if (out.sizes[d] != in.sizes[d]) throw Error("triangle kernel: out and in differ in size");
  }
  if (in.numel() == 0) return;
  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  const TensorRef* const refs[2] = {&out, &in};
  const auto operands = unmerged_operands<2>(refs);
  with_element_bits(element_size(out.dtype), [&](auto zero) {
    using Bits = decltype(zero);
    triangle_kernel<Bits><<<grid_size(operands.numel), kThreadsPerBlock, 0, cuda_stream.handle()>>>(
        operands, diagonal, upper);
  });
  check_launch(cuda_stream, "the triangle kernel's launch");
  cuda_stream.note_dispatch({out.allocation, in.allocation});
}

void CudaIndex::nonzero(Stream& stream, const NonzeroArgs& args) {
  const TensorRef& out = args.out;
  const TensorRef& in = args.in;
  const TensorRef& positions = args.positions;
  if (out.dtype != DType::Int64 || positions.dtype != DType::Int64) {
    throw Error("nonzero kernel: out and positions must be int64");
  }
  if (out.ndim != 2) throw Error("nonzero kernel: out must have two dims");
  if (in.numel() == 0 || in.ndim == 0 || out.sizes[0] == 0) return;  // no coordinates to write
  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  const TensorRef* const refs[1] = {&in};
  const auto operands = unmerged_operands<1>(refs);
  nonzero_kernel<<<grid_size(operands.numel), kThreadsPerBlock, 0, cuda_stream.handle()>>>(
      operands, dtype_code(in.dtype), static_cast<const int64_t*>(device_pointer(*positions.allocation, positions.byte_offset)),
      static_cast<int64_t*>(device_pointer(*out.allocation, out.byte_offset)), out.strides[0], out.strides[1]);
  check_launch(cuda_stream, "the nonzero kernel's launch");
  cuda_stream.note_dispatch({out.allocation, in.allocation, positions.allocation});
}

EMBER_CUDA_KERNELS(IndexKernels, CudaIndex);

}  // namespace ember::cuda
