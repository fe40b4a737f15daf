#pragma once
// What the Vulkan convolution launchers share (conv_launcher.cpp: the family and its storage-buffer
// kernels; conv_uniform.cpp: the kernel that reads A through a uniform buffer; conv_depthwise.cpp and
// conv_rows.cpp: the direct kernels). Internal to shaders/conv.
#include <array>
#include <cstdint>
#include <optional>
#include <utility>

#include "runtime/kernels/conv.h"
#include "runtime/vulkan/vulkan_device.h"
#include "shaders/common/launch.h"

namespace ember::vulkan::conv {

// Mirrors the push-constant block of conv_common.glsl.
struct ConvParams {
  uint32_t offsets[4];
  uint32_t batch;
  uint32_t in_channels;
  uint32_t out_channels;
  uint32_t groups;
  uint32_t in_size[3];
  uint32_t out_size[3];
  uint32_t kernel_size[3];
  uint32_t stride[3];
  uint32_t padding[3];
  uint32_t dilation[3];
  uint32_t k_first;
  uint32_t k_per_split;
  uint32_t flags;
  uint32_t row_first;
  uint32_t row_count;
  uint32_t a_base;
};
static_assert(sizeof(ConvParams) == 128, "push constants must fit lavapipe's 128 bytes");

constexpr uint32_t kHasBias = 1;     // CONV_HAS_BIAS
constexpr uint32_t kAccumulate = 2;  // CONV_ACCUMULATE
constexpr uint32_t kBiasColumn = 4;  // CONV_BIAS_COLUMN
constexpr uint32_t kRelu = 8;        // CONV_RELU

// The most k one invocation sums. llvmpipe ends a shader invocation's loops after 65535 iterations in all
// (gallivm's loop limiter); the tiled kernel counts about 1.6 iterations per k (its k0, staging and kk
// loops), so this keeps every kernel well inside. Longer sums go over several launches (forward, input
// gradient) or splits (weight gradient).
constexpr int64_t kMaxKPerInvocation = 16384;

enum class Direction { Forward, InputGrad, WeightGrad };
const char* direction_name(Direction direction);

// Binding slots of every convolution shader.
enum Slot { kOut = 0, kA = 1, kB = 2, kBias = 3 };

int64_t volume(const std::array<int64_t, 3>& sizes);

// The convolution seen with three spatial dims: a 2-d one gets a leading dim of size 1, a 1-d one two.
struct Geometry3 {
  std::array<int64_t, 3> in_size{1, 1, 1}, out_size{1, 1, 1}, kernel_size{1, 1, 1};
  std::array<int64_t, 3> stride{1, 1, 1}, padding{0, 0, 0}, dilation{1, 1, 1};
};
Geometry3 as_3d(const ConvShape& s, const ConvGeometry& g);

// The GEMM of one group (conv_common.glsl's gemm_m, gemm_n per sample, gemm_k per sample or not).
struct Gemm {
  int64_t m = 0;
  int64_t n_per_sample = 0;  // columns per sample (forward, input gradient), or all of them
  int64_t k = 0;             // per sample for the weight gradient
};
Gemm gemm_of(Direction direction, const ConvShape& s, const Geometry3& g);

// The operands as the shaders see them (conv_common.glsl's table), and the forward's relu.
struct Operands {
  TensorRef out, a, b;
  std::optional<TensorRef> bias;
  bool relu = false;
};

// The push constants' sizes and geometry.
ConvParams base_params(const ConvShape& s, const Geometry3& g);
// A contiguous batched operand restricted to samples [first, first + count).
TensorRef samples_of(const TensorRef& ref, int64_t first, int64_t count);
// The binding window of a whole operand.
Window window_of(const Context& context, const TensorRef& ref, bool write);
// Workgroups (x, y) covering `groups` workgroups of a one-dimensional launch, x first; throws
// UnsupportedError where y would pass the device's limit.
std::pair<uint32_t, uint32_t> grid_of(const Context& context, int64_t groups);
// Workgroups lavapipe runs at once: one per CPU thread.
int64_t cpu_workers();

// conv_register.comp's WORD_STORES (a VariantPipelines flag).
constexpr uint32_t kWordStoresConstant = 9;
// Whether a forward or input-gradient launch of conv_register.comp can store its results as words
// (WORD_STORES): float32 out and compute, blocks of a multiple of four columns, planes of out (`plane`
// elements, the output's or the input's) of a multiple of four, and out's window starting on a word.
bool takes_word_stores(Direction direction, DType compute, DType out, uint32_t block_n, int64_t plane,
                       uint32_t out_first_element);

// How the uniform-buffer kernel runs a convolution: its register block, and per launch at most `rows`
// rows and `k` of k, so that the launch's part of A fits one uniform-buffer window. block_m == 0: it
// cannot (A's part of one row block does not fit), or the storage-buffer kernel is predicted faster.
struct UniformPlan {
  uint32_t block_m = 0, block_n = 0;
  int64_t rows = 0;
  int64_t k = 0;
};
// `samples`: per launch along the batch. EMBER_CONV_BLOCK ("m,n") forces the block.
UniformPlan plan_uniform(const Context& context, Direction direction, const ConvShape& s, const Gemm& gemm,
                         int64_t samples, DType dtype, bool force);
// Records the launches: per batch piece of `samples`, per chunk of rows and of k, each adding to what the
// previous chunks wrote (out, and the bias of the first). The weight gradient adds every launch to out,
// which the first batch piece's first chunk of each row chunk overwrites.
void launch_uniform(VulkanDevice& device, Stream& stream, Direction direction, const ConvShape& s,
                    const ConvGeometry& geometry, const Operands& operands, int64_t samples, const UniformPlan& plan);

// The row kernel (conv_rows.cpp): a stride-1, dilation-1 float32 forward or input gradient of one group
// and 1 or 2 spatial dims, from a padded copy of the gathered operand. Records the launches and says
// true where it applies and its operands fit; records nothing otherwise.
bool launch_rows(VulkanDevice& device, Stream& stream, Direction direction, const ConvShape& s,
                 const ConvGeometry& geometry, const Operands& operands);
// The row kernel's weight gradient (conv_rows_weight_grad.comp), for few input channels (C · KH ≤ 3):
// records it, with the bias gradient where asked, and says true where it applies; records nothing
// otherwise.
bool launch_rows_weight_grad(VulkanDevice& device, Stream& stream, const ConvShape& s, const ConvWeightGradArgs& args);

// Where a weight gradient's partial sums hold the bias gradient's: nowhere; in one more column of each
// row, [partials, Cout, taps + 1] (the register kernel's, whose GEMM gets that column for free); or after
// all of the weight's, [partials, Cout · taps] then [partials, Cout] (the row kernel's), so that both
// are runs of whole blocks of four that the reduction reads as columns (reduce.comp's READS_COLUMNS).
enum class BiasPartials { None, Column, After };

// Sums the weight gradient's partial sums into grad_weight (seen as [Cout, taps]), and the bias
// gradient's into grad_bias where they are there and it is asked for.
void sum_weight_partials(VulkanDevice& device, Stream& stream, Allocation& scratch, DType partial_dtype,
                         int64_t partials, int64_t taps, BiasPartials bias, const ConvWeightGradArgs& args);

// Depthwise convolution (conv_depthwise.cpp): groups == in channels, out channels a multiple of them
// below 8 (from there the GEMM kernels win),
// with taps and positions that fit one invocation's loops.
bool depthwise_applies(const ConvShape& s, const ConvGeometry& geometry);
// The forward or the input gradient, in launches over batch windows.
void launch_depthwise(VulkanDevice& device, Stream& stream, Direction direction, const ConvShape& s,
                      const ConvGeometry& geometry, const Operands& operands);
// The weight gradient: partial sums per split of batch and rows, summed by the reduce family.
void launch_depthwise_weight_grad(VulkanDevice& device, Stream& stream, const ConvShape& s,
                                  const ConvGeometry& geometry, const ConvWeightGradArgs& args);

}  // namespace ember::vulkan::conv
