// reduce: every ReduceOp over any set of dims, as a tree of merges (reduce_ops.cuh).
//
// The input is seen as outputs × length: the kept dims give the output index, the reduced dims the
// reduction index (each coalesced separately). A block of 256 threads serves 256 / lanes outputs with
// `lanes` threads each. Each thread merges its strided share of the reduction into one state, then each
// output's lanes merge pairwise through shared memory. When outputs are too few to fill the GPU, the
// reduction is also split across blocks (grid.y); the split states go to scratch memory and a second
// launch merges them the same way. The geometry depends on the shape alone, so the order of the merges,
// and every result, repeats from run to run and GPU to GPU.
#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels_cuda/common/strided_index.cuh"
#include "kernels_cuda/common/typed_operands.cuh"
#include "kernels_cuda/reduce/cuda_reduce.h"
#include "kernels_cuda/reduce/reduce_ops.cuh"

namespace ember::cuda {

namespace {

// Blocks enough to keep a large GPU busy; fewer output blocks than this split the reduction.
constexpr int64_t kTargetBlocks = 1024;
constexpr int64_t kMaxSplits = 256;
// Splitting a reduction finer than this many elements per thread costs more than it gains.
constexpr int64_t kMinElementsPerThread = 16;

// Coalesced dims of one side of the reduction: a linear index, row-major over them, gives an offset.
struct DimWalk {
  int ndim;
  int64_t sizes[kMaxDims];
  int64_t strides[kMaxDims];
};

struct ReduceGeometry {
  DimWalk kept;      // output index -> input offset
  DimWalk reduced;   // reduction index -> input offset
  int64_t outputs;   // product of the kept sizes
  int64_t length;    // product of the reduced sizes
  int64_t chunk;     // reduction indices per split (blockIdx.y)
  int lanes;         // threads per output: a power of two, at most kThreadsPerBlock
  bool lanes_adjacent;  // neighbouring threads share an output (else they take neighbouring outputs)
};

// Where the results go: out (contiguous, any dtype) and indices (contiguous int64), either may be null.
struct ReduceResults {
  void* out;
  int out_dtype;
  int64_t* indices;
};

__device__ inline int64_t walk_offset(const DimWalk& walk, int64_t linear) {
  if (walk.ndim == 0) return 0;
  int64_t offset = 0;
  for (int d = walk.ndim - 1; d > 0; --d) {
    const int64_t size = walk.sizes[d];
    offset += (linear % size) * walk.strides[d];
    linear /= size;
  }
  return offset + linear * walk.strides[0];
}

// Merges the states of each group's `lanes` threads pairwise; the group's result is returned to every
// thread (lane 0 uses it). Every thread of the block must call this.
template <class A>
__device__ ReduceState<A> merge_lanes(const ReduceParams& params, ReduceState<A>* slots, const ReduceState<A>& state,
                                      int lane, int group, int lanes, int groups) {
  const int slot = lane * groups + group;
  slots[slot] = state;
  __syncthreads();
  for (int stride = lanes / 2; stride > 0; stride /= 2) {
    if (lane < stride) slots[slot] = reduce_merge(params, slots[slot], slots[slot + stride * groups]);
    __syncthreads();
  }
  return slots[group];
}

template <class A>
__device__ void store_result(const ReduceParams& params, const ReduceResults& results, int64_t output,
                             const ReduceState<A>& state) {
  if (results.out != nullptr) {
    if (params.op == ReduceOp::CountNonzero) {
      store_as<int64_t>(results.out_dtype, results.out, output, state.n);
    } else {
      store_as<A>(results.out_dtype, results.out, output, reduce_value(params, state));
    }
  }
  if (results.indices != nullptr) results.indices[output] = state.index;
}

// Pass one: each group reduces chunk blockIdx.y of its output's reduction. With `partials`, the states
// go there ([output][split]); without, the results go to `results`.
template <class A>
__global__ void __launch_bounds__(kThreadsPerBlock)
    reduce_kernel(const __grid_constant__ ReduceGeometry geometry, const ReduceParams params, const void* in,
                  const int in_dtype, ReduceState<A>* partials, const ReduceResults results) {
  __shared__ ReduceState<A> slots[kThreadsPerBlock];
  const int lanes = geometry.lanes;
  const int groups = kThreadsPerBlock / lanes;
  const int thread = static_cast<int>(threadIdx.x);
  const int lane = geometry.lanes_adjacent ? thread % lanes : thread / groups;
  const int group = geometry.lanes_adjacent ? thread / lanes : thread % groups;
  const int64_t output = static_cast<int64_t>(blockIdx.x) * groups + group;
  const int64_t begin = static_cast<int64_t>(blockIdx.y) * geometry.chunk;
  const int64_t end = begin + geometry.chunk < geometry.length ? begin + geometry.chunk : geometry.length;

  ReduceState<A> state = reduce_identity<A>(params);
  if (output < geometry.outputs) {
    const int64_t base = walk_offset(geometry.kept, output);
    for (int64_t r = begin + lane; r < end; r += lanes) {
      const A x = load_as<A>(in_dtype, in, base + walk_offset(geometry.reduced, r));
      state = reduce_merge(params, state, reduce_lift(params, x, r));
    }
  }
  state = merge_lanes(params, slots, state, lane, group, lanes, groups);
  if (lane != 0 || output >= geometry.outputs) return;
  if (partials != nullptr) {
    partials[output * gridDim.y + blockIdx.y] = state;
  } else {
    store_result(params, results, output, state);
  }
}

// Pass two: each group merges its output's `splits` states from pass one, lanes adjacent.
template <class A>
__global__ void __launch_bounds__(kThreadsPerBlock)
    reduce_partials_kernel(const ReduceState<A>* partials, const int64_t outputs, const int splits,
                           const int lanes, const ReduceParams params, const ReduceResults results) {
  __shared__ ReduceState<A> slots[kThreadsPerBlock];
  const int groups = kThreadsPerBlock / lanes;
  const int lane = static_cast<int>(threadIdx.x) % lanes;
  const int group = static_cast<int>(threadIdx.x) / lanes;
  const int64_t output = static_cast<int64_t>(blockIdx.x) * groups + group;
  ReduceState<A> state = reduce_identity<A>(params);
  if (output < outputs) {
    for (int s = lane; s < splits; s += lanes) state = reduce_merge(params, state, partials[output * splits + s]);
  }
  state = merge_lanes(params, slots, state, lane, group, lanes, groups);
  if (lane == 0 && output < outputs) store_result(params, results, output, state);
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t power_of_two_at_least(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

// Appends a dim (outermost first), merging it into the previous one when one stride steps through both.
void append_dim(DimWalk& walk, int64_t size, int64_t stride) {
  if (size == 1) return;
  if (walk.ndim > 0 && walk.strides[walk.ndim - 1] == stride * size) {
    walk.sizes[walk.ndim - 1] *= size;
    walk.strides[walk.ndim - 1] = stride;
    return;
  }
  walk.sizes[walk.ndim] = size;
  walk.strides[walk.ndim] = stride;
  ++walk.ndim;
}

int64_t walk_numel(const DimWalk& walk) {
  int64_t n = 1;
  for (int d = 0; d < walk.ndim; ++d) n *= walk.sizes[d];
  return n;
}

ReduceGeometry plan_reduction(const TensorRef& in, uint32_t reduce_mask) {
  ReduceGeometry geometry{};
  for (int d = 0; d < in.ndim; ++d) {
    DimWalk& walk = (reduce_mask >> d) & 1u ? geometry.reduced : geometry.kept;
    append_dim(walk, in.sizes[d], in.strides[d]);
  }
  geometry.outputs = walk_numel(geometry.kept);
  geometry.length = walk_numel(geometry.reduced);
  const int64_t length = geometry.length;
  const bool reduced_contiguous =
      geometry.reduced.ndim > 0 && geometry.reduced.strides[geometry.reduced.ndim - 1] == 1;
  if (geometry.outputs == 1 || reduced_contiguous) {
    // Neighbouring lanes read neighbouring elements of one reduction.
    geometry.lanes = static_cast<int>(std::min<int64_t>(kThreadsPerBlock, power_of_two_at_least(length)));
    geometry.lanes_adjacent = true;
  } else {
    // Neighbouring threads take neighbouring outputs, which are what lie next to each other in memory
    // when the reduced dims are the outer ones.
    const int64_t groups = std::min<int64_t>(kThreadsPerBlock, power_of_two_at_least(geometry.outputs));
    geometry.lanes = static_cast<int>(std::min<int64_t>(kThreadsPerBlock / groups, power_of_two_at_least(length)));
    geometry.lanes_adjacent = false;
  }
  const int64_t groups = kThreadsPerBlock / geometry.lanes;
  const int64_t blocks = ceil_div(geometry.outputs, groups);
  int64_t splits = 1;
  if (length > 0 && blocks > 0 && blocks < kTargetBlocks) {  // no outputs: no blocks to spread
    splits = std::min({ceil_div(kTargetBlocks, blocks), ceil_div(length, geometry.lanes * kMinElementsPerThread),
                       kMaxSplits});
    splits = std::max<int64_t>(splits, 1);
  }
  geometry.chunk = length > 0 ? ceil_div(length, splits) : 0;
  return geometry;
}

int64_t split_count(const ReduceGeometry& geometry) {
  return geometry.length > 0 ? ceil_div(geometry.length, geometry.chunk) : 1;
}

ReduceParams reduce_params(ReduceOp op, double param) {
  ReduceParams params{};
  params.op = op;
  params.param = param;
  params.norm = NormKind::Other;
  if (op == ReduceOp::Norm) {
    if (param == 0.0) params.norm = NormKind::Zero;
    else if (param == 1.0) params.norm = NormKind::One;
    else if (param == 2.0) params.norm = NormKind::Two;
    else if (param == INFINITY) params.norm = NormKind::Infinity;
    else if (param == -INFINITY) params.norm = NormKind::NegativeInfinity;
  }
  return params;
}

}  // namespace

// The host compiler checks the op switches of reduce_ops.cuh only where it compiles them: here.
template ReduceState<float> reduce_lift<float>(const ReduceParams&, float, int64_t);
template ReduceState<float> reduce_merge<float>(const ReduceParams&, const ReduceState<float>&,
                                                const ReduceState<float>&);
template float reduce_value<float>(const ReduceParams&, const ReduceState<float>&);

void CudaReduce::reduce(Stream& stream, const ReduceArgs& args) {
  args.check();
  const ReduceOp op = args.op;
  const bool arg_only = op == ReduceOp::Argmax || op == ReduceOp::Argmin;
  const bool has_indices = arg_only || op == ReduceOp::Max || op == ReduceOp::Min;
  // What the op writes: the arg-ops no values, the others but Max and Min no indices.
  const TensorRef* out = args.out && !arg_only ? &*args.out : nullptr;
  const TensorRef* indices = args.indices && has_indices ? &*args.indices : nullptr;
  const TensorRef& in = args.in;
  const uint32_t reduce_mask = args.reduce_mask;
  const DType compute = args.compute;
  const double param = op == ReduceOp::Norm ? args.p : args.correction;
  require_domain(op_domain(op), compute, "reduce", reduce_op_name(op));

  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  const ReduceGeometry geometry = plan_reduction(in, reduce_mask);
  if (geometry.outputs == 0) return;
  const int64_t splits = split_count(geometry);
  const int64_t groups = kThreadsPerBlock / geometry.lanes;
  const int64_t blocks = ceil_div(geometry.outputs, groups);
  if (blocks > INT32_MAX) throw Error("reduce kernel: too many outputs for one launch");

  ReduceResults results{};
  results.out = out != nullptr ? device_pointer(*out->allocation, out->byte_offset) : nullptr;
  results.out_dtype = out != nullptr ? dtype_code(out->dtype) : dtype_code(DType::Int64);
  results.indices = indices != nullptr
                        ? static_cast<int64_t*>(device_pointer(*indices->allocation, indices->byte_offset))
                        : nullptr;
  const ReduceParams params = reduce_params(op, param);
  // An empty reduction reads nothing, and its input may have no memory at all.
  const void* input = geometry.length > 0 ? device_pointer(*in.allocation, in.byte_offset) : nullptr;
  Allocation* const out_allocation = out != nullptr ? out->allocation : nullptr;
  Allocation* const indices_allocation = indices != nullptr ? indices->allocation : nullptr;
  const dim3 grid(static_cast<unsigned int>(blocks), static_cast<unsigned int>(splits));

  with_accumulator_type(compute, [&](auto zero) {
    using A = decltype(zero);
    if (splits == 1) {
      reduce_kernel<A><<<grid, kThreadsPerBlock, 0, cuda_stream.handle()>>>(
          geometry, params, input, dtype_code(in.dtype), nullptr, results);
      check_launch(cuda_stream, "the reduce kernel's launch");
      cuda_stream.note_dispatch({in.allocation, out_allocation, indices_allocation});
      return;
    }
    // The scratch memory goes back to this stream's cache at the end of this scope, and the stream may
    // reuse it at once: its later work runs after these kernels.
    const uint64_t bytes = static_cast<uint64_t>(geometry.outputs * splits) * sizeof(ReduceState<A>);
    std::shared_ptr<Allocation> scratch = device_.allocator().allocate(bytes, stream.shared_from_this());
    auto* partials = static_cast<ReduceState<A>*>(device_pointer(*scratch, 0));
    reduce_kernel<A><<<grid, kThreadsPerBlock, 0, cuda_stream.handle()>>>(geometry, params, input,
                                                                         dtype_code(in.dtype), partials, results);
    check_launch(cuda_stream, "the reduce kernel's first launch");
    cuda_stream.note_dispatch({in.allocation, scratch.get()});
    const int lanes = static_cast<int>(std::min<int64_t>(kThreadsPerBlock, power_of_two_at_least(splits)));
    const int64_t final_blocks = ceil_div(geometry.outputs, kThreadsPerBlock / lanes);
    reduce_partials_kernel<A><<<static_cast<unsigned int>(final_blocks), kThreadsPerBlock, 0, cuda_stream.handle()>>>(
        partials, geometry.outputs, static_cast<int>(splits), lanes, params, results);
    check_launch(cuda_stream, "the reduce kernel's second launch");
    cuda_stream.note_dispatch({scratch.get(), out_allocation, indices_allocation});
  });
}

EMBER_CUDA_KERNELS(ReduceKernels, CudaReduce);

}  // namespace ember::cuda
