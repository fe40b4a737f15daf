// Batched matmul on Vulkan: out = alpha * A @ B + beta * bias (see MatmulArgs). Two kernels, chosen per
// device class: shared-memory tiles for GPUs (matmul_tiled.comp) and register blocks read straight from
// memory for CPU drivers (matmul_register.comp), where shared memory is slow; EMBER_MATMUL_VARIANT
// overrides the choice. Operands larger than one storage-buffer binding are split into launch windows
// along the batch, then along the rows of A and out. Integer operands (not bool) multiply in the integer
// variants of the same kernels, with wraparound.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "runtime/error.h"
#include "runtime/kernels/matmul.h"
#include "runtime/kernels/reduce.h"
#include "shaders/common/launch.h"
#include "shaders/common/variant_pipelines.h"
#include "shaders/common/vulkan_family.h"
#include "shaders/matmul/matmul_variant.h"

namespace ember::vulkan {

// SHARE_A's chunks are 8 lanes wide.
bool register_blocks_can_share_a(VulkanDevice& device) {
  return device.info().subgroup_size == 8 && compute_subgroup_shuffles(device);
}

namespace {

// Mirrors the push-constant block of matmul_common.glsl.
struct MatmulParams {
  uint32_t alpha[2];
  uint32_t beta[2];
  uint32_t M, N, K;
  uint32_t flags;
  uint32_t lanes_n;
  uint32_t offsets[4];
  uint32_t batch_strides[4];
  uint32_t row_strides[4];
  uint32_t col_strides[4];
  uint32_t row_sums_offset;
  uint32_t row_sums_strides[2];
};
static_assert(sizeof(MatmulParams) == 112, "push constants must fit lavapipe's 128 bytes");

constexpr uint32_t kHasBias = 1;  // MATMUL_HAS_BIAS
constexpr uint32_t kAKFast = 2;   // MATMUL_A_K_FAST
constexpr uint32_t kBNFast = 4;   // MATMUL_B_N_FAST
constexpr uint32_t kRowSums = 8;  // MATMUL_ROW_SUMS
constexpr int64_t kCpuMaxK = 65535;  // llvmpipe's loop guard (below)

// Operand order in the shaders' bindings and push-constant arrays.
enum Operand3 { kOut = 0, kA = 1, kB = 2, kBias = 3 };

const KernelAbiRegistration kAbis{
    {"matmul_tiled_f32", 4, sizeof(MatmulParams)},
    {"matmul_tiled_f64", 4, sizeof(MatmulParams)},
    {"matmul_register_f32", 4, sizeof(MatmulParams)},
    {"matmul_register_f32_texel", 7, sizeof(MatmulParams)},
    {"matmul_register_f64", 4, sizeof(MatmulParams)},
    {"matmul_tiled_i32", 4, sizeof(MatmulParams)},
    {"matmul_tiled_i64", 4, sizeof(MatmulParams)},
    {"matmul_register_i32", 4, sizeof(MatmulParams)},
    {"matmul_register_i64", 4, sizeof(MatmulParams)},
};

bool is_float(DType dtype) {
  return dtype == DType::Float32 || dtype == DType::Float16 || dtype == DType::BFloat16 ||
         dtype == DType::Float64;
}

void check_operand(const VulkanDevice& device, const TensorRef& ref, const char* name) {
  if (!is_float(ref.dtype) && !is_integral(ref.dtype)) {
    throw UnsupportedError(std::string("matmul on Vulkan takes floating or integer operands, not bool; ") +
                           name + " is " + std::string(dtype_name(ref.dtype)));
  }
  require_dtype(device, ref.dtype, "matmul");
  if (ref.ndim != 3) {
    throw Error(std::string("matmul kernel takes 3-dim (batch, rows, columns) operands; ") + name +
                " has " + std::to_string(ref.ndim) + " dims");
  }
  for (int d = 0; d < 3; ++d) {
    if (ref.strides[d] < 0) throw Error(std::string("matmul kernel: ") + name + " has a negative stride");
  }
}

void check_sizes(const TensorRef& ref, const char* name, int64_t batch, int64_t rows, int64_t cols) {
  if (ref.sizes[0] != batch || ref.sizes[1] != rows || ref.sizes[2] != cols) {
    throw Error(std::string("matmul kernel: ") + name + " is " + std::to_string(ref.sizes[0]) + "x" +
                std::to_string(ref.sizes[1]) + "x" + std::to_string(ref.sizes[2]) + ", expected " +
                std::to_string(batch) + "x" + std::to_string(rows) + "x" + std::to_string(cols));
  }
}

// `ref` restricted to matrices [b0, b0 + batch) and rows [m0, m0 + rows).
TensorRef sub_block(const TensorRef& ref, int64_t b0, int64_t batch, int64_t m0, int64_t rows) {
  TensorRef piece = ref;
  piece.byte_offset += static_cast<uint64_t>(b0 * ref.strides[0] + m0 * ref.strides[1]) *
                       element_size(ref.dtype);
  piece.sizes[0] = batch;
  piece.sizes[1] = rows;
  return piece;
}

// The view of `count` positions of dim `dim` from `first`.
TensorRef narrowed(const TensorRef& ref, int dim, int64_t first, int64_t count) {
  TensorRef view = ref;
  view.byte_offset += static_cast<uint64_t>(first * ref.strides[dim]) * element_size(ref.dtype);
  view.sizes[dim] = count;
  return view;
}

// Bytes between the first and the last element of `ref` along `dim`.
uint64_t span_bytes(const TensorRef& ref, int dim) {
  return static_cast<uint64_t>((ref.sizes[dim] - 1) * ref.strides[dim]) * element_size(ref.dtype);
}

// A stride as the shader takes it: only strides along dims longer than one are ever multiplied by a
// non-zero index, and those stay inside one binding window, so they fit 32 bits.
uint32_t shader_stride(const TensorRef& ref, int d) {
  return ref.sizes[d] > 1 ? static_cast<uint32_t>(ref.strides[d]) : 0u;
}

// The largest n in [1, limit] with fits(n), or 0 when fits(1) is false; fits must be monotone.
template <class Fits>
int64_t largest_fitting(int64_t limit, Fits fits) {
  if (limit < 1 || !fits(1)) return 0;
  int64_t lo = 1, hi = limit;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

struct Tiles {
  std::string shader;
  std::vector<uint32_t> specialization;  // after the four operand dtypes
  int64_t tile_m = 0;
  int64_t tile_n = 0;
  uint32_t lanes_n = 0;  // the register kernel's push constant
  bool shares_a = false;  // the register kernel's SHARE_A
  uint32_t workgroup = 256;
  // The register kernel loads float32 pairs, which matmul_register_f32_texel can read through texel
  // views where a launch's A and B windows allow them.
  bool texel_pairs = false;
};

// matmul_register.comp's OUT_PAIRS (a VariantPipelines flag).
constexpr uint32_t kOutPairsConstant = 11;

// matmul_register.comp's A_PAIRS and B_PAIRS.
constexpr uint32_t kPairsNone = 0, kPairsAlongK = 1, kPairsAlongRowsOrCols = 2, kQuadsAlongCols = 3, kQuadsAlongK = 4;

// Whether the register kernel may read `ref` (batch × rows × cols) `width` elements at a time along dim 1
// (rows) or 2 (columns): float32, float16 or bfloat16 under float32 compute, unit stride and a size that
// `width` divides along that dim, and every group starting on a multiple of `width` elements in every
// launch window (start and other strides; windows start on the device's offset alignment).
bool can_group(const Context& context, const TensorRef& ref, int dim, DType compute, int64_t width = 2) {
  const uint64_t size = element_size(ref.dtype);
  if (compute != DType::Float32 || size > 4 || ref.allocation == nullptr) return false;
  if (ref.strides[dim] != 1 || ref.sizes[dim] % width != 0) return false;
  for (int d = 0; d < 3; ++d) {
    if (d != dim && ref.sizes[d] > 1 && ref.strides[d] % width != 0) return false;
  }
  const uint64_t bytes = static_cast<uint64_t>(width) * size;
  const uint64_t start = ref.allocation->offset() + ref.byte_offset;
  return start % bytes == 0 && context.properties.limits.minStorageBufferOffsetAlignment % bytes == 0;
}

// Register blocks per invocation with their speed on lavapipe in GFLOP per CPU-second (docs/PERFORMANCE.md,
// "Matmul"). Private blocks load all of their A: each load costs as much as several FMAs there, and a
// TM×TN block makes TM + TN loads per TM·TN FMAs. 16×8 and 16×16 private blocks ran no faster than 8×8
// beyond the noise and took 2.7 and 6.6 CPU-seconds to compile (8×8: 1.3), so they are left out.
// A shared block (SHARE_A) takes A from the lane of its subgroup that loaded it: it needs subgroups of 8
// with shuffles, 8 lanes along N per subgroup, and float32 compute; its workgroups hold 64 invocations,
// so that small products still spread over every thread. 32×8 shared ran 15-30% faster than 16×8 but
// took 6.7 CPU-seconds to compile against 2.4.
struct RegisterBlock {
  uint32_t tm, tn;
  bool shares_a;
  uint32_t workgroup;
  double speed;
};
constexpr RegisterBlock kRegisterBlocks[] = {
    {16, 8, true, 64, 15.0}, {8, 8, false, 256, 7.8}, {4, 4, false, 256, 4.8}};
constexpr uint32_t kLaneCounts[] = {4, 8, 16, 32, 64};  // invocations along N

// The block and tile shape with the least predicted time: rounds of `workers` workgroups (lavapipe runs
// one workgroup per CPU thread), each round as long as one tile, padding columns included; padding rows
// cost nothing past the block holding the last row, since invocations wholly past M return at once.
Tiles register_tiles(const std::string& suffix, int64_t batch, int64_t M, int64_t N, int64_t workers,
                     bool may_share_a, bool must_share_a) {
  Tiles best;
  double best_cost = 0;
  for (const RegisterBlock& block : kRegisterBlocks) {
    if (block.shares_a ? !may_share_a : must_share_a) continue;
    for (uint32_t lanes : kLaneCounts) {
      if (lanes > block.workgroup || (block.shares_a && lanes % 8 != 0)) continue;
      const int64_t tile_m = int64_t{block.workgroup / lanes} * block.tm;
      const int64_t tile_n = int64_t{lanes} * block.tn;
      const int64_t groups = (M + tile_m - 1) / tile_m * ((N + tile_n - 1) / tile_n) * batch;
      const int64_t rounds = (groups + workers - 1) / workers;
      const int64_t rows_run = std::min(tile_m, (M + block.tm - 1) / block.tm * block.tm);
      const double cost = static_cast<double>(rounds) * static_cast<double>(rows_run * tile_n) / block.speed;
      if (best.shader.empty() || cost < best_cost) {
        best = {"matmul_register_" + suffix, {block.tm, block.tn}, tile_m, tile_n, lanes, block.shares_a,
                block.workgroup};
        best_cost = cost;
      }
    }
  }
  return best;
}

Tiles choose_tiles(MatmulVariant variant, const Context& context, bool subgroups_share, const MatmulArgs& args,
                   DType compute) {
  const DeviceInfo& info = context.info;
  const std::string suffix(compute_suffix(compute));
  if (variant != MatmulVariant::Tiled) {
    // A CPU runs a workgroup per thread; a GPU (only when forced) runs many at once, which favours the
    // small tiles it needs anyway.
    const int64_t workers =
        info.kind == "CPU" ? std::max<int64_t>(1, std::thread::hardware_concurrency()) : 4096;
    // GELU's epilogue, inlined for each of a shared block's 128 results, made its pipelines take about
    // 3 s each to create on lavapipe, even with Mesa's shader cache warm.
    const bool cheap_epilogue =
        args.activation == MatmulActivation::None || args.activation == MatmulActivation::Relu;
    const bool may_share_a = variant != MatmulVariant::RegisterPrivate && subgroups_share &&
                             compute == DType::Float32 && cheap_epilogue;
    Tiles tiles = register_tiles(suffix, args.out.sizes[0], args.out.sizes[1], args.out.sizes[2], workers,
                                 may_share_a, may_share_a && variant == MatmulVariant::RegisterShared);
    // Quads of float32 elements are whole texels. Along K they step k by four, so they are taken only
    // where no operand would read pairs along K; along N every register block's TN is a multiple of four.
    const bool a_k_pairs = can_group(context, args.a, 2, compute), b_k_pairs = can_group(context, args.b, 1, compute);
    const bool a_k_quads = args.a.dtype == DType::Float32 && can_group(context, args.a, 2, compute, 4);
    const bool b_k_quads = args.b.dtype == DType::Float32 && can_group(context, args.b, 1, compute, 4);
    const bool k_quads = (a_k_quads || b_k_quads) && (a_k_quads || !a_k_pairs) && (b_k_quads || !b_k_pairs);
    const uint32_t a_pairs = k_quads && a_k_quads                    ? kQuadsAlongK
                             : !k_quads && a_k_pairs                 ? kPairsAlongK
                             : can_group(context, args.a, 1, compute) ? kPairsAlongRowsOrCols
                                                                      : kPairsNone;
    const bool b_n_quads = args.b.dtype == DType::Float32 && can_group(context, args.b, 2, compute, 4);
    const uint32_t b_pairs = k_quads && b_k_quads                    ? kQuadsAlongK
                             : !k_quads && b_k_pairs                 ? kPairsAlongK
                             : b_n_quads                              ? kQuadsAlongCols
                             : can_group(context, args.b, 2, compute) ? kPairsAlongRowsOrCols
                                                                      : kPairsNone;
    tiles.specialization.push_back(a_pairs);
    tiles.specialization.push_back(b_pairs);
    tiles.texel_pairs = compute == DType::Float32 &&
                        ((a_pairs != kPairsNone && args.a.dtype == DType::Float32) ||
                         (b_pairs != kPairsNone && args.b.dtype == DType::Float32));
    return tiles;
  }
  // 64×64 tiles, 4×4 results per invocation, BK 16; BK 8 where 16 would not fit shared memory (float64
  // on a device with the minimum 16 KiB).
  const uint32_t tm = 4, tn = 4;
  const uint64_t scalar_bytes = element_size(compute_storage(compute));
  const uint64_t bytes_per_k = (16 * tm + 1 + 16 * tn + 1) * scalar_bytes;
  const uint32_t bk = 16 * bytes_per_k <= info.shared_memory_bytes ? 16 : 8;
  return {"matmul_tiled_" + suffix, {tm, tn, bk}, 16 * int64_t{tm}, 16 * int64_t{tn}};
}

// float16 and bfloat16 accumulate in float32, and a float64 operand makes the whole product float64.
// Integer products compute in int32 (int8 to int32, keeping the low bits) or, with an int64 operand, in
// int64; integer and floating operands do not mix.
DType compute_dtype(const MatmulArgs& args, bool has_bias) {
  std::vector<const TensorRef*> operands = {&args.out, &args.a, &args.b};
  if (has_bias) operands.push_back(&*args.bias);
  const bool integer = is_integral(args.out.dtype);
  DType compute = integer ? DType::Int32 : DType::Float32;
  for (const TensorRef* ref : operands) {
    if (is_integral(ref->dtype) != integer) {
      throw Error("matmul kernel: integer and floating operands do not mix (out is " +
                  std::string(dtype_name(args.out.dtype)) + ", an operand is " + std::string(dtype_name(ref->dtype)) +
                  ")");
    }
    if (ref->dtype == DType::Float64 || ref->dtype == DType::Int64) compute = ref->dtype;
  }
  return compute;
}

class VulkanMatmul final : public MatmulKernels {
 public:
  explicit VulkanMatmul(VulkanDevice& device)
      : device_(device), subgroups_share_a_(register_blocks_can_share_a(device)) {}
  void matmul(Stream& stream, const MatmulArgs& args) override;

 private:
  // The products, and A's row sums where every launch's kernel can sum them (returns whether it did).
  bool products(Stream& stream, const MatmulArgs& args, bool row_sums);
  // Runs a product whose B, or one row of A, out or bias, is wider than a binding as two halves.
  void split_wide(Stream& stream, const MatmulArgs& args);
  // out = alpha A1 B1 + beta bias over the first half of K, then out = alpha A2 B2 + out.
  void split_along_k(Stream& stream, const MatmulArgs& args);

  VulkanDevice& device_;
  const bool subgroups_share_a_;
};

void VulkanMatmul::matmul(Stream& stream, const MatmulArgs& args) {
  if (!args.a_row_sums) {
    products(stream, args, false);
    return;
  }
  const TensorRef& sums = *args.a_row_sums;
  if (sums.ndim != 3 || sums.sizes[0] != args.a.sizes[0] || sums.sizes[1] != args.a.sizes[1] || sums.sizes[2] != 1 ||
      sums.dtype != args.a.dtype) {
    throw Error("matmul kernel: a_row_sums must be a batch×M×1 tensor of A's dtype");
  }
  if (!products(stream, args, true)) {
    matmul_row_sums_by_reduction(device_.kernels().get<ReduceKernels>(), stream, args);
  }
}

// The halves go along K (out = alpha A1 B1 + beta bias, then out = alpha A2 B2 + out) or along N (the
// columns of B, out and bias), whichever spans more memory; each half splits again until it fits.
void VulkanMatmul::split_wide(Stream& stream, const MatmulArgs& args) {
  const int64_t K = args.a.sizes[2];
  const int64_t N = args.out.sizes[2];
  const bool has_bias = args.bias.has_value() && args.beta != 0.0;
  const uint64_t along_k = std::max(span_bytes(args.a, 2), span_bytes(args.b, 1));
  uint64_t along_n = std::max(span_bytes(args.b, 2), span_bytes(args.out, 2));
  if (has_bias) along_n = std::max(along_n, span_bytes(*args.bias, 2));
  if (K > 1 && along_k >= along_n) {
    split_along_k(stream, args);
    return;
  }
  if (N > 1) {
    const int64_t half = N / 2;
    for (auto [first, count] : {std::pair<int64_t, int64_t>{0, half}, {half, N - half}}) {
      MatmulArgs part = args;
      part.a_row_sums.reset();
      part.out = narrowed(args.out, 2, first, count);
      part.b = narrowed(args.b, 2, first, count);
      if (args.bias) part.bias = narrowed(*args.bias, 2, first, count);
      matmul(stream, part);
    }
    return;
  }
  throw UnsupportedError("matmul: one element of an operand is larger than a storage-buffer binding of " +
                         device_.info().name + " can reach");
}

void VulkanMatmul::split_along_k(Stream& stream, const MatmulArgs& args) {
  const int64_t K = args.a.sizes[2];
  const int64_t half = K / 2;
  MatmulArgs first = args;
  first.a_row_sums.reset();
  first.a = narrowed(args.a, 2, 0, half);
  first.b = narrowed(args.b, 1, 0, half);
  first.activation = MatmulActivation::None;  // it applies to the finished sum only
  matmul(stream, first);
  MatmulArgs second = args;
  second.a_row_sums.reset();
  second.a = narrowed(args.a, 2, half, K - half);
  second.b = narrowed(args.b, 1, half, K - half);
  second.bias = args.out;  // each invocation reads its elements of out before it writes them
  second.beta = 1.0;
  matmul(stream, second);
}

}  // namespace


MatmulVariant matmul_variant(const DeviceInfo& info) {
  if (const char* forced = std::getenv("EMBER_MATMUL_VARIANT"); forced && *forced) {
    const std::string value(forced);
    if (value == "register") return MatmulVariant::Register;
    if (value == "register-shared") return MatmulVariant::RegisterShared;
    if (value == "register-private") return MatmulVariant::RegisterPrivate;
    if (value == "tiled") return MatmulVariant::Tiled;
    throw Error("EMBER_MATMUL_VARIANT is '" + value +
                "'; it takes register, register-shared, register-private or tiled");
  }
  return info.kind == "CPU" ? MatmulVariant::Register : MatmulVariant::Tiled;
}

bool VulkanMatmul::products(Stream& stream, const MatmulArgs& args, bool row_sums) {
  const bool has_bias = args.bias.has_value() && args.beta != 0.0;
  check_operand(device_, args.out, "out");
  check_operand(device_, args.a, "A");
  check_operand(device_, args.b, "B");
  if (args.bias) check_operand(device_, *args.bias, "bias");
  const int64_t batch = args.out.sizes[0];
  const int64_t M = args.out.sizes[1];
  const int64_t N = args.out.sizes[2];
  const int64_t K = args.a.sizes[2];
  check_sizes(args.a, "A", batch, M, K);
  check_sizes(args.b, "B", batch, K, N);
  if (args.bias) check_sizes(*args.bias, "bias", batch, M, N);
  if (args.activation != MatmulActivation::None && !is_float(args.out.dtype)) {
    throw Error("matmul kernel: an activation epilogue takes floating operands, not " +
                std::string(dtype_name(args.out.dtype)));
  }
  if (batch == 0 || M == 0) return true;  // no rows to sum
  if (N == 0) return false;

  const DType compute = compute_dtype(args, has_bias);
  require_dtype(device_, compute, "matmul");

  const Context& context = device_.context();
  const DeviceInfo& info = device_.info();
  // llvmpipe ends a shader's loop after 65535 iterations (its guard against endless loops), and the
  // kernels loop over k: on a CPU driver a longer product runs in halves of K.
  if (info.kind == "CPU" && K > kCpuMaxK) {
    split_along_k(stream, args);
    return false;
  }
  const Tiles tiles = choose_tiles(matmul_variant(info), context, subgroups_share_a_, args, compute);
  std::vector<uint32_t> specialization = {
      static_cast<uint32_t>(args.out.dtype), static_cast<uint32_t>(args.a.dtype),
      static_cast<uint32_t>(args.b.dtype),
      static_cast<uint32_t>(has_bias ? args.bias->dtype : args.out.dtype)};
  specialization.insert(specialization.end(), tiles.specialization.begin(), tiles.specialization.end());
  // ACTIVATION, after each shader's tile constants (MatmulActivation's values are the GLSL's); the
  // integer variants have none.
  if (is_float(args.out.dtype)) specialization.push_back(static_cast<uint32_t>(args.activation));
  const bool register_kernel = tiles.shader.starts_with("matmul_register");
  if (register_kernel && is_float(args.out.dtype)) {  // SHARE_A and the workgroup's size, before OUT_PAIRS
    specialization.insert(specialization.end(), {tiles.shares_a ? 1u : 0u, tiles.workgroup});
  }
  VariantPipelines pipelines(device_.pipelines(), tiles.shader, specialization, kOutPairsConstant);

  // Launch windows: as many whole matrices as every operand's binding can reach, else one matrix at a
  // time split along the rows of A, out and bias (B is needed whole).
  const auto& limits = context.properties.limits;
  const uint64_t max_bytes = max_window_bytes(context);
  const int64_t column_groups = (N + tiles.tile_n - 1) / tiles.tile_n;
  if (column_groups > limits.maxComputeWorkGroupCount[0]) {
    throw UnsupportedError("matmul: " + std::to_string(N) + " columns need more workgroups than " +
                           info.name + " can launch");
  }
  const int64_t max_rows = std::min<int64_t>(M, int64_t{limits.maxComputeWorkGroupCount[1]} * tiles.tile_m);
  auto fits = [&](int64_t matrices, int64_t rows) {
    bool ok = sub_block(args.b, 0, matrices, 0, K).extent_bytes() <= max_bytes &&
              sub_block(args.out, 0, matrices, 0, rows).extent_bytes() <= max_bytes &&
              sub_block(args.a, 0, matrices, 0, rows).extent_bytes() <= max_bytes;
    if (has_bias) ok = ok && sub_block(*args.bias, 0, matrices, 0, rows).extent_bytes() <= max_bytes;
    return ok;
  };
  if (!fits(1, 1)) {
    split_wide(stream, args);
    return false;
  }
  int64_t rows_per_launch = max_rows;
  int64_t matrices_per_launch = largest_fitting(
      std::min<int64_t>(batch, limits.maxComputeWorkGroupCount[2]),
      [&](int64_t matrices) { return fits(matrices, rows_per_launch); });
  if (matrices_per_launch == 0) {
    matrices_per_launch = 1;
    rows_per_launch = largest_fitting(max_rows, [&](int64_t rows) { return fits(1, rows); });
    if (rows_per_launch == 0) {
      throw UnsupportedError(
          "matmul: one " + std::to_string(K) + "x" + std::to_string(N) + " matrix of B (" +
          format_bytes(sub_block(args.b, 0, 1, 0, K).extent_bytes()) +
          ") or one row of A, out or bias is larger than a storage-buffer binding of " + info.name +
          " can reach (" + format_bytes(max_bytes) + ")");
    }
    // Whole tiles per launch, so that only the last launch has a ragged edge, and an even number of
    // rows at least, so that pairs of rows (A_PAIRS) stay aligned in every launch.
    if (rows_per_launch > tiles.tile_m) rows_per_launch -= rows_per_launch % tiles.tile_m;
    else if (rows_per_launch > 1) rows_per_launch -= rows_per_launch % 2;
  }

  uint32_t flags = has_bias ? kHasBias : 0;
  if (M == 1 || (K > 1 && args.a.strides[2] <= args.a.strides[1])) flags |= kAKFast;
  if (K == 1 || (N > 1 && args.b.strides[2] <= args.b.strides[1])) flags |= kBNFast;
  const DType scalar_dtype = compute_storage(compute);
  const uint64_t alpha = Scalar(args.alpha).bits_as(scalar_dtype);
  const uint64_t beta = Scalar(args.beta).bits_as(scalar_dtype);

  VulkanStream& vs = vulkan_stream(stream);
  bool summed = row_sums && K > 0;
  for (int64_t b0 = 0; b0 < batch; b0 += matrices_per_launch) {
    const int64_t matrices = std::min(matrices_per_launch, batch - b0);
    for (int64_t m0 = 0; m0 < M; m0 += rows_per_launch) {
      const int64_t rows = std::min(rows_per_launch, M - m0);
      const TensorRef pieces[4] = {
          sub_block(args.out, b0, matrices, m0, rows), sub_block(args.a, b0, matrices, m0, rows),
          sub_block(args.b, b0, matrices, 0, K),
          has_bias ? sub_block(*args.bias, b0, matrices, m0, rows) : TensorRef{}};
      MatmulParams params{};
      params.M = static_cast<uint32_t>(rows);
      params.N = static_cast<uint32_t>(N);
      params.K = static_cast<uint32_t>(K);
      params.flags = flags;
      params.lanes_n = tiles.lanes_n;
      params.alpha[0] = static_cast<uint32_t>(alpha);
      params.alpha[1] = static_cast<uint32_t>(alpha >> 32);
      params.beta[0] = static_cast<uint32_t>(beta);
      params.beta[1] = static_cast<uint32_t>(beta >> 32);
      // A and B once more at 4 and 5, and A's row sums at 6, for the texel variant.
      Binding bindings[7];
      const Window out_window = operand_window(context, plan_launch({&pieces[kOut]}), 0, true);
      for (int op = 0; op < 4; ++op) {
        // With K == 0 A and B hold no elements, and without a bias there is nothing to read: those
        // bindings take out's window read-only, which the shader never touches.
        const bool present = op == kBias ? has_bias : (op == kOut || K > 0);
        const Window window =
            present ? (op == kOut ? out_window
                                  : operand_window(context, plan_launch({&pieces[op]}), 0, false))
                    : Window{Binding{out_window.binding.allocation, out_window.binding.offset,
                                     out_window.binding.range, false},
                             0};
        bindings[op] = window.binding;
        params.offsets[op] = window.first_element;
        if (present) {
          params.batch_strides[op] = shader_stride(pieces[op], 0);
          params.row_strides[op] = shader_stride(pieces[op], 1);
          params.col_strides[op] = shader_stride(pieces[op], 2);
        }
      }
      const auto row_groups = static_cast<uint32_t>((rows + tiles.tile_m - 1) / tiles.tile_m);
      bindings[4] = bindings[kA];
      bindings[5] = bindings[kB];
      // Measured on lavapipe, which fetches a texel for all lanes at once but loads storage buffers lane
      // by lane: 512³ 30 -> 20 ms, Linear 64×784×256 40 -> 33 ms (docs/PERFORMANCE.md, "Matmul").
      const bool texels = tiles.texel_pairs && K > 0 && can_read_as_texels(context, bindings[kA]) &&
                          can_read_as_texels(context, bindings[kB]);
      const bool sums_here = summed && texels && tiles.shares_a && args.a.dtype == DType::Float32;
      summed = sums_here;
      bindings[6] = out_window.binding;  // never written without MATMUL_ROW_SUMS
      if (sums_here) {
        const TensorRef piece = sub_block(*args.a_row_sums, b0, matrices, m0, rows);
        const Window window = operand_window(context, plan_launch({&piece}), 0, true);
        bindings[6] = window.binding;
        params.flags |= kRowSums;
        params.row_sums_offset = window.first_element;
        params.row_sums_strides[0] = shader_stride(piece, 0);
        params.row_sums_strides[1] = shader_stride(piece, 1);
      }
      const bool out_pairs = register_kernel && args.out.dtype == DType::Float32 && compute == DType::Float32 &&
                             params.col_strides[kOut] == 1 && params.offsets[kOut] % 2 == 0 &&
                             (rows == 1 || params.row_strides[kOut] % 2 == 0) &&
                             (matrices == 1 || params.batch_strides[kOut] % 2 == 0);
      vs.dispatch(pipelines.get(texels, out_pairs), std::span<const Binding>(bindings, texels ? 7 : 4), &params,
                  sizeof params, static_cast<uint32_t>(column_groups), row_groups, static_cast<uint32_t>(matrices));
    }
  }
  return summed;
}

EMBER_VULKAN_KERNELS(MatmulKernels, VulkanMatmul);

}  // namespace ember::vulkan
