// The convolution kernel for CPU drivers that reads A through a uniform buffer (conv_register.comp with
// A_UNIFORM): its plan and its launches.
//
// Why: llvmpipe loads a storage buffer one invocation at a time, and those loads bound the register
// kernel (measured: about 5 GFLOP per CPU-second on lavapipe, against 10 for matmul with paired loads).
// A uniform buffer at an address the whole workgroup shares is loaded once and broadcast, so when every
// invocation of a workgroup works on the same rows of A, A costs almost nothing and the block can be tall
// (many rows per invocation against few gathered columns of B). The price: a uniform-buffer window holds
// 64 KiB, so launches cover chunks of rows and of k whose part of A fits, each adding to the previous.
//
// A per direction (conv_common.glsl): the weight for the forward and the input gradient, grad_output for
// the weight gradient, whose launches then cover a few samples (or part of one sample's positions) each.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "shaders/common/launch.h"
#include "shaders/common/variant_pipelines.h"
#include "shaders/common/vulkan_family.h"
#include "shaders/conv/conv_launch.h"
#include "shaders/reduce/reduce_plan.h"

namespace ember::vulkan::conv {

namespace {

// The elements of the declared window (conv_common.glsl: 4096 uvec4).
constexpr uint64_t kWindowBytes = 65536;

// The layout of A, to find the span of A that a chunk of rows and k reaches.
struct ALayout {
  Direction direction;
  int64_t groups, out_channels, out_per_group, in_per_group, kernel_volume, out_plane;

  // Element (m, k) of group g in A (in the launch's view of A).
  int64_t index(int64_t g, int64_t m, int64_t k) const {
    switch (direction) {
      case Direction::Forward: return (g * out_per_group + m) * (in_per_group * kernel_volume) + k;
      case Direction::InputGrad:
        return ((g * out_per_group + k / kernel_volume) * in_per_group + m) * kernel_volume + k % kernel_volume;
      case Direction::WeightGrad: return ((k / out_plane) * out_channels + g * out_per_group + m) * out_plane + k % out_plane;
    }
    return 0;
  }
  // The k that chunks keep whole when they are at least as long: one input channel's kernel for the input
  // gradient, one sample's positions for the weight gradient.
  int64_t unit() const {
    switch (direction) {
      case Direction::Forward: return 1;
      case Direction::InputGrad: return kernel_volume;
      case Direction::WeightGrad: return out_plane;
    }
    return 1;
  }
  // A chunk length as the chunks use it: whole units when it holds one.
  int64_t aligned(int64_t k) const { return k >= unit() ? k / unit() * unit() : k; }
  // The elements of A that a chunk of `rows` rows (of every group) and `k` of k spans: the same wherever
  // it starts, as chunks do (at a unit's start when k holds whole units, within one unit otherwise).
  int64_t span(int64_t rows, int64_t k) const { return index(groups - 1, rows - 1, k - 1) - index(0, 0, 0) + 1; }
};

ALayout layout_of(Direction direction, const ConvShape& s, const Gemm& gemm) {
  return {direction,
          s.groups,
          s.out_channels,
          s.out_channels / s.groups,
          s.in_channels / s.groups,
          direction == Direction::Forward ? gemm.k / std::max<int64_t>(s.in_channels / s.groups, 1)
          : direction == Direction::InputGrad ? gemm.k / std::max<int64_t>(s.out_channels / s.groups, 1)
                                              : gemm.n_per_sample / std::max<int64_t>(s.in_channels / s.groups, 1),
          direction == Direction::WeightGrad ? gemm.k : 0};
}

// The chunks [first, first + length) of k in [0, total): consecutive runs of `k` (whole units), or, when
// `k` is shorter than a unit, pieces of each unit.
struct Chunk {
  int64_t first, length;
};
std::vector<Chunk> chunks_of(int64_t total, int64_t k, int64_t unit) {
  std::vector<Chunk> chunks;
  if (k >= unit) {
    for (int64_t first = 0; first < total; first += k) chunks.push_back({first, std::min(k, total - first)});
    return chunks;
  }
  for (int64_t start = 0; start < total; start += unit) {
    const int64_t end = std::min(total, start + unit);
    for (int64_t first = start; first < end; first += k) chunks.push_back({first, std::min(k, end - first)});
  }
  return chunks;
}

// Predicted cost, in cycles of one CPU thread, of a launch plan: per invocation and k, a gathered load
// of B costs about as much as 64 lanes' worth of arithmetic (llvmpipe loads one lane at a time), a load
// of A `a_load` (kGather from a storage buffer; from the uniform buffer, uniform_load_cost), an FMA one
// per 8 lanes; rounds of `workers` workgroups; 180k cycles per dispatch (~70 µs).
//
// The uniform load's cost is per direction, fitted to measurements on lavapipe (docs/PERFORMANCE.md,
// "Convolution", 2026-11-29): the forward and the input gradient of the Fashion-MNIST CNN's second layer
// ran 16×7 blocks in 23-33 ms, 16×4 in 36, 8×8 in 39-42 and 32×2 in 43 (A's loads weigh about 40% of a
// gather there, not the 6% that the former cost of 4 said), while the weight gradients kept running
// fastest with 32×2 (50 ms against 68 for the 16×8 that the forward's cost would pick).
struct Block {
  uint32_t m, n;
};
// 16×7: rows of 7, 14 and 28 positions (the Fashion-MNIST CNN's) fill whole workgroup tiles of 7 columns.
constexpr Block kUniformBlocks[] = {{16, 4}, {16, 8}, {8, 8}, {32, 2}, {4, 8}, {1, 8}, {16, 7}};
constexpr double kGather = 64, kColumnMath = 8, kDispatch = 180000;
double uniform_load_cost(Direction direction) { return direction == Direction::WeightGrad ? 4 : 27; }

double k_step_cost(uint32_t rows, uint32_t columns, double a_load) {
  return a_load * rows + (kGather + kColumnMath) * columns + double(rows) * columns;
}

// Cycles of one launch covering `rows` rows × n columns × k, in `z` groups, with workgroups of
// `tile_rows` rows × `tile_columns` columns whose invocations hold `block` each.
double launch_cost(int64_t rows, int64_t n, int64_t k, int64_t z, int64_t tile_rows, int64_t tile_columns, Block block,
                   double a_load, int64_t workers) {
  const int64_t workgroups = (rows + tile_rows - 1) / tile_rows * ((n + tile_columns - 1) / tile_columns) * z;
  const int64_t rounds = (workgroups + workers - 1) / workers;
  const int64_t lanes_used = std::min<int64_t>(256, ((std::min(n, tile_columns) + block.n - 1) / block.n + 7) / 8 * 8) *
                             std::min<int64_t>(tile_rows / block.m, (rows + block.m - 1) / block.m);
  const double per_workgroup = double(lanes_used) / 8 * double(k) * k_step_cost(block.m, block.n, a_load);
  return double(rounds) * per_workgroup + kDispatch;
}

}  // namespace

UniformPlan plan_uniform(const Context& context, Direction direction, const ConvShape& s, const Gemm& gemm,
                         int64_t samples, DType dtype, bool force) {
  const auto& limits = context.properties.limits;
  if (limits.maxUniformBufferRange < kWindowBytes) return {};
  const uint64_t element = element_size(dtype);
  const int64_t cap = static_cast<int64_t>((kWindowBytes - limits.minUniformBufferOffsetAlignment - 16) / element);
  const ALayout layout = layout_of(direction, s, gemm);
  const int64_t total_k = gemm.k * (direction == Direction::WeightGrad ? samples : 1);
  const int64_t n = gemm.n_per_sample * (direction == Direction::WeightGrad ? 1 : samples);
  const int64_t workers = cpu_workers();

  std::vector<Block> blocks(std::begin(kUniformBlocks), std::end(kUniformBlocks));
  if (const char* forced = std::getenv("EMBER_CONV_BLOCK")) {
    unsigned m = 16, columns = 4;
    std::sscanf(forced, "%u,%u", &m, &columns);
    blocks = {{m, columns}};
  }
  UniformPlan best;
  double best_cost = 0;
  for (const Block& block : blocks) {
    // Rows per launch: all of them, or fewer (whole blocks) where A's part would not fit.
    for (int64_t rows = gemm.m; rows > 0;) {
      int64_t lo = 0, hi = std::min(total_k, kMaxKPerInvocation);
      while (lo < hi) {  // the longest chunk of k whose span fits
        const int64_t mid = lo + (hi - lo + 1) / 2;
        if (layout.span(rows, layout.aligned(mid)) <= cap) lo = mid;
        else hi = mid - 1;
      }
      const int64_t k = layout.aligned(lo);
      if (k > 0) {
        const int64_t launches = (gemm.m + rows - 1) / rows * static_cast<int64_t>(chunks_of(total_k, k, layout.unit()).size());
        const double cost = double(launches) * launch_cost(rows, n, std::min(k, total_k), s.groups, block.m,
                                                           int64_t{256} * block.n, block, uniform_load_cost(direction),
                                                           workers);
        if (best.block_m == 0 || cost < best_cost) {
          best = {block.m, block.n, rows, k};
          best_cost = cost;
        }
        break;
      }
      if (rows <= static_cast<int64_t>(block.m)) break;
      rows = std::max<int64_t>(block.m, (rows / 2 + block.m - 1) / block.m * block.m);
    }
  }
  if (best.block_m == 0 || force) return best;
  // A weight gradient with few results keeps too few invocations busy here to fill a subgroup per CPU
  // worker, while the storage-buffer kernel splits its k over workgroups (conv_launcher.cpp). The cost
  // model below misses that: the Fashion-MNIST CNN's first weight gradient (32 × 9 results, k = 50176)
  // took 23 ms here against 9.5 ms there.
  const int64_t busy =
      (n + best.block_n - 1) / best.block_n * ((best.rows + best.block_m - 1) / best.block_m) * s.groups;
  if (direction == Direction::WeightGrad && busy < 8 * workers) return {};
  // Against the storage-buffer kernel's 8×8 blocks (32 invocations along n) in chunks of kMaxKPerInvocation.
  const int64_t chunks = (total_k + kMaxKPerInvocation - 1) / kMaxKPerInvocation;
  const double storage_cost = double(chunks) * launch_cost(gemm.m, n, std::min(total_k, kMaxKPerInvocation), s.groups,
                                                           64, 256, {8, 8}, kGather, workers);
  return best_cost < storage_cost ? best : UniformPlan{};
}

void launch_uniform(VulkanDevice& device, Stream& stream, Direction direction, const ConvShape& s,
                    const ConvGeometry& geometry, const Operands& operands, int64_t samples, const UniformPlan& plan) {
  const Geometry3 g = as_3d(s, geometry);
  const Gemm gemm = gemm_of(direction, s, g);
  const ALayout layout = layout_of(direction, s, gemm);
  const Context& context = device.context();
  const auto& limits = context.properties.limits;
  const DType dtype = operands.b.dtype;
  const DType compute = dtype == DType::Float64 ? DType::Float64 : DType::Float32;
  const uint64_t element = element_size(dtype);
  std::vector<uint32_t> specialization(4, static_cast<uint32_t>(dtype));
  specialization[kOut] = static_cast<uint32_t>(operands.out.dtype);
  specialization[kBias] = static_cast<uint32_t>(operands.bias ? operands.bias->dtype : operands.out.dtype);
  specialization.insert(specialization.end(), {plan.block_m, plan.block_n, s.spatial == 3 ? 1u : 0u});
  const bool unit_stride = g.stride[0] == 1 && g.stride[1] == 1 && g.stride[2] == 1;
  if (direction == Direction::InputGrad) specialization.push_back(unit_stride ? 1u : 0u);
  const std::string shader =
      "conv_uniform_" + std::string(direction_name(direction)) + "_" + std::string(compute_suffix(compute));
  VariantPipelines pipelines(device.pipelines(), shader, specialization, kWordStoresConstant);
  const int64_t out_plane = direction == Direction::InputGrad ? volume(g.in_size) : volume(g.out_size);

  ConvParams params = base_params(s, g);
  VulkanStream& vs = vulkan_stream(stream);
  const bool weight_grad = direction == Direction::WeightGrad;
  for (int64_t first = 0; first < s.batch; first += samples) {
    const int64_t count = std::min(samples, s.batch - first);
    const TensorRef out = weight_grad ? operands.out : samples_of(operands.out, first, count);
    const TensorRef a = weight_grad ? samples_of(operands.a, first, count) : operands.a;
    const TensorRef b = samples_of(operands.b, first, count);
    params.batch = static_cast<uint32_t>(count);
    const int64_t total_k = gemm.k * (weight_grad ? count : 1);
    const int64_t n = gemm.n_per_sample * (weight_grad ? 1 : count);
    const auto column_groups = static_cast<uint32_t>((n + int64_t{256} * plan.block_n - 1) / (int64_t{256} * plan.block_n));
    for (int64_t row_first = 0; row_first < gemm.m; row_first += plan.rows) {
      const int64_t rows = std::min(plan.rows, gemm.m - row_first);
      for (const Chunk& chunk : chunks_of(total_k, plan.k, layout.unit())) {
        // A's part of this launch, as a uniform-buffer window.
        const int64_t a_low = layout.index(0, row_first, chunk.first);
        const int64_t a_high = layout.index(s.groups - 1, row_first + rows - 1, chunk.first + chunk.length - 1);
        const uint64_t alignment = limits.minUniformBufferOffsetAlignment;
        const uint64_t start = a.allocation->offset() + a.byte_offset + static_cast<uint64_t>(a_low) * element;
        const uint64_t aligned = start / alignment * alignment;
        const uint64_t range = (start - aligned + static_cast<uint64_t>(a_high - a_low + 1) * element + 15) / 16 * 16;
        if (range > kWindowBytes) throw Error("conv: a uniform-buffer window of " + std::to_string(range) + " bytes");
        const Binding a_window{a.allocation, aligned, range, false};

        // The weight gradient's rows are first written by the first batch piece's first chunk.
        const bool accumulate = chunk.first > 0 || (weight_grad && first > 0);
        const bool with_bias = operands.bias && !weight_grad && chunk.first == 0;
        params.row_first = static_cast<uint32_t>(row_first);
        params.row_count = static_cast<uint32_t>(rows);
        params.k_first = static_cast<uint32_t>(chunk.first);
        params.k_per_split = static_cast<uint32_t>(chunk.length);
        params.a_base = static_cast<uint32_t>(a_low);
        const bool last = chunk.first + chunk.length == total_k;
        params.flags = (with_bias ? kHasBias : 0u) | (accumulate ? kAccumulate : 0u) |
                       (operands.relu && last ? kRelu : 0u);
        Binding bindings[5];
        const Window out_window = element_window(context, out.allocation, out.byte_offset, static_cast<uint32_t>(element_size(out.dtype)),
                                                 std::max<int64_t>(out.numel(), 1), true);
        const Window b_window = element_window(context, b.allocation, b.byte_offset, static_cast<uint32_t>(element),
                                               std::max<int64_t>(b.numel(), 1), false);
        bindings[kOut] = out_window.binding;
        params.offsets[kOut] = out_window.first_element;
        bindings[kA] = a_window;
        params.offsets[kA] = static_cast<uint32_t>((start - aligned) / element);
        bindings[kB] = b_window.binding;
        params.offsets[kB] = b_window.first_element;
        // The bias slot: the bias, or out itself (read) when adding to it, or else any window.
        if (with_bias) {
          const Window w = element_window(context, operands.bias->allocation, operands.bias->byte_offset,
                                          static_cast<uint32_t>(element_size(operands.bias->dtype)),
                                          operands.bias->numel(), false);
          bindings[kBias] = w.binding;
          params.offsets[kBias] = w.first_element;
        } else if (accumulate) {
          bindings[kBias] = Binding{out_window.binding.allocation, out_window.binding.offset, out_window.binding.range, false};
          params.offsets[kBias] = out_window.first_element;
        } else {
          bindings[kBias] = b_window.binding;
          params.offsets[kBias] = b_window.first_element;
        }
        const auto row_groups = static_cast<uint32_t>((rows + plan.block_m - 1) / plan.block_m);
        // B once more at 4, for the texel variant (conv_register.comp, TEXEL_READS).
        bindings[4] = bindings[kB];
        const bool texels = dtype == DType::Float32 && can_read_as_texels(context, bindings[kB]);
        const bool word_stores = takes_word_stores(direction, compute, out.dtype, plan.block_n, out_plane,
                                                   params.offsets[kOut]);
        vs.dispatch(pipelines.get(texels, word_stores), std::span<const Binding>(bindings, texels ? 5 : 4), &params,
                    sizeof params, column_groups, row_groups, static_cast<uint32_t>(s.groups));
      }
    }
  }
}

}  // namespace ember::vulkan::conv
