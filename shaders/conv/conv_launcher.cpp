// Convolution on Vulkan: forward, input gradient and weight gradient as implicit GEMMs (conv_common.glsl
// says how each direction maps to one), except depthwise ones, which run directly (conv_depthwise.cpp).
// GEMM kernels per direction, chosen per device class (conv_variant.h): shared-memory tiles on GPUs,
// register blocks on CPU drivers. These read float32 operands through texel views where the windows
// allow, and share A within subgroups (SHARE_A) where the device and K allow; where they cannot share
// it, they read A through a uniform buffer where that pays (conv_uniform.cpp). Before them, CPU drivers run
// stride-1 float32 forwards and input gradients with the row kernel (conv_rows.cpp), which reads a padded
// copy of B a run of a row at a time.
//
// Launches split along the batch where a batched operand outgrows a storage-buffer binding, or the
// columns (batch × positions) outnumber a dispatch's workgroups. The weight gradient reduces over the
// batch and positions, so it splits that reduction too, into enough workgroups for the device: each
// split (and each batch launch) writes its own partial sums, in float32 (float64 for float64), and a
// reduction over the splits writes the gradient.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/allocator.h"
#include "runtime/error.h"
#include "runtime/kernels/conv.h"
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/memory.h"
#include "runtime/kernels/reduce.h"
#include "shaders/common/variant_pipelines.h"
#include "shaders/common/vulkan_family.h"
#include "shaders/conv/conv_launch.h"
#include "shaders/conv/conv_variant.h"
#include "shaders/matmul/matmul_variant.h"
#include "shaders/reduce/reduce_plan.h"

namespace ember::vulkan {

namespace {

using namespace conv;

struct Tiles {
  std::string shader;
  std::vector<uint32_t> specialization;  // after the four operand dtypes
  int64_t tile_m = 0;
  int64_t tile_n = 0;
  uint32_t lanes_n = 0;
  bool shares_a = false;       // conv_register.comp's SHARE_A
  bool texel_variant = false;  // the shader has a *_texel variant for float32 operands (TEXEL_READS)
  bool bias_column = false;    // the weight gradient can sum the bias gradient too (CONV_BIAS_COLUMN)
  uint32_t block_n = 0;        // conv_register.comp's TN, for its word stores (WORD_STORES); 0: it has none
};

// Register blocks, as matmul's (shaders/matmul/matmul_launcher.cpp): relative speed per FMA on
// lavapipe, where loads dominate (TM + TN loads per TM·TN FMAs).
// A shared block (SHARE_A in conv_register.comp) loads an eighth of its A per k and takes the rest from
// its subgroup: it needs subgroups of 8 with shuffles and float32 compute, and a K of at least
// kMinSharedK, since it walks K in chunks of 8 (the first layer's forward, K = 9, ran 11 times slower).
// On the Fashion-MNIST CNN's second layer (docs/PERFORMANCE.md, "Convolution"), ms per forward / input
// gradient / weight gradient with 64 lanes: 32×8 17.7 / 16.9 / 17.2, 16×8 24 / 24 / 30, 32×16 16 / 15 / 27;
// 16×8 with 8 or 16 lanes ran 30-40% slower than with 32 in the forward. Narrow 32×2 blocks are for few
// columns: the first layer's weight gradient (32 × 9 results) took 3.8 ms with them against 7.7 with 32×8.
struct RegisterBlock {
  uint32_t tm, tn;
  bool shares_a;
  double speed;
};
constexpr RegisterBlock kRegisterBlocks[] = {
    {32, 8, true, 16.0}, {16, 8, true, 12.0}, {32, 2, true, 8.0}, {8, 8, false, 6.0}, {4, 4, false, 3.6}, {1, 8, false, 1.0}};
constexpr uint32_t kLaneCounts[] = {4, 8, 16, 32, 64};
constexpr int64_t kMinSharedK = 64;
// What a workgroup costs beyond its blocks' FMAs, in the model's units (about 60 ns each): llvmpipe runs
// every invocation up to its return, past the last row too. Fitted to the first layer's forward (32 × 50176
// × 9): 8×8 blocks with 4 lanes (1568 workgroups, 4 of 32 subgroups with rows) took 71 ms, with 64 lanes
// (98 workgroups) 7.8.
constexpr double kWorkgroupCost = 800;

// The block and tile shape with the least predicted time: rounds of `workers` workgroups, each round as
// long as the tile's blocks that hold results, plus the workgroup's own cost.
// `can_share_a`: the device and dtype allow shared blocks; `may_share_a`: the model may also pick them.
// EMBER_CONV_BLOCK=tm,tn,lanes[,1] forces a block (1: shared, where it can be).
Tiles register_tiles(const std::string& name, int64_t batch, int64_t M, int64_t N, int64_t workers,
                     bool can_share_a, bool may_share_a) {
  if (const char* forced = std::getenv("EMBER_CONV_BLOCK")) {
    unsigned tm = 8, tn = 8, lanes = 32, share = 0;
    std::sscanf(forced, "%u,%u,%u,%u", &tm, &tn, &lanes, &share);
    Tiles tiles{name, {tm, tn}, int64_t{256 / lanes} * tm, int64_t{lanes} * tn, lanes};
    tiles.shares_a = share != 0 && can_share_a && lanes % 8 == 0;
    return tiles;
  }
  Tiles best;
  double best_cost = 0;
  for (const RegisterBlock& block : kRegisterBlocks) {
    for (uint32_t lanes : kLaneCounts) {
      if (block.shares_a && (!may_share_a || lanes < 32)) continue;
      const int64_t tile_m = int64_t{256 / lanes} * block.tm;
      const int64_t tile_n = int64_t{lanes} * block.tn;
      const int64_t groups = (M + tile_m - 1) / tile_m * ((N + tile_n - 1) / tile_n) * batch;
      const int64_t rounds = (groups + workers - 1) / workers;
      // Blocks past the last row return at once, and so do vectors of 8 invocations past the last column.
      const int64_t rows_run = std::min(tile_m, (M + block.tm - 1) / block.tm * block.tm);
      const int64_t columns_run = std::min(tile_n, (N + 8 * block.tn - 1) / (8 * block.tn) * (8 * block.tn));
      const double cost = static_cast<double>(rounds) *
                          (static_cast<double>(rows_run * columns_run) / block.speed + kWorkgroupCost);
      if (best.shader.empty() || cost < best_cost) {
        best = {name, {block.tm, block.tn}, tile_m, tile_n, lanes, block.shares_a};
        best_cost = cost;
      }
    }
  }
  return best;
}

class VulkanConv final : public ConvKernels {
 public:
  explicit VulkanConv(VulkanDevice& device)
      : device_(device), subgroups_share_a_(register_blocks_can_share_a(device)) {}
  void forward(Stream& stream, const ConvForwardArgs& args) override;
  void input_grad(Stream& stream, const ConvInputGradArgs& args) override;
  void weight_grad(Stream& stream, const ConvWeightGradArgs& args) override;

 private:
  // Records the launches of one direction. `out` is the partial-sum buffer for a split weight gradient,
  // with one more column per row, the bias gradient's, with `bias_column` (register kernel only).
  void launch(Stream& stream, Direction direction, const ConvShape& s, const ConvGeometry& geometry,
              const Operands& operands, int64_t splits_per_launch, bool bias_column = false);
  Tiles choose_tiles(Direction direction, const ConvShape& s, const Gemm& gemm, int64_t batch, int64_t z,
                     bool unit_stride, DType compute) const;
  // Samples per launch: as many as every batched operand's binding window holds, and the columns a
  // dispatch can count. `out` of the weight gradient is not batched and is not looked at.
  int64_t samples_per_launch(Direction direction, const ConvShape& s, const Operands& operands, const Gemm& gemm,
                             int64_t tile_n) const;
  // The most splits of the weight gradient one launch can have: workgroups along z, and partial sums in
  // one binding window.
  int64_t max_weight_splits(const ConvShape& s, const Gemm& gemm, uint64_t element) const;
  // Runs the uniform-buffer kernel where the variant and its plan allow, and says whether it did.
  bool try_uniform(Stream& stream, Direction direction, const ConvShape& s, const ConvGeometry& geometry,
                   const Operands& operands);
  // Runs the row kernel where the variant allows and it applies, and says whether it did.
  bool try_rows(Stream& stream, Direction direction, const ConvShape& s, const ConvGeometry& geometry,
                const Operands& operands) {
    return rows_allowed() && launch_rows(device_, stream, direction, s, geometry, operands);
  }
  // Whether the variant lets the row kernels run (automatically, or forced with EMBER_CONV_VARIANT=rows).
  bool rows_allowed() const {
    const ConvVariant variant = conv_variant(device_.info());
    return variant == ConvVariant::Automatic || variant == ConvVariant::Rows;
  }
  // Whether the register kernel can run shared-A blocks at all, and whether it should (kMinSharedK).
  bool can_share_a(DType compute) const { return compute == DType::Float32 && subgroups_share_a_; }
  bool shares_a(Direction direction, const ConvShape& s, const Gemm& gemm, DType compute) const {
    const int64_t k = gemm.k * (direction == Direction::WeightGrad ? s.batch : 1);
    return can_share_a(compute) && k >= kMinSharedK;
  }
  void fill_zero(Stream& stream, const TensorRef& out);
  // Whether a convolution runs the direct depthwise kernel (conv_depthwise.comp).
  bool depthwise(const ConvShape& s, const ConvGeometry& geometry) const {
    conv_variant(device_.info());  // rejects a misspelt EMBER_CONV_VARIANT
    return conv_depthwise_allowed() && depthwise_applies(s, geometry);
  }
  void broadcast_bias(Stream& stream, const TensorRef& out, const TensorRef& bias);

  VulkanDevice& device_;
  const bool subgroups_share_a_;  // the device's properties, asked once
};

Tiles VulkanConv::choose_tiles(Direction direction, const ConvShape& s, const Gemm& gemm, int64_t batch, int64_t z,
                               bool unit_stride, DType compute) const {
  const std::string suffix = std::string(direction_name(direction)) + "_" + std::string(compute_suffix(compute));
  const DeviceInfo& info = device_.info();
  const int64_t n = direction == Direction::WeightGrad ? gemm.n_per_sample : gemm.n_per_sample * batch;
  if (conv_variant(info) != ConvVariant::Tiled) {
    const int64_t workers = info.kind == "CPU" ? cpu_workers() : 4096;
    Tiles tiles = register_tiles("conv_register_" + suffix, z, gemm.m, n, workers, can_share_a(compute),
                                 shares_a(direction, s, gemm, compute));
    tiles.texel_variant = compute == DType::Float32;
    tiles.bias_column = true;
    tiles.block_n = tiles.specialization[1];
    tiles.specialization.push_back(s.spatial == 3 ? 1u : 0u);
    tiles.specialization.push_back(unit_stride ? 1u : 0u);
    tiles.specialization.push_back(tiles.shares_a ? 1u : 0u);
    return tiles;
  }
  // 64×64 tiles, BK 16; BK 8 where 16 would not fit shared memory (float64 on a 16 KiB device).
  const uint32_t tm = 4, tn = 4;
  const uint64_t scalar_bytes = element_size(compute_storage(compute));
  const uint64_t bytes_per_k = (16 * tm + 1 + 16 * tn + 1) * scalar_bytes;
  const uint32_t bk = 16 * bytes_per_k <= info.shared_memory_bytes ? 16 : 8;
  return {"conv_tiled_" + suffix, {tm, tn, bk}, 16 * int64_t{tm}, 16 * int64_t{tn}, 0};
}

int64_t VulkanConv::samples_per_launch(Direction direction, const ConvShape& s, const Operands& operands,
                                       const Gemm& gemm, int64_t tile_n) const {
  const Context& context = device_.context();
  const uint64_t window = max_window_bytes(context);
  const uint64_t element = element_size(operands.b.dtype);
  // Batched operands: out and B, and A for the weight gradient.
  std::vector<const TensorRef*> batched = {&operands.b};
  if (direction != Direction::WeightGrad) batched.push_back(&operands.out);
  else batched.push_back(&operands.a);
  uint64_t per_sample = 0;
  for (const TensorRef* ref : batched) {
    per_sample = std::max<uint64_t>(per_sample, static_cast<uint64_t>(ref->numel() / s.batch) * element);
  }
  std::vector<const TensorRef*> whole;
  if (direction != Direction::WeightGrad) whole.push_back(&operands.a);
  if (operands.bias) whole.push_back(&*operands.bias);
  for (const TensorRef* ref : whole) {
    if (ref->extent_bytes() > window) {
      throw UnsupportedError("conv " + std::string(direction_name(direction)) + ": the weight (" +
                             format_bytes(ref->extent_bytes()) + ") is larger than a storage-buffer binding of " +
                             device_.info().name + " can reach (" + format_bytes(window) + ")");
    }
  }
  if (per_sample > window) {
    throw UnsupportedError("conv " + std::string(direction_name(direction)) + ": one sample (" +
                           format_bytes(per_sample) + ") is larger than a storage-buffer binding of " +
                           device_.info().name + " can reach (" + format_bytes(window) + ")");
  }
  int64_t samples = std::min<int64_t>(s.batch, static_cast<int64_t>(window / std::max<uint64_t>(per_sample, 1)));
  if (direction != Direction::WeightGrad) {
    // Columns: workgroups along x, and 32-bit column indices.
    const int64_t max_columns =
        std::min<int64_t>(int64_t{context.properties.limits.maxComputeWorkGroupCount[0]} * tile_n, int64_t{1} << 31);
    samples = std::min(samples, std::max<int64_t>(1, max_columns / std::max<int64_t>(gemm.n_per_sample, 1)));
    if (gemm.n_per_sample > max_columns) {
      throw UnsupportedError("conv: " + std::to_string(gemm.n_per_sample) +
                             " positions per sample need more workgroups than " + device_.info().name + " can launch");
    }
  } else {
    samples = std::min(samples, std::max<int64_t>(1, (int64_t{1} << 31) / std::max<int64_t>(gemm.k, 1)));
    // Each split sums at most kMaxKPerInvocation, and a launch has at most max_weight_splits splits.
    const int64_t splits = max_weight_splits(s, gemm, element);
    if (gemm.k > splits * kMaxKPerInvocation) {
      throw UnsupportedError("conv weight_grad: " + std::to_string(gemm.k) + " output positions per sample need more "
                             "splits than " + device_.info().name + " can launch");
    }
    samples = std::min(samples, splits * kMaxKPerInvocation / gemm.k);
  }
  return std::max<int64_t>(samples, 1);
}

int64_t VulkanConv::max_weight_splits(const ConvShape& s, const Gemm& gemm, uint64_t element) const {
  const Context& context = device_.context();
  // One split's partial sums, with the bias column.
  const uint64_t weight_bytes = static_cast<uint64_t>(s.out_channels * (gemm.n_per_sample + 1)) *
                                std::max<uint64_t>(element, element_size(DType::Float32));
  const int64_t by_window = static_cast<int64_t>(max_window_bytes(context) / std::max<uint64_t>(weight_bytes, 1));
  const int64_t by_groups = context.properties.limits.maxComputeWorkGroupCount[2] / s.groups;
  return std::max<int64_t>(1, std::min(by_window, by_groups));
}

void VulkanConv::fill_zero(Stream& stream, const TensorRef& out) {
  if (out.numel() == 0) return;
  device_.kernels().get<MemoryKernels>().fill(stream, {out, 0});
}

// Where nothing is summed, the bias alone, broadcast over the batch and positions.
void VulkanConv::broadcast_bias(Stream& stream, const TensorRef& out, const TensorRef& bias) {
  TensorRef broadcast = bias;
  broadcast.ndim = out.ndim;
  broadcast.sizes = out.sizes;
  broadcast.strides = {};
  broadcast.strides[1] = bias.strides[0];
  device_.kernels().get<MemoryKernels>().copy(stream, {out, broadcast});
}


void VulkanConv::launch(Stream& stream, Direction direction, const ConvShape& s, const ConvGeometry& geometry,
                        const Operands& operands, int64_t splits_per_launch, bool bias_column) {
  const Geometry3 g = as_3d(s, geometry);
  const Gemm gemm = gemm_of(direction, s, g);
  const DType dtype = operands.b.dtype;
  const DType compute = dtype == DType::Float64 ? DType::Float64 : DType::Float32;
  const bool unit_stride = g.stride[0] == 1 && g.stride[1] == 1 && g.stride[2] == 1;
  const Context& context = device_.context();
  const auto& limits = context.properties.limits;

  // Tiles are chosen for a full launch; the last, shorter one keeps them.
  const int64_t z = s.groups * splits_per_launch;
  const Tiles probe = choose_tiles(direction, s, gemm, s.batch, z, unit_stride, compute);
  const int64_t samples = samples_per_launch(direction, s, operands, gemm, probe.tile_n);
  const Tiles tiles = samples == s.batch ? probe : choose_tiles(direction, s, gemm, samples, z, unit_stride, compute);
  if (z > limits.maxComputeWorkGroupCount[2]) {
    throw UnsupportedError("conv: " + std::to_string(s.groups) + " groups need more workgroups than " +
                           device_.info().name + " can launch");
  }
  std::vector<uint32_t> specialization(4, static_cast<uint32_t>(dtype));
  specialization[kOut] = static_cast<uint32_t>(operands.out.dtype);
  specialization.insert(specialization.end(), tiles.specialization.begin(), tiles.specialization.end());
  VariantPipelines pipelines(device_.pipelines(), tiles.shader, specialization, kWordStoresConstant);
  const int64_t out_plane = direction == Direction::InputGrad ? volume(g.in_size) : volume(g.out_size);

  ConvParams params = base_params(s, g);

  VulkanStream& vs = vulkan_stream(stream);
  int64_t launch_index = 0;
  for (int64_t first = 0; first < s.batch; first += samples, ++launch_index) {
    const int64_t count = std::min(samples, s.batch - first);
    TensorRef pieces[4];
    if (direction == Direction::WeightGrad) {
      // out: this launch's splits of the partial sums (or the gradient itself when there is one split).
      pieces[kOut] = samples_of(operands.out, launch_index * splits_per_launch, splits_per_launch);
      pieces[kA] = samples_of(operands.a, first, count);
    } else {
      pieces[kOut] = samples_of(operands.out, first, count);
      pieces[kA] = operands.a;
    }
    pieces[kB] = samples_of(operands.b, first, count);
    if (operands.bias) pieces[kBias] = *operands.bias;
    params.batch = static_cast<uint32_t>(count);
    const int64_t columns =
        direction == Direction::WeightGrad ? gemm.n_per_sample + (bias_column ? 1 : 0) : gemm.n_per_sample * count;
    const auto column_groups = static_cast<uint32_t>((columns + tiles.tile_n - 1) / tiles.tile_n);
    const auto row_groups = static_cast<uint32_t>((gemm.m + tiles.tile_m - 1) / tiles.tile_m);
    if (column_groups > limits.maxComputeWorkGroupCount[0] || row_groups > limits.maxComputeWorkGroupCount[1]) {
      throw UnsupportedError("conv: the GEMM of " + std::to_string(gemm.m) + " x " + std::to_string(columns) +
                             " needs more workgroups than " + device_.info().name + " can launch");
    }
    // The weight gradient's splits cover this launch's k in one dispatch; the other directions sum k in
    // chunks, one dispatch each, the later ones adding to what the first wrote (and the bias).
    const bool weight_grad = direction == Direction::WeightGrad;
    const int64_t k_total = gemm.k * (weight_grad ? count : 1);
    const int64_t chunks = weight_grad ? 1 : (k_total + kMaxKPerInvocation - 1) / kMaxKPerInvocation;
    const int64_t k_step = weight_grad ? (k_total + splits_per_launch - 1) / splits_per_launch
                                       : (k_total + chunks - 1) / chunks;
    params.k_per_split = static_cast<uint32_t>(k_step);
    for (int64_t chunk = 0; chunk < chunks; ++chunk) {
      params.k_first = static_cast<uint32_t>(chunk * k_step);
      const bool accumulate = chunk > 0;
      const bool with_bias = !accumulate && operands.bias.has_value();
      params.flags = (with_bias ? kHasBias : 0u) | (accumulate ? kAccumulate : 0u) | (bias_column ? kBiasColumn : 0u) |
                     (operands.relu && chunk == chunks - 1 ? kRelu : 0u) | (tiles.lanes_n << 8);
      Binding bindings[6];
      for (int slot = 0; slot < 4; ++slot) {
        // The bias slot holds the bias, or out itself (read) when accumulating, or else any window.
        const TensorRef& ref = slot == kBias ? (with_bias ? pieces[kBias] : accumulate ? pieces[kOut] : pieces[kA])
                                             : pieces[slot];
        const Window window = element_window(context, ref.allocation, ref.byte_offset,
                                             static_cast<uint32_t>(element_size(ref.dtype)),
                                             std::max<int64_t>(ref.numel(), 1), slot == kOut);
        bindings[slot] = window.binding;
        params.offsets[slot] = window.first_element;
      }
      bindings[4] = bindings[kB];
      bindings[5] = bindings[kA];
      const bool texels = tiles.texel_variant && dtype == DType::Float32 && can_read_as_texels(context, bindings[kB]) &&
                          can_read_as_texels(context, bindings[kA]);
      const bool word_stores = tiles.block_n != 0 && takes_word_stores(direction, compute, operands.out.dtype,
                                                                      tiles.block_n, out_plane, params.offsets[kOut]);
      vs.dispatch(pipelines.get(texels, word_stores), std::span<const Binding>(bindings, texels ? 6 : 4), &params,
                  sizeof params, column_groups, row_groups, static_cast<uint32_t>(z));
    }
  }
}

bool VulkanConv::try_uniform(Stream& stream, Direction direction, const ConvShape& s, const ConvGeometry& geometry,
                             const Operands& operands) {
  const ConvVariant variant = conv_variant(device_.info());
  if (variant != ConvVariant::Automatic && variant != ConvVariant::Uniform) return false;
  const Gemm gemm = gemm_of(direction, s, as_3d(s, geometry));
  // Where the storage-buffer kernel can share A, it does better: on the Fashion-MNIST CNN's second layer
  // it took 19-22 ms per direction against the uniform kernel's 22-23 (forward, input gradient) and 47
  // (the weight gradient, whose window of A holds one sample, so that it ran a launch per sample).
  const DType compute = operands.b.dtype == DType::Float64 ? DType::Float64 : DType::Float32;
  if (variant == ConvVariant::Automatic && shares_a(direction, s, gemm, compute)) return false;
  const int64_t samples = samples_per_launch(direction, s, operands, gemm, 256);
  const UniformPlan plan = plan_uniform(device_.context(), direction, s, gemm, samples, operands.b.dtype,
                                        variant == ConvVariant::Uniform);
  if (plan.block_m == 0) return false;
  launch_uniform(device_, stream, direction, s, geometry, operands, samples, plan);
  return true;
}

void VulkanConv::forward(Stream& stream, const ConvForwardArgs& args) {
  const ConvShape s = check_conv_args(args);
  require_dtype(device_, args.input.dtype, "conv forward");
  if (args.output.numel() == 0) return;
  if (args.input.numel() == 0 || args.weight.numel() == 0) {
    if (!args.bias) return fill_zero(stream, args.output);
    broadcast_bias(stream, args.output, *args.bias);
    return conv_relu_in_place(device_.kernels().get<ElementwiseKernels>(), stream, args);
  }
  const Operands operands{args.output, args.weight, args.input, args.bias, args.relu};
  if (depthwise(s, args.geometry)) return launch_depthwise(device_, stream, Direction::Forward, s, args.geometry, operands);
  if (try_rows(stream, Direction::Forward, s, args.geometry, operands)) return;
  if (try_uniform(stream, Direction::Forward, s, args.geometry, operands)) return;
  launch(stream, Direction::Forward, s, args.geometry, operands, 1);
}

void VulkanConv::input_grad(Stream& stream, const ConvInputGradArgs& args) {
  const ConvShape s = check_conv_args(args);
  require_dtype(device_, args.grad_input.dtype, "conv input_grad");
  if (args.grad_input.numel() == 0) return;
  if (args.grad_output.numel() == 0 || args.weight.numel() == 0) {
    if (!args.bias) return fill_zero(stream, args.grad_input);
    return broadcast_bias(stream, args.grad_input, *args.bias);
  }
  const Operands operands{args.grad_input, args.weight, args.grad_output, args.bias};
  if (depthwise(s, args.geometry)) {
    return launch_depthwise(device_, stream, Direction::InputGrad, s, args.geometry, operands);
  }
  if (try_rows(stream, Direction::InputGrad, s, args.geometry, operands)) return;
  if (try_uniform(stream, Direction::InputGrad, s, args.geometry, operands)) return;
  launch(stream, Direction::InputGrad, s, args.geometry, operands, 1);
}

void VulkanConv::weight_grad(Stream& stream, const ConvWeightGradArgs& args) {
  const ConvShape s = check_conv_args(args);
  const DType dtype = args.input.dtype;
  require_dtype(device_, dtype, "conv weight_grad");
  // The bias gradient is summed on its own, except where the register kernel's bias column sums it.
  auto bias_apart = [&] { conv_bias_grad_by_reduction(device_.kernels().get<ReduceKernels>(), stream, args); };
  if (args.grad_weight.numel() == 0) return bias_apart();
  if (args.input.numel() == 0 || args.grad_output.numel() == 0) {
    fill_zero(stream, args.grad_weight);
    return bias_apart();
  }
  const uint64_t window = max_window_bytes(device_.context());
  if (args.grad_weight.extent_bytes() > window) {
    throw UnsupportedError("conv weight_grad: the weight (" + format_bytes(args.grad_weight.extent_bytes()) +
                           ") is larger than a storage-buffer binding of " + device_.info().name + " can reach (" +
                           format_bytes(window) + ")");
  }
  if (depthwise(s, args.geometry)) {
    launch_depthwise_weight_grad(device_, stream, s, args.geometry, args);
    return bias_apart();
  }
  if (rows_allowed() && launch_rows_weight_grad(device_, stream, s, args)) return;

  // The uniform-buffer kernel adds every launch's sums into one float32 (float64) accumulator: the
  // gradient itself, or scratch memory that is cast into it.
  const int64_t weight_elements = args.grad_weight.numel();
  const DType accumulator_dtype = dtype == DType::Float64 ? DType::Float64 : DType::Float32;
  std::shared_ptr<Allocation> accumulator_memory;
  TensorRef accumulator = TensorRef::contiguous(*args.grad_weight.allocation, dtype, {1, weight_elements},
                                                args.grad_weight.byte_offset);
  if (dtype != accumulator_dtype) {
    accumulator_memory = device_.allocator().allocate(static_cast<uint64_t>(weight_elements) * 4, stream.shared_from_this());
    accumulator = TensorRef::contiguous(*accumulator_memory, accumulator_dtype, {1, weight_elements});
  }
  if (try_uniform(stream, Direction::WeightGrad, s, args.geometry, {accumulator, args.grad_output, args.input, {}})) {
    if (accumulator_memory) {
      UnaryArgs cast;
      cast.op = UnaryOp::Cast;
      cast.out = TensorRef::contiguous(*args.grad_weight.allocation, dtype, {weight_elements}, args.grad_weight.byte_offset);
      cast.in = TensorRef::contiguous(*accumulator_memory, accumulator_dtype, {weight_elements});
      cast.compute = accumulator_dtype;
      device_.kernels().get<ElementwiseKernels>().unary(stream, cast);
    }
    return bias_apart();
  }

  // Splits of the reduction per launch: enough workgroups for the device, each split at least kMinK long
  // and at most kMaxKPerInvocation.
  constexpr int64_t kMinK = 256;
  const Geometry3 g = as_3d(s, args.geometry);
  const Gemm gemm = gemm_of(Direction::WeightGrad, s, g);
  const DType compute = dtype == DType::Float64 ? DType::Float64 : DType::Float32;
  const bool cpu = device_.info().kind == "CPU";
  const Tiles tiles = choose_tiles(Direction::WeightGrad, s, gemm, s.batch, s.groups, true, compute);
  const Operands probe{args.grad_weight, args.grad_output, args.input, {}};  // for the window sizes
  const int64_t samples = samples_per_launch(Direction::WeightGrad, s, probe, gemm, tiles.tile_n);
  const int64_t launches = (s.batch + samples - 1) / samples;
  const int64_t tiles_per_split = (gemm.m + tiles.tile_m - 1) / tiles.tile_m *
                                  ((gemm.n_per_sample + tiles.tile_n - 1) / tiles.tile_n) * s.groups;
  const int64_t wanted_groups = cpu ? 4 * cpu_workers() : 512;
  const int64_t k_launch = gemm.k * samples;
  int64_t splits = std::clamp<int64_t>((wanted_groups + tiles_per_split - 1) / tiles_per_split, 1,
                                       std::max<int64_t>(1, k_launch / kMinK));
  splits = std::max(splits, (k_launch + kMaxKPerInvocation - 1) / kMaxKPerInvocation);
  splits = std::min(splits, max_weight_splits(s, gemm, element_size(dtype)));
  const DType partial_dtype = compute_storage(compute);
  const int64_t partials = splits * launches;
  // The register kernel sums the bias gradient in one more column of the partial sums (conv_common.glsl's
  // CONV_BIAS_COLUMN): grad_output is read once for both gradients.
  const bool bias_column = args.grad_bias.has_value() && tiles.bias_column;
  if (partials == 1 && !bias_column) {
    // One launch, one split: straight into the gradient, seen as the shader's [1, weight elements].
    const TensorRef out = TensorRef::contiguous(*args.grad_weight.allocation, dtype, {1, weight_elements},
                                                args.grad_weight.byte_offset);
    launch(stream, Direction::WeightGrad, s, args.geometry, {out, args.grad_output, args.input, {}}, 1);
    return bias_apart();
  }
  // Partial sums [partials, Cout, columns]: the weight gradient's row of each output channel, and its bias
  // gradient in the last column with bias_column.
  const int64_t columns = gemm.n_per_sample + (bias_column ? 1 : 0);
  const int64_t partial_elements = partials * s.out_channels * columns;
  std::shared_ptr<Allocation> scratch = device_.allocator().allocate(
      static_cast<uint64_t>(partial_elements) * element_size(partial_dtype), stream.shared_from_this());
  const TensorRef partial = TensorRef::contiguous(*scratch, partial_dtype, {partials, s.out_channels * columns});
  launch(stream, Direction::WeightGrad, s, args.geometry, {partial, args.grad_output, args.input, {}}, splits,
         bias_column);
  sum_weight_partials(device_, stream, *scratch, partial_dtype, partials, gemm.n_per_sample,
                      bias_column ? BiasPartials::Column : BiasPartials::None, args);
  if (!bias_column) bias_apart();
}

}  // namespace

void conv::sum_weight_partials(VulkanDevice& device, Stream& stream, Allocation& scratch, DType partial_dtype,
                               int64_t partials, int64_t taps, BiasPartials bias, const ConvWeightGradArgs& args) {
  const int64_t out_channels = args.grad_weight.sizes[0];
  const int64_t columns = taps + (bias == BiasPartials::Column ? 1 : 0);
  ReduceKernels& reduce = device.kernels().get<ReduceKernels>();
  ReduceArgs sum;
  sum.op = ReduceOp::Sum;
  sum.out = TensorRef::contiguous(*args.grad_weight.allocation, args.grad_weight.dtype, {out_channels, taps},
                                  args.grad_weight.byte_offset);
  sum.in = TensorRef::contiguous(scratch, partial_dtype, {partials, out_channels, taps});
  sum.in.strides = {out_channels * columns, columns, 1};
  sum.reduce_mask = 1;
  sum.compute = partial_dtype == DType::Float64 ? DType::Float64 : DType::Float32;
  reduce.reduce(stream, sum);
  if (bias == BiasPartials::None || !args.grad_bias) return;
  sum.out = *args.grad_bias;
  const int64_t bias_first = bias == BiasPartials::Column ? taps : partials * out_channels * taps;
  sum.in = TensorRef::contiguous(scratch, partial_dtype, {partials, out_channels},
                                 static_cast<uint64_t>(bias_first) * element_size(partial_dtype));
  if (bias == BiasPartials::Column) sum.in.strides = {out_channels * columns, columns};
  reduce.reduce(stream, sum);
}

ConvVariant conv_variant(const DeviceInfo& info) {
  if (const char* forced = std::getenv("EMBER_CONV_VARIANT"); forced && *forced) {
    const std::string value(forced);
    if (value == "register") return ConvVariant::Register;
    if (value == "uniform") return ConvVariant::Uniform;
    if (value == "tiled") return ConvVariant::Tiled;
    if (value == "rows") return ConvVariant::Rows;
    if (value != "depthwise") {
      throw Error("EMBER_CONV_VARIANT is '" + value + "'; it takes register, uniform, tiled, rows or depthwise");
    }
  }
  return matmul_variant(info) == MatmulVariant::Tiled ? ConvVariant::Tiled : ConvVariant::Automatic;
}

bool conv_depthwise_allowed() {
  const char* forced = std::getenv("EMBER_CONV_VARIANT");
  return forced == nullptr || *forced == '\0' || std::string(forced) == "depthwise";
}

EMBER_VULKAN_KERNELS(ConvKernels, VulkanConv);

}  // namespace ember::vulkan
