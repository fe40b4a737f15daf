// scan: inclusive cumulative sum, product, max, min and logsumexp along one dim.
//
// Each row (the elements along `dim` for one position of the other dims) belongs to a group of `lanes`
// threads of a block. The group walks its row in tiles of `lanes` elements: a Hillis-Steele scan in
// shared memory over the tile, then the carry of the tiles before it. The operator is associative and
// applied in a fixed order for a given shape, so results repeat exactly.
//
// A is the accumulator type: float (float32, float16, bfloat16), double, or int64_t for integers and bool.
#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels_cuda/common/device_math.cuh"
#include "kernels_cuda/common/strided_index.cuh"
#include "kernels_cuda/common/typed_operands.cuh"
#include "kernels_cuda/reduce/cuda_reduce.h"

namespace ember::cuda {

namespace {

template <class A>
struct ScanState {
  A v;
  int64_t index;  // CumMax, CumMin: where v was found
};

// The scan of `earlier` followed by `later`.
template <class A>
__host__ __device__ inline ScanState<A> scan_combine(ScanOp op, const ScanState<A>& earlier,
                                                     const ScanState<A>& later) {
  ScanState<A> s = later;
  switch (op) {
    case ScanOp::CumSum: s.v = wrap_add(earlier.v, later.v); return s;
    case ScanOp::CumProd: s.v = wrap_mul(earlier.v, later.v); return s;
    // PyTorch's cummax/cummin: a NaN always takes over (so the last NaN so far wins); otherwise ties go
    // to the later index.
    case ScanOp::CumMax:
    case ScanOp::CumMin: {
      if (is_nan(later.v)) return later;
      if (is_nan(earlier.v)) return earlier;
      const bool take_later = op == ScanOp::CumMax ? later.v >= earlier.v : later.v <= earlier.v;
      return take_later ? later : earlier;
    }
    case ScanOp::LogCumSumExp:
      if constexpr (kIsFloat<A>) s.v = log_add_exp(earlier.v, later.v);
      return s;
  }
  return s;
}

// Per row: the offsets of in, out and indices come from `rows` (operands 0, 1, 2: out, in, indices,
// over the dims other than `dim`); element j of the row is j strides further.
struct ScanGeometry {
  int64_t length;
  int64_t out_stride;
  int64_t in_stride;
  int64_t indices_stride;
  int lanes;
  int out_dtype;
  int in_dtype;
  bool has_indices;
};

template <class A>
__global__ void __launch_bounds__(kThreadsPerBlock)
    scan_kernel(const __grid_constant__ StridedOperands<3> rows, const ScanGeometry geometry, const ScanOp op) {
  __shared__ ScanState<A> slots[kThreadsPerBlock];
  const int lanes = geometry.lanes;
  const int groups = kThreadsPerBlock / lanes;
  const int thread = static_cast<int>(threadIdx.x);
  const int lane = thread % lanes;
  const int group = thread / lanes;
  const int64_t row_count = rows.numel;
  // Every thread of a block runs the same number of iterations of both loops, so the barriers inside
  // are reached by all of them.
  for (int64_t first_row = static_cast<int64_t>(blockIdx.x) * groups; first_row < row_count;
       first_row += static_cast<int64_t>(gridDim.x) * groups) {
    const int64_t row = first_row + group;
    const bool row_valid = row < row_count;
    int64_t offsets[3] = {0, 0, 0};
    if (row_valid) element_offsets(rows, row, offsets);
    ScanState<A> carry{};
    for (int64_t tile = 0; tile < geometry.length; tile += lanes) {
      const int64_t j = tile + lane;
      const bool active = row_valid && j < geometry.length;
      ScanState<A> state{};
      if (active) {
        state.v = load_as<A>(geometry.in_dtype, rows.data[1], offsets[1] + j * geometry.in_stride);
        state.index = j;
      }
      slots[thread] = state;
      __syncthreads();
      for (int step = 1; step < lanes; step *= 2) {
        const bool has_earlier = lane >= step;
        ScanState<A> earlier{};
        if (has_earlier) earlier = slots[thread - step];
        __syncthreads();
        if (has_earlier) {
          state = scan_combine(op, earlier, state);
          slots[thread] = state;
        }
        __syncthreads();
      }
      if (tile > 0) state = scan_combine(op, carry, state);
      if (active) {
        store_as<A>(geometry.out_dtype, rows.data[0], offsets[0] + j * geometry.out_stride, state.v);
        if (geometry.has_indices) {
          static_cast<int64_t*>(rows.data[2])[offsets[2] + j * geometry.indices_stride] = state.index;
        }
      }
      // The tile's last lane holds the scan through the end of this tile.
      const ScanState<A> tile_total = slots[group * lanes + lanes - 1];
      carry = tile > 0 ? scan_combine(op, carry, tile_total) : tile_total;
      __syncthreads();
    }
  }
}

// `ref` without dim `dim`: the view of the first element of each row.
TensorRef without_dim(const TensorRef& ref, int dim) {
  TensorRef rows = ref;
  if (ref.ndim == 0) return rows;
  rows.ndim = ref.ndim - 1;
  for (int d = dim; d < rows.ndim; ++d) {
    rows.sizes[d] = ref.sizes[d + 1];
    rows.strides[d] = ref.strides[d + 1];
  }
  return rows;
}

// The host compiler checks scan_combine's switch only where it compiles it: here.
template ScanState<float> scan_combine<float>(ScanOp, const ScanState<float>&, const ScanState<float>&);

}  // namespace

void CudaReduce::scan(Stream& stream, const ScanArgs& args) {
  const ScanOp op = args.op;
  const TensorRef& out = args.out;
  const TensorRef* indices = args.indices ? &*args.indices : nullptr;
  const TensorRef& in = args.in;
  const int dim = args.dim;
  const DType compute = args.compute;
  args.check();
  // Only CumMax and CumMin write indices (args.check() requires them there).
  const bool has_indices = indices != nullptr && (op == ScanOp::CumMax || op == ScanOp::CumMin);

  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  const TensorRef out_rows = without_dim(out, dim);
  const TensorRef in_rows = without_dim(in, dim);
  // Without indices, out's rows stand in for them (their pointer is never written).
  const TensorRef indices_rows = has_indices ? without_dim(*indices, dim) : out_rows;
  const LaunchShape shape = plan_launch({&out_rows, &in_rows, &indices_rows});
  const int64_t length = in.ndim == 0 ? 1 : in.sizes[dim];
  if (shape.numel() == 0 || length == 0) return;

  ScanGeometry geometry{};
  geometry.length = length;
  geometry.out_stride = out.ndim == 0 ? 0 : out.strides[dim];
  geometry.in_stride = in.ndim == 0 ? 0 : in.strides[dim];
  geometry.indices_stride = has_indices && indices->ndim > 0 ? indices->strides[dim] : 0;
  int lanes = 1;
  while (lanes < length && lanes < kThreadsPerBlock) lanes *= 2;
  geometry.lanes = lanes;
  geometry.out_dtype = dtype_code(out.dtype);
  geometry.in_dtype = dtype_code(in.dtype);
  geometry.has_indices = has_indices;

  const auto rows = strided_operands<3>(shape);
  const int64_t row_blocks = (shape.numel() + kThreadsPerBlock / lanes - 1) / (kThreadsPerBlock / lanes);
  const auto blocks = static_cast<unsigned int>(std::min(row_blocks, kMaxBlocks));
  with_accumulator_type(compute, [&](auto zero) {
    using A = decltype(zero);
    scan_kernel<A><<<blocks, kThreadsPerBlock, 0, cuda_stream.handle()>>>(rows, geometry, op);
  });
  check_launch(cuda_stream, "the scan kernel's launch");
  cuda_stream.note_dispatch({out.allocation, in.allocation, has_indices ? indices->allocation : nullptr});
}

}  // namespace ember::cuda
