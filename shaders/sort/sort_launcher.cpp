// Launcher of the sort kernel (sort.comp).
//
// A row of up to one tile (4096 elements, 2048 for 64-bit dtypes) sorts within one workgroup, several
// short rows per workgroup: one dispatch. A longer row is sorted in tiles into scratch buffers, then each
// merge level above the tile takes one dispatch per step at a distance of a tile or more and one that
// finishes the level within tiles: 1 + sum over levels of (level - tile level + 1) dispatches, 45 for a
// row of 2^20 float32 elements.
//
// Launches split along the rows where the rows' dims outnumber the push constants' slots or an operand
// (or the scratch) outgrows a buffer binding. A row that is itself wider than a binding in some
// operand (a sort along the outer dim of a large tensor) goes through a copy with the sorted dim
// innermost; what still does not fit, a row of more than a binding's worth of contiguous elements, is
// an UnsupportedError.
#include <algorithm>
#include <string>

#include "runtime/allocator.h"
#include "runtime/error.h"
#include "runtime/kernels/memory.h"
#include "runtime/kernels/sort.h"
#include "shaders/common/index_launch.h"
#include "shaders/common/vulkan_family.h"
#include "shaders/reduce/reduce_plan.h"

namespace ember::vulkan {

namespace {

constexpr int kSortMaxDims = 4;  // MAX_DIMS in sort.comp
constexpr uint32_t kStageSegments = 0;  // STAGE in sort.comp
constexpr uint32_t kStageGlobalStep = 1;
constexpr uint32_t kStageTileMerge = 2;
constexpr uint32_t kDescending = 1u << 8;  // SHAPE_* in sort.comp
constexpr uint32_t kWritesValues = 1u << 9;
constexpr uint32_t kWritesOutputs = 1u << 10;
// Short rows share a workgroup, but not below this many workgroups where there are rows enough. A
// workgroup runs the network over its whole tile however few rows fill it, which a GPU hides across its
// cores and a CPU driver pays for: there, few workgroups with full tiles (a [256, 64] sort took 25.7 ms
// over 64 workgroups of a sixteenth-full tile on lavapipe).
constexpr int64_t kTargetWorkgroupsGpu = 64;
constexpr int64_t kTargetWorkgroupsCpu = 8;
// Positions are 32-bit in the shader, and one of them marks an empty slot; a row's comparator count
// (half its length rounded up to a power of two) times the rows of a launch stays below 2^32.
constexpr int64_t kMaxLength = int64_t{1} << 31;
constexpr int64_t kMaxLaunchPairs = int64_t{1} << 32;

struct SortParams {
  uint32_t in_offset;
  uint32_t values_offset;
  uint32_t indices_offset;
  uint32_t rows;
  uint32_t row_length;
  uint32_t first;
  uint32_t count;
  uint32_t in_step;
  uint32_t values_step;
  uint32_t indices_step;
  uint32_t padded_log2;
  uint32_t segments;
  uint32_t chunks;
  uint32_t level_log2;
  uint32_t step_log2;
  uint32_t shape;
  uint32_t sizes[kSortMaxDims];
  uint32_t in_strides[kSortMaxDims];
  uint32_t values_strides[kSortMaxDims];
  uint32_t indices_strides[kSortMaxDims];
};
static_assert(sizeof(SortParams) == 128);

const KernelAbiRegistration kAbis{
    {"sort_32", 5, sizeof(SortParams)},
    {"sort_64", 5, sizeof(SortParams)},
};

bool wide_keys(DType dtype) { return element_size(dtype) == 8; }
// TILE_LOG2 in sort.comp: 32 KiB of shared memory holds a tile of keys and positions.
uint32_t tile_log2(DType dtype) { return wide_keys(dtype) ? 11 : 12; }
uint32_t key_bytes(DType dtype) { return wide_keys(dtype) ? 8 : 4; }

// Bytes one row of `ref` (`count` elements along `dim`) spans.
uint64_t row_bytes(const TensorRef& ref, int dim, int64_t count) {
  return reach_bytes(count, ref.strides[dim], element_size(ref.dtype)) + element_size(ref.dtype);
}

// `ref`'s sizes over new memory, contiguous with `dim` innermost.
TensorRef dim_innermost(const TensorRef& ref, int dim, Allocation* allocation) {
  TensorRef staged = ref;
  staged.allocation = allocation;
  staged.byte_offset = 0;
  int64_t stride = ref.sizes[dim];
  staged.strides[dim] = 1;
  for (int d = ref.ndim - 1; d >= 0; --d) {
    if (d == dim) continue;
    staged.strides[d] = stride;
    stride *= ref.sizes[d];
  }
  return staged;
}

class VulkanSort final : public SortKernels {
 public:
  explicit VulkanSort(VulkanDevice& device) : device_(device) {}
  void sort(Stream& stream, const SortArgs& args) override;

 private:
  // Sorts with every row of every operand within one binding window.
  void sort_rows(Stream& stream, const SortArgs& args);

  VulkanDevice& device_;
};

void VulkanSort::sort(Stream& stream, const SortArgs& args_in) {
  args_in.check();
  SortArgs args = args_in;
  args.in = at_least_1d(args.in);
  args.indices = at_least_1d(args.indices);
  if (args.values) args.values = at_least_1d(*args.values);
  const TensorRef& in = args.in;
  const TensorRef& indices = args.indices;
  const int dim = args.dim;
  const int64_t length = args.length();
  const int64_t count = args.count();
  for (const TensorRef* ref : {&in, &indices, args.values ? &*args.values : static_cast<const TensorRef*>(nullptr)}) {
    if (!ref) continue;
    for (int d = 0; d < ref->ndim; ++d) {
      if (ref->strides[d] < 0) throw UnsupportedError("sort: negative strides");
    }
  }
  require_dtype(device_, in.dtype, "sort");
  if (count == 0 || in.numel() == 0) return;
  if (length >= kMaxLength) throw UnsupportedError("sort: rows of 2^31 elements or more");
  const Context& context = device_.context();
  const uint64_t shared_bytes = (uint64_t{1} << tile_log2(in.dtype)) * (key_bytes(in.dtype) + 4);
  if (context.properties.limits.maxComputeSharedMemorySize < shared_bytes) {
    throw UnsupportedError("sort: " + device_.info().name + " has " +
                           std::to_string(context.properties.limits.maxComputeSharedMemorySize) +
                           " bytes of shared memory, the kernel needs " + std::to_string(shared_bytes));
  }

  // A row wider than a binding in some operand: sort a copy with the sorted dim innermost.
  const uint64_t window = max_window_bytes(context);
  const bool stage_in = row_bytes(in, dim, length) > window;
  const bool stage_out = row_bytes(indices, dim, count) > window ||
                         (args.values && row_bytes(*args.values, dim, count) > window);
  if (!stage_in && !stage_out) {
    sort_rows(stream, args);
    return;
  }
  CachingAllocator& allocator = device_.allocator();
  MemoryKernels& memory = device_.kernels().get<MemoryKernels>();
  const std::shared_ptr<Stream> owner = stream.shared_from_this();
  auto staging = [&](const TensorRef& ref) {
    return allocator.allocate(static_cast<uint64_t>(ref.numel()) * element_size(ref.dtype), owner);
  };
  SortArgs staged = args;
  std::shared_ptr<Allocation> in_copy, values_copy, indices_copy;
  if (stage_in) {
    in_copy = staging(in);
    staged.in = dim_innermost(in, dim, in_copy.get());
    memory.copy(stream, {staged.in, in});
  }
  if (stage_out) {
    indices_copy = staging(indices);
    staged.indices = dim_innermost(indices, dim, indices_copy.get());
    if (args.values) {
      values_copy = staging(*args.values);
      staged.values = dim_innermost(*args.values, dim, values_copy.get());
    }
  }
  sort_rows(stream, staged);
  if (stage_out) {
    memory.copy(stream, {indices, staged.indices});
    if (args.values) memory.copy(stream, {*args.values, *staged.values});
  }
}

void VulkanSort::sort_rows(Stream& stream, const SortArgs& args) {
  const TensorRef& in = args.in;
  const TensorRef& indices = args.indices;
  const TensorRef* values = args.values ? &*args.values : nullptr;
  const int dim = args.dim;
  const int64_t length = in.sizes[dim];
  const int64_t count = indices.sizes[dim];
  const DType dtype = in.dtype;
  const uint32_t tile = tile_log2(dtype);
  const bool single_pass = length <= (int64_t{1} << tile);
  const uint32_t padded = ceil_log2(static_cast<uint64_t>(length));

  VulkanStream& vs = vulkan_stream(stream);
  const Context& context = device_.context();
  const uint64_t window = max_window_bytes(context);
  const uint32_t max_groups = context.properties.limits.maxComputeWorkGroupCount[0];
  const std::string shader = wide_keys(dtype) ? "sort_64" : "sort_32";
  auto pipeline = [&](uint32_t stage) -> const Pipeline& {
    return device_.pipelines().get(shader, {static_cast<uint32_t>(dtype), stage});
  };

  // Rows are the positions of the other dims; operands 0 in, 1 values, 2 indices.
  const std::array<const TensorRef*, kBoxOperands> operands = {&in, values, &indices};
  const std::array<int64_t, kBoxOperands> lengths = {length, count, count};
  Box rows;
  for (int d = 0; d < in.ndim; ++d) {
    if (d == dim) continue;
    rows.push_dim(in.sizes[d], {in.strides[d], values ? values->strides[d] : 0, indices.strides[d]});
  }
  const int64_t pairs_per_row = std::max<int64_t>(1, (int64_t{1} << padded) / 2);
  // Elements of operand i that a piece reaches, from its first.
  auto reach = [&](const Box& piece, int i) {
    return piece.reach(i) - piece.base[i] + (lengths[i] - 1) * operands[i]->strides[dim];
  };
  auto fits = [&](const Box& piece) {
    const int64_t row_count = piece.count();
    if (row_count >= kMaxLaunchPairs / pairs_per_row) return false;
    for (int i = 0; i < kBoxOperands; ++i) {
      if (operands[i] && static_cast<uint64_t>(reach(piece, i)) * element_size(operands[i]->dtype) > window) {
        return false;
      }
    }
    return single_pass || static_cast<uint64_t>(row_count * length) * key_bytes(dtype) <= window;
  };
  auto launch = [&](const Box& piece) {
    SortParams params{};
    // Bindings: 0 values, 1 indices, 2 in, 3 and 4 the scratch keys and positions. Absent ones see the
    // input's window, read-only.
    Binding bindings[5];
    uint32_t* offsets[kBoxOperands] = {&params.in_offset, &params.values_offset, &params.indices_offset};
    const int slot[kBoxOperands] = {2, 0, 1};
    for (int i = 0; i < kBoxOperands; ++i) {
      const int operand = operands[i] ? i : 0;
      const TensorRef& ref = *operands[operand];
      const uint32_t size = static_cast<uint32_t>(element_size(ref.dtype));
      const Window w = element_window(context, ref.allocation, ref.byte_offset + piece.base[operand] * size, size,
                                      reach(piece, operand), operand > 0);
      bindings[slot[i]] = w.binding;
      *offsets[i] = w.first_element;
    }
    bindings[3] = bindings[4] = bindings[2];
    const int64_t row_count = piece.count();
    params.rows = static_cast<uint32_t>(row_count);
    params.row_length = static_cast<uint32_t>(length);
    params.first = static_cast<uint32_t>(args.first);
    params.count = static_cast<uint32_t>(count);
    params.in_step = static_cast<uint32_t>(in.strides[dim]);
    params.values_step = values ? static_cast<uint32_t>(values->strides[dim]) : 0;
    params.indices_step = static_cast<uint32_t>(indices.strides[dim]);
    params.shape = static_cast<uint32_t>(piece.ndim) | (args.descending ? kDescending : 0) |
                   (values ? kWritesValues : 0);
    for (int d = 0; d < piece.ndim; ++d) {
      params.sizes[d] = static_cast<uint32_t>(piece.sizes[d]);
      params.in_strides[d] = static_cast<uint32_t>(piece.strides[0][d]);
      params.values_strides[d] = static_cast<uint32_t>(piece.strides[1][d]);
      params.indices_strides[d] = static_cast<uint32_t>(piece.strides[2][d]);
    }
    auto groups = [&](int64_t wanted) { return static_cast<uint32_t>(std::clamp<int64_t>(wanted, 1, max_groups)); };

    if (single_pass) {
      const int64_t target_workgroups =
          context.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? kTargetWorkgroupsCpu : kTargetWorkgroupsGpu;
      const int64_t per_group =
          std::clamp<int64_t>(ceil_div(row_count, target_workgroups), 1, int64_t{1} << (tile - padded));
      params.padded_log2 = padded;
      params.segments = static_cast<uint32_t>(per_group);
      params.chunks = 1;
      params.shape |= kWritesOutputs;
      vs.dispatch(pipeline(kStageSegments), bindings, &params, sizeof params, groups(ceil_div(row_count, per_group)));
      return;
    }

    // Tiles sorted into the scratch, then the levels above a tile.
    CachingAllocator& allocator = device_.allocator();
    const int64_t elements = row_count * length;
    std::shared_ptr<Allocation> keys = allocator.allocate(elements * key_bytes(dtype), stream.shared_from_this());
    std::shared_ptr<Allocation> positions = allocator.allocate(elements * 4, stream.shared_from_this());
    const Window keys_window = element_window(context, keys.get(), 0, key_bytes(dtype), elements, true);
    const Window positions_window = element_window(context, positions.get(), 0, 4, elements, true);
    if (keys_window.first_element != 0 || positions_window.first_element != 0) {
      throw Error("sort: the scratch buffers are not aligned");
    }
    bindings[3] = keys_window.binding;
    bindings[4] = positions_window.binding;
    const Binding values_binding = bindings[0], indices_binding = bindings[1];
    bindings[0].write = bindings[1].write = false;
    const int64_t tiles = ceil_div(length, int64_t{1} << tile);
    params.padded_log2 = tile;
    params.segments = 1;
    params.chunks = static_cast<uint32_t>(tiles);
    vs.dispatch(pipeline(kStageSegments), bindings, &params, sizeof params, groups(row_count * tiles));
    params.padded_log2 = padded;
    for (uint32_t level = tile + 1; level <= padded; ++level) {
      params.level_log2 = level;
      for (uint32_t step = level; step-- > tile;) {
        params.step_log2 = step;
        vs.dispatch(pipeline(kStageGlobalStep), bindings, &params, sizeof params,
                    workgroups_for(context, row_count << (padded - 1)));
      }
      if (level == padded) {
        params.shape |= kWritesOutputs;
        bindings[0] = values_binding;
        bindings[1] = indices_binding;
        bindings[3].write = bindings[4].write = false;
      }
      vs.dispatch(pipeline(kStageTileMerge), bindings, &params, sizeof params, groups(row_count * tiles));
    }
  };
  split_box(rows, kSortMaxDims, fits, launch, "sort");
}

}  // namespace

EMBER_VULKAN_KERNELS(SortKernels, VulkanSort);

}  // namespace ember::vulkan
