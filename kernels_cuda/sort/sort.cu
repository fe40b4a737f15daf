// The sort kernel: the CUDA mirror of shaders/sort/sort.comp, with the same keys, order, networks and
// launches, so that both backends give the same result (the order is total: (key, position), a stable
// sort) in the same number of launches.
//
// Each element becomes an unsigned key whose order is the values' (descending flips its bits; NaN is
// the largest key, -0.0 and 0.0 share one) paired with its position in its row. A block sorts segments
// of up to a tile with the bitonic network: each thread holds kElems pairs in registers, and the steps
// on the slot-index bits its layout covers run there; pairs pass through shared memory to change
// layouts, at most three times a merge level. Slots without an element hold a sentinel larger than every
// pair. Rows longer than a tile continue on scratch memory with the network's one-direction form: a
// launch per step at a distance of a tile or more, and one that finishes the level within tiles (the
// last writes the outputs); slots past a row's end never move there, so comparators reaching them are
// skipped. Registers the CUDA sort family.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "kernels_cuda/common/cuda_family.h"
#include "kernels_cuda/common/strided_index.cuh"
#include "kernels_cuda/common/typed_operands.cuh"
#include "runtime/allocator.h"
#include "runtime/kernels/sort.h"

namespace ember::cuda {

namespace {

constexpr uint32_t kEmpty = 0xffffffffu;  // the position of a slot without an element
// Short rows share a block, but not below this many blocks where there are rows enough.
constexpr int64_t kTargetBlocks = 64;

// 32 KiB of shared memory holds a tile of keys and positions: 4096 pairs of 32-bit keys, 2048 of 64-bit.
template <class Key>
constexpr int kTileLog2 = sizeof(Key) == 8 ? 11 : 12;

// Per launch: the rows (operands in, values, indices over the dims other than the sorted one) and the
// layout of each row.
struct SortGeometry {
  int64_t length;  // of each row
  int64_t first;   // the first sorted position written
  int64_t count;   // sorted positions written per row
  int64_t in_step;  // strides along the sorted dim
  int64_t values_step;
  int64_t indices_step;
  int dtype;
  bool descending;
  bool writes_values;
};

// A float's key, for a format whose sign bit is `sign` and whose infinity's magnitude bits are
// `infinity`: negative values below zero in reverse magnitude order, both zeros equal, positive values
// above, every NaN at the top.
template <class Bits>
__device__ inline Bits float_key(Bits bits, Bits sign, Bits infinity) {
  const Bits magnitude = bits & (sign - 1);
  if (magnitude > infinity) return sign | (sign - 1);
  if (magnitude == 0) return sign;
  return (bits & sign) != 0 ? (sign - 1) - magnitude : sign | magnitude;
}

template <class Key>
__device__ inline Key sort_key(int dtype, uint64_t bits, bool descending) {
  Key key = 0;
  const auto low = static_cast<uint32_t>(bits);
  switch (static_cast<DTypeCode>(dtype)) {
    case kBool:
    case kU8: key = low; break;
    case kI8: key = low ^ 0x80u; break;
    case kI16: key = low ^ 0x8000u; break;
    case kI32: key = low ^ 0x80000000u; break;
    case kF16: key = float_key<uint32_t>(low, 0x8000u, 0x7c00u); break;
    case kBF16: key = float_key<uint32_t>(low, 0x8000u, 0x7f80u); break;
    case kF32: key = float_key<uint32_t>(low, 0x80000000u, 0x7f800000u); break;
    case kI64: key = static_cast<Key>(bits ^ 0x8000000000000000ull); break;
    case kF64: key = static_cast<Key>(float_key<uint64_t>(bits, 0x8000000000000000ull, 0x7ff0000000000000ull)); break;
  }
  return descending ? static_cast<Key>(~key) : key;
}

// Whether pair a comes before pair b: the total order the sort follows.
template <class Key>
__device__ inline bool before(Key key_a, uint32_t position_a, Key key_b, uint32_t position_b) {
  return key_a < key_b || (key_a == key_b && position_a < position_b);
}

// The slots of comparator `q` of a step at distance 2^j_log2 (the one-direction form): the lower slot has
// bit j_log2 clear; the upper one is its mirror image in their block of 2^(j_log2 + 1), or the distance
// further.
__device__ inline void comparator(int64_t q, int j_log2, bool mirror, int64_t& low, int64_t& high) {
  const int64_t distance = int64_t{1} << j_log2;
  low = ((q >> j_log2) << (j_log2 + 1)) | (q & (distance - 1));
  high = mirror ? low ^ (2 * distance - 1) : low + distance;
}

// ---- the network in registers ----

template <class Key>
constexpr int kElemBits = kTileLog2<Key> - 8;  // 256 threads hold a tile
template <class Key>
constexpr int kElems = 1 << kElemBits<Key>;

template <class Key>
struct Registers {
  Key keys[kElems<Key>];
  uint32_t positions[kElems<Key>];
};

// The slot of register r in layout `lo`, where this thread's slots differ in bits [lo, lo + kElemBits)
// of the slot index and the thread's index gives the other bits.
template <class Key>
__device__ inline uint32_t slot_of(int r, int lo) {
  const uint32_t below = threadIdx.x & ((1u << lo) - 1u);
  return ((threadIdx.x - below) << kElemBits<Key>) | (static_cast<uint32_t>(r) << lo) | below;
}

// The layout that holds bit b: kElemBits bits at a time from bit 0, the last layout ending at the tile's
// top bit (with 64-bit keys it shares a bit with the one below).
template <class Key>
__device__ inline int layout_of_bit(int b) {
  return min(b / kElemBits<Key> * kElemBits<Key>, kTileLog2<Key> - kElemBits<Key>);
}

template <class Key>
__device__ inline void to_shared(const Registers<Key>& regs, int lo, Key* keys, uint32_t* positions) {
#pragma unroll
  for (int r = 0; r < kElems<Key>; ++r) {
    keys[slot_of<Key>(r, lo)] = regs.keys[r];
    positions[slot_of<Key>(r, lo)] = regs.positions[r];
  }
}

template <class Key>
__device__ inline void from_shared(Registers<Key>& regs, int lo, const Key* keys, const uint32_t* positions) {
#pragma unroll
  for (int r = 0; r < kElems<Key>; ++r) {
    regs.keys[r] = keys[slot_of<Key>(r, lo)];
    regs.positions[r] = positions[slot_of<Key>(r, lo)];
  }
}

// The steps at bits top down to bottom, which layout `lo` holds, of merge level `level`: comparators
// ascend where bit `level` of the slot is clear and descend elsewhere (the bitonic network's alternating
// blocks), or all ascend (the last level of a segment, and the one-direction form).
template <class Key>
__device__ inline void register_steps(Registers<Key>& regs, int lo, int level, int top, int bottom,
                                      bool all_ascending) {
#pragma unroll
  for (int k = kElemBits<Key> - 1; k >= 0; --k) {
    if (lo + k > top || lo + k < bottom) continue;
#pragma unroll
    for (int r = 0; r < kElems<Key>; ++r) {
      if ((r >> k) & 1) continue;
      const int partner = r | (1 << k);
      const bool ascending = all_ascending || ((slot_of<Key>(r, lo) >> level) & 1u) == 0u;
      const bool partner_first =
          before(regs.keys[partner], regs.positions[partner], regs.keys[r], regs.positions[r]);
      // Two sentinels, the only equal pairs, may swap harmlessly.
      if (partner_first == ascending) {
        const Key key = regs.keys[r];
        const uint32_t position = regs.positions[r];
        regs.keys[r] = regs.keys[partner];
        regs.positions[r] = regs.positions[partner];
        regs.keys[partner] = key;
        regs.positions[partner] = position;
      }
    }
  }
}

// Runs merge level `level`'s steps at bits top down to 0, changing layouts through shared memory where
// the next bit is another layout's. `lo` is the registers' layout, before and after (it ends at 0).
// Every thread of the block must call it.
template <class Key>
__device__ inline void merge_level(Registers<Key>& regs, int& lo, int level, int top, bool all_ascending,
                                   Key* keys, uint32_t* positions) {
  for (int bit = top; bit >= 0;) {
    const int next = layout_of_bit<Key>(bit);
    if (next != lo) {
      to_shared(regs, lo, keys, positions);
      __syncthreads();
      from_shared(regs, next, keys, positions);
      lo = next;
    }
    int bottom = bit;
    while (bottom > 0 && layout_of_bit<Key>(bottom - 1) == next) --bottom;
    register_steps(regs, next, level, bit, bottom, all_ascending);
    bit = bottom - 1;
  }
}

// One comparator on the scratch, in the one-direction form.
template <class Key>
__device__ inline void compare_exchange(Key* keys, uint32_t* positions, int64_t low, int64_t high) {
  const Key low_key = keys[low];
  const Key high_key = keys[high];
  const uint32_t low_position = positions[low];
  const uint32_t high_position = positions[high];
  if (before(high_key, high_position, low_key, low_position)) {
    keys[low] = high_key;
    keys[high] = low_key;
    positions[low] = high_position;
    positions[high] = low_position;
  }
}

// Writes sorted position `rank` of a row, which holds the row's element at `position`, where it is one
// of the positions written.
__device__ inline void write_output(const StridedOperands<3>& rows, const SortGeometry& g, const int64_t (&row)[3],
                                    int64_t rank, uint32_t position) {
  if (rank < g.first || rank >= g.first + g.count) return;
  const int64_t at = rank - g.first;
  if (g.writes_values) {
    store_bits(g.dtype, rows.data[1], row[1] + at * g.values_step,
               load_bits(g.dtype, rows.data[0], row[0] + position * g.in_step));
  }
  static_cast<int64_t*>(rows.data[2])[row[2] + at * g.indices_step] = position;
}

// Sorts segments of 2^segment_log2 slots, `per_block` per block: whole rows (chunks == 1), written to
// the outputs; or chunks of a tile of longer rows, written to the scratch.
template <class Key>
__global__ void __launch_bounds__(kThreadsPerBlock)
    sort_segments_kernel(const __grid_constant__ StridedOperands<3> rows, const SortGeometry g, int segment_log2,
                         int64_t per_block, int64_t chunks, Key* scratch_keys, uint32_t* scratch_positions) {
  __shared__ Key keys[1 << kTileLog2<Key>];
  __shared__ uint32_t positions[1 << kTileLog2<Key>];
  const int64_t total = rows.numel * chunks;
  // Where register r's slot (in layout 0) lies: its row and position, and whether it holds an element.
  auto locate = [&](int64_t group_first, int r, int64_t& row, int64_t& position) {
    const int64_t slot = slot_of<Key>(r, 0);
    const int64_t segment = group_first + (slot >> segment_log2);
    row = segment / chunks;
    position = ((segment - row * chunks) << segment_log2) + (slot & ((int64_t{1} << segment_log2) - 1));
    return (slot >> segment_log2) < per_block && segment < total && position < g.length;
  };
  Registers<Key> regs;
  for (int64_t group_first = blockIdx.x * per_block; group_first < total; group_first += gridDim.x * per_block) {
#pragma unroll
    for (int r = 0; r < kElems<Key>; ++r) {
      int64_t row, position;
      regs.keys[r] = ~Key(0);
      regs.positions[r] = kEmpty;
      if (locate(group_first, r, row, position)) {
        int64_t offsets[3];
        element_offsets(rows, row, offsets);
        regs.keys[r] = sort_key<Key>(g.dtype, load_bits(g.dtype, rows.data[0], offsets[0] + position * g.in_step),
                                     g.descending);
        regs.positions[r] = static_cast<uint32_t>(position);
      }
    }
    int lo = 0;
    for (int level = 1; level <= segment_log2; ++level) {
      merge_level(regs, lo, level, level - 1, level == segment_log2, keys, positions);
    }
#pragma unroll
    for (int r = 0; r < kElems<Key>; ++r) {
      int64_t row, position;
      if (!locate(group_first, r, row, position)) continue;
      if (scratch_keys == nullptr) {
        int64_t offsets[3];
        element_offsets(rows, row, offsets);
        write_output(rows, g, offsets, position, regs.positions[r]);
      } else {
        scratch_keys[row * g.length + position] = regs.keys[r];
        scratch_positions[row * g.length + position] = regs.positions[r];
      }
    }
    __syncthreads();  // the next segments reuse shared memory
  }
}

// One step of a merge level at a distance of a tile or more, over every row of the scratch.
template <class Key>
__global__ void __launch_bounds__(kThreadsPerBlock)
    global_step_kernel(int64_t row_count, int64_t length, int padded_log2, int level_log2, int step_log2,
                       Key* keys, uint32_t* positions) {
  const int pairs_log2 = padded_log2 - 1;  // comparators per row
  const bool mirror = step_log2 + 1 == level_log2;
  for (int64_t q = first_index(); q < (row_count << pairs_log2); q += index_step()) {
    const int64_t row = q >> pairs_log2;
    int64_t low, high;
    comparator(q & ((int64_t{1} << pairs_log2) - 1), step_log2, mirror, low, high);
    if (high >= length) continue;
    compare_exchange(keys, positions, row * length + low, row * length + high);
  }
}

// A merge level's steps below a tile, within tiles, in registers; the last level writes the outputs.
template <class Key>
__global__ void __launch_bounds__(kThreadsPerBlock)
    merge_tiles_kernel(const __grid_constant__ StridedOperands<3> rows, const SortGeometry g,
                       Key* scratch_keys, uint32_t* scratch_positions, bool writes_outputs) {
  constexpr int64_t kTile = int64_t{1} << kTileLog2<Key>;
  __shared__ Key keys[kTile];
  __shared__ uint32_t positions[kTile];
  const int64_t tiles_per_row = (g.length + kTile - 1) / kTile;
  const int top_layout = layout_of_bit<Key>(kTileLog2<Key> - 1);
  Registers<Key> regs;
  for (int64_t tile = blockIdx.x; tile < rows.numel * tiles_per_row; tile += gridDim.x) {
    const int64_t row = tile / tiles_per_row;
    const int64_t start = (tile - row * tiles_per_row) * kTile;
    const int64_t base = row * g.length + start;
#pragma unroll
    for (int r = 0; r < kElems<Key>; ++r) {
      const int64_t s = slot_of<Key>(r, top_layout);
      const bool inside = start + s < g.length;
      regs.keys[r] = inside ? scratch_keys[base + s] : ~Key(0);
      regs.positions[r] = inside ? scratch_positions[base + s] : kEmpty;
    }
    int lo = top_layout;
    merge_level(regs, lo, /*level, unused where all ascend=*/0, kTileLog2<Key> - 1, true, keys, positions);
    int64_t offsets[3];
    element_offsets(rows, row, offsets);
#pragma unroll
    for (int r = 0; r < kElems<Key>; ++r) {
      const int64_t s = slot_of<Key>(r, 0);
      if (start + s >= g.length) continue;
      if (writes_outputs) {
        write_output(rows, g, offsets, start + s, regs.positions[r]);
      } else {
        scratch_keys[base + s] = regs.keys[r];
        scratch_positions[base + s] = regs.positions[r];
      }
    }
    __syncthreads();
  }
}

int ceil_log2(int64_t value) {
  int log = 0;
  while ((int64_t{1} << log) < value) ++log;
  return log;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

unsigned int blocks_for(int64_t wanted) { return static_cast<unsigned int>(std::clamp<int64_t>(wanted, 1, kMaxBlocks)); }

// `ref` without dim `dim`: the view of the first element of each row (a 0-dim ref is one row).
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

class CudaSort final : public SortKernels {
 public:
  explicit CudaSort(CudaDevice& device) : device_(device) {}
  void sort(Stream& stream, const SortArgs& args) override;

 private:
  // `touched`: the allocations of in, values and indices.
  template <class Key>
  void sort_rows(Stream& stream, const StridedOperands<3>& rows, const SortGeometry& g,
                 const std::array<Allocation*, 3>& touched);

  CudaDevice& device_;  // the scratch of long rows comes from its allocator
};

template <class Key>
void CudaSort::sort_rows(Stream& stream, const StridedOperands<3>& rows, const SortGeometry& g,
                         const std::array<Allocation*, 3>& touched) {
  CudaStream& cuda_stream = CudaStream::of(stream);
  auto launched = [&](const char* what, Allocation* keys = nullptr, Allocation* positions = nullptr) {
    check_launch(cuda_stream, what);
    cuda_stream.note_dispatch({touched[0], touched[1], touched[2], keys, positions});
  };
  const int tile_log2 = kTileLog2<Key>;
  const int padded = ceil_log2(g.length);
  const int64_t row_count = rows.numel;
  if (g.length <= (int64_t{1} << tile_log2)) {
    const int64_t per_block = std::clamp<int64_t>(ceil_div(row_count, kTargetBlocks), 1, int64_t{1} << (tile_log2 - padded));
    sort_segments_kernel<Key><<<blocks_for(ceil_div(row_count, per_block)), kThreadsPerBlock, 0, cuda_stream.handle()>>>(
        rows, g, padded, per_block, 1, nullptr, nullptr);
    launched("the sort kernel's launch");
    return;
  }
  // Tiles sorted into the scratch, then the levels above a tile. The scratch goes back to this stream's
  // cache at the end of this scope, and the stream may reuse it at once: its later work runs after these.
  const int64_t elements = row_count * g.length;
  std::shared_ptr<Allocation> key_memory =
      device_.allocator().allocate(static_cast<uint64_t>(elements) * sizeof(Key), stream.shared_from_this());
  std::shared_ptr<Allocation> position_memory =
      device_.allocator().allocate(static_cast<uint64_t>(elements) * sizeof(uint32_t), stream.shared_from_this());
  Key* keys = static_cast<Key*>(device_pointer(*key_memory, 0));
  uint32_t* positions = static_cast<uint32_t*>(device_pointer(*position_memory, 0));
  const int64_t tiles = ceil_div(g.length, int64_t{1} << tile_log2);
  sort_segments_kernel<Key><<<blocks_for(row_count * tiles), kThreadsPerBlock, 0, cuda_stream.handle()>>>(
      rows, g, tile_log2, 1, tiles, keys, positions);
  launched("the sort kernel's tile launch", key_memory.get(), position_memory.get());
  for (int level = tile_log2 + 1; level <= padded; ++level) {
    for (int step = level - 1; step >= tile_log2; --step) {
      global_step_kernel<Key><<<grid_size(row_count << (padded - 1)), kThreadsPerBlock, 0, cuda_stream.handle()>>>(
          row_count, g.length, padded, level, step, keys, positions);
      launched("the sort kernel's merge step", key_memory.get(), position_memory.get());
    }
    merge_tiles_kernel<Key><<<blocks_for(row_count * tiles), kThreadsPerBlock, 0, cuda_stream.handle()>>>(
        rows, g, keys, positions, level == padded);
    launched("the sort kernel's tile merge", key_memory.get(), position_memory.get());
  }
}

void CudaSort::sort(Stream& stream, const SortArgs& args) {
  args.check();
  const TensorRef& in = args.in;
  const TensorRef& indices = args.indices;
  const int64_t length = args.length();
  const int64_t count = args.count();
  if (count == 0 || in.numel() == 0) return;
  if (length >= (int64_t{1} << 31)) throw UnsupportedError("sort: rows of 2^31 elements or more");

  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  const int dim = args.dim;
  const TensorRef in_rows = without_dim(in, dim);
  const TensorRef indices_rows = without_dim(indices, dim);
  // Without values, the indices' rows stand in for them (never written as values).
  const TensorRef values_rows = args.values ? without_dim(*args.values, dim) : indices_rows;
  const StridedOperands<3> rows = strided_operands<3>(plan_launch({&in_rows, &values_rows, &indices_rows}));
  auto step = [&](const TensorRef& ref) { return ref.ndim == 0 ? int64_t{0} : ref.strides[dim]; };
  SortGeometry g{};
  g.length = length;
  g.first = args.first;
  g.count = count;
  g.in_step = step(in);
  g.values_step = args.values ? step(*args.values) : 0;
  g.indices_step = step(indices);
  g.dtype = dtype_code(in.dtype);
  g.descending = args.descending;
  g.writes_values = args.values.has_value();
  const std::array<Allocation*, 3> touched = {in.allocation, args.values ? args.values->allocation : nullptr,
                                               indices.allocation};
  if (element_size(in.dtype) == 8) {
    sort_rows<uint64_t>(stream, rows, g, touched);
  } else {
    sort_rows<uint32_t>(stream, rows, g, touched);
  }
}

}  // namespace

EMBER_CUDA_KERNELS(SortKernels, CudaSort);

}  // namespace ember::cuda
