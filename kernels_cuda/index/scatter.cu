// scatter: out[p with coordinate dim replaced by index[p]] (op)= src[p] for every position p of index.
// Assign stores; Add, Multiply, Amax and Amin combine atomically. Native atomics serve where the
// hardware has them (add of float32, float64, int32 and int64; max and min of int32 and int64); every
// other case is a compare-and-swap loop on the element, or, for 8- and 16-bit elements, on the 32-bit
// word that contains it. The combination is computed in the accumulator type A (float for float32,
// float16 and bfloat16; double; int64_t for integers and bool) and converted once when stored.
//
// Assign from a tensor src orders colliding indices as PyTorch's CPU kernels do: the position last along
// dim wins (colliding positions differ only along dim). Threads of a warp that store to one address in
// the same instruction would leave any one of them, so a first pass records, for each element written, the
// largest launch index that writes it, in a hash table keyed by the element; the second pass stores only
// that position's value. plan_launch keeps the dims in order, so the launch index grows along dim.
#include <cstdint>
#include <memory>
#include <string>

#include "kernels_cuda/common/device_math.cuh"
#include "kernels_cuda/common/strided_index.cuh"
#include "kernels_cuda/common/typed_operands.cuh"
#include "kernels_cuda/index/cuda_index.h"

namespace ember::cuda {

namespace {

// What `current` becomes when `value` is combined into it. Every mode has a case (-Werror=switch).
template <class A>
__host__ __device__ inline A scatter_combine(ScatterMode mode, A current, A value) {
  switch (mode) {
    case ScatterMode::Assign: return value;
    case ScatterMode::Add: return wrap_add(current, value);
    case ScatterMode::Multiply: return wrap_mul(current, value);
    case ScatterMode::Amax: return maximum(current, value);  // NaN propagates, as scatter_reduce's amax
    case ScatterMode::Amin: return minimum(current, value);
  }
  return value;
}

// The host compiler checks the switch above only where it compiles the function: here.
template float scatter_combine<float>(ScatterMode, float, float);

// element (op)= value by compare-and-swap on the naturally aligned word holding the element.
template <class A>
__device__ void combine_by_cas(ScatterMode mode, int dtype, char* element, A value) {
  const int bytes = dtype_bytes(dtype);
  if (bytes == 8) {
    auto* word = reinterpret_cast<unsigned long long*>(element);
    unsigned long long observed = *word;
    unsigned long long expected;
    do {
      expected = observed;
      const A next = scatter_combine(mode, decode<A>(dtype, expected), value);
      observed = atomicCAS(word, expected, static_cast<unsigned long long>(encode(dtype, next)));
    } while (observed != expected);
    return;
  }
  // 1, 2 or 4 bytes: the element's bits sit at `shift` in its aligned 32-bit word.
  const auto address = reinterpret_cast<uintptr_t>(element);
  auto* word = reinterpret_cast<unsigned int*>(address & ~static_cast<uintptr_t>(3));
  const unsigned int shift = static_cast<unsigned int>(address & 3u) * 8u;
  const unsigned int mask = bytes == 4 ? 0xffffffffu : ((1u << (8 * bytes)) - 1u) << shift;
  unsigned int observed = *word;
  unsigned int expected;
  do {
    expected = observed;
    const A current = decode<A>(dtype, (expected & mask) >> shift);
    const auto bits = static_cast<unsigned int>(encode(dtype, scatter_combine(mode, current, value)));
    const unsigned int replacement = (expected & ~mask) | ((bits << shift) & mask);
    observed = atomicCAS(word, expected, replacement);
  } while (observed != expected);
}

template <class A>
__device__ void scatter_element(ScatterMode mode, int dtype, void* base, int64_t offset, A value) {
  if (mode == ScatterMode::Assign) {
    store_as<A>(dtype, base, offset, value);
    return;
  }
  char* element = static_cast<char*>(base) + offset * dtype_bytes(dtype);
  if (mode == ScatterMode::Add) {
    switch (dtype) {
      case kF32: atomicAdd(reinterpret_cast<float*>(element), static_cast<float>(value)); return;
      case kF64: atomicAdd(reinterpret_cast<double*>(element), static_cast<double>(value)); return;
      // Two's complement addition wraps the same signed or unsigned.
      case kI32:
        atomicAdd(reinterpret_cast<unsigned int*>(element), static_cast<unsigned int>(to_int64(value)));
        return;
      case kI64:
        atomicAdd(reinterpret_cast<unsigned long long*>(element), static_cast<unsigned long long>(to_int64(value)));
        return;
      default: break;
    }
  }
  if (mode == ScatterMode::Amax || mode == ScatterMode::Amin) {
    const bool largest = mode == ScatterMode::Amax;
    switch (dtype) {
      case kI32: {
        auto* target = reinterpret_cast<int*>(element);
        const int v = static_cast<int>(to_int64(value));
        if (largest) {
          atomicMax(target, v);
        } else {
          atomicMin(target, v);
        }
        return;
      }
      case kI64: {
        auto* target = reinterpret_cast<long long*>(element);
        const long long v = to_int64(value);
        if (largest) {
          atomicMax(target, v);
        } else {
          atomicMin(target, v);
        }
        return;
      }
      default: break;
    }
  }
  combine_by_cas(mode, dtype, element, value);
}

struct ScatterLaunch {
  int out_dtype;
  int src_dtype;
  bool src_is_scalar;
  int64_t dim_size;
  int64_t dim_stride;
};

// One slot of the table of claims: key is the element offset + 1 (0: a free slot), last the largest
// launch index + 1 that writes that element. The table starts zeroed.
struct Claim {
  unsigned long long key;
  unsigned long long last;
};

enum class ClaimPass : int {
  None,   // every position stores (nothing to order: combining modes, a scalar src, no collisions)
  Claim,  // record claims, store nothing
  Store,  // store where this position's claim is the last
};

struct ClaimTable {
  Claim* slots = nullptr;
  unsigned long long mask = 0;  // the slot count (a power of two) - 1
  int shift = 64;               // 64 - log2(slot count): the hash keeps a product's top bits
  ClaimPass pass = ClaimPass::None;
};

// The slot of `key` in an open-addressed table at least twice as large as the positions launched, so a
// free slot always comes. Claiming inserts the key; looking up finds what the claiming pass inserted
// (nullptr for a key it never saw, which cannot happen).
__device__ Claim* claim_slot(const ClaimTable& table, unsigned long long key, bool insert) {
  unsigned long long slot = (key * 0x9E3779B97F4A7C15ull) >> table.shift;
  for (;;) {
    Claim* claim = &table.slots[slot];
    if (insert) {
      const unsigned long long seen = atomicCAS(&claim->key, 0ull, key);
      if (seen == 0ull || seen == key) return claim;
    } else {
      const unsigned long long seen = claim->key;
      if (seen == key) return claim;
      if (seen == 0ull) return nullptr;
    }
    slot = (slot + 1) & table.mask;
  }
}

// Operands: index (int64), src (unread when a scalar), out with stride 0 along dim.
template <class A>
__global__ void __launch_bounds__(kThreadsPerBlock)
    scatter_kernel(const __grid_constant__ StridedOperands<3> operands, const ScatterLaunch args,
                   const ScatterMode mode, const A scalar, const A alpha, const ClaimTable claims) {
  const int64_t* index = static_cast<const int64_t*>(operands.data[0]);
  for (int64_t i = first_index(); i < operands.numel; i += index_step()) {
    int64_t offsets[3];
    element_offsets(operands, i, offsets);
    int64_t position = index[offsets[0]];
    if (position < 0) position += args.dim_size;
    if (position < 0 || position >= args.dim_size) continue;  // out of range writes nothing
    const int64_t target = offsets[2] + position * args.dim_stride;
    if (claims.pass != ClaimPass::None) {
      const auto key = static_cast<unsigned long long>(target) + 1ull;
      const auto mine = static_cast<unsigned long long>(i) + 1ull;
      Claim* claim = claim_slot(claims, key, claims.pass == ClaimPass::Claim);
      if (claims.pass == ClaimPass::Claim) {
        atomicMax(&claim->last, mine);
        continue;
      }
      if (claim != nullptr && claim->last != mine) continue;  // a later position along dim stores
    }
    A value = args.src_is_scalar ? scalar : load_as<A>(args.src_dtype, operands.data[1], offsets[1]);
    if (mode == ScatterMode::Add) value = wrap_mul(value, alpha);
    scatter_element(mode, args.out_dtype, operands.data[2], target, value);
  }
}

}  // namespace

void CudaIndex::scatter(Stream& stream, const ScatterArgs& scatter) {
  const ScatterMode mode = scatter.mode;
  const TensorRef& out = scatter.out;
  const int dim = scatter.dim;
  const TensorRef& index = scatter.index;
  const Operand& src = scatter.src;
  const Scalar alpha = scatter.alpha;
  if (index.dtype != DType::Int64) throw Error("scatter kernel: the index must be int64");
  if (index.ndim != out.ndim) throw Error("scatter kernel: out and index differ in rank");
  const bool valid_dim = out.ndim == 0 ? dim == 0 : dim >= 0 && dim < out.ndim;
  if (!valid_dim) throw Error("scatter kernel: dim " + std::to_string(dim) + " is out of range");
  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());

  ScatterLaunch args{};
  args.out_dtype = dtype_code(out.dtype);
  args.src_is_scalar = src.is_scalar();
  args.src_dtype = src.is_scalar() ? args.out_dtype : dtype_code(src.tensor.dtype);
  args.dim_size = 1;
  args.dim_stride = 0;
  TensorRef out_view = out;
  if (out.ndim > 0) {
    args.dim_size = out.sizes[dim];
    args.dim_stride = out.strides[dim];
    out_view.sizes = index.sizes;
    out_view.strides[dim] = 0;
  }
  // A scalar src is stood in for by the index with zero strides; its pointer is never read.
  TensorRef src_view = src.is_scalar() ? index : src.tensor;
  if (src.is_scalar()) src_view.strides.fill(0);
  const LaunchShape shape = plan_launch({&index, &src_view, &out_view});
  if (shape.numel() == 0) return;
  const auto operands = strided_operands<3>(shape);
  // Only positions along dim collide, and colliding stores of one scalar need no order.
  const bool ordered = mode == ScatterMode::Assign && !src.is_scalar() && out.ndim > 0 && index.sizes[dim] > 1;
  std::shared_ptr<Allocation> table;
  ClaimTable claims;
  if (ordered) {
    int log2_slots = 1;
    while ((uint64_t{1} << log2_slots) < 2 * static_cast<uint64_t>(shape.numel())) ++log2_slots;
    const uint64_t bytes = (uint64_t{1} << log2_slots) * sizeof(Claim);
    table = device_.allocator().allocate(bytes, stream.shared_from_this());
    claims.slots = static_cast<Claim*>(device_pointer(*table, 0));
    claims.mask = (1ull << log2_slots) - 1ull;
    claims.shift = 64 - log2_slots;
    cuda_stream.context().check(cudaMemsetAsync(claims.slots, 0, bytes, cuda_stream.handle()),
                                "clearing the scatter's claims");
  }
  with_accumulator_type(out.dtype, [&](auto zero) {
    using A = decltype(zero);
    const A scalar = src.is_scalar() ? scalar_as<A>(*src.scalar) : A(0);
    const auto launch = [&](ClaimPass pass) {
      claims.pass = pass;
      scatter_kernel<A><<<grid_size(operands.numel), kThreadsPerBlock, 0, cuda_stream.handle()>>>(
          operands, args, mode, scalar, scalar_as<A>(alpha), claims);
    };
    if (ordered) launch(ClaimPass::Claim);
    launch(ordered ? ClaimPass::Store : ClaimPass::None);
  });
  check_launch(cuda_stream, "the scatter kernel's launch");
  cuda_stream.note_dispatch(
      {out.allocation, index.allocation, src.is_scalar() ? nullptr : src.tensor.allocation, table.get()});
}

}  // namespace ember::cuda
