// Launchers of the norm kernels: three passes over a contiguous [samples, channels, inner] input, each
// launched per piece of whole samples that fits a buffer binding (a sample larger than a binding is an
// UnsupportedError).
//
//   channel pass (norm_channels.comp): per-channel reductions. A channel's positions are cut into chunks
//     so that the launch has workgroups enough for the device (few on a CPU driver, where each extra
//     dispatch costs more than it gains); one chunk over one piece finalises in the same dispatch, else
//     the chunks' states go to a scratch buffer and one more dispatch merges them.
//   apply pass (norm_apply.comp): batch norm's elementwise forward and grad_in, one dispatch a piece.
//   row pass (norm_rows.comp): group norm's rows forward and backward, one dispatch a piece.
//
// Dispatches: batch norm training forward 2 (3 when chunked), eval 1; its backward 2 (3); group and
// layer norm forward 1, backward 1 for grad_in and 1 (2) for the weight and bias gradients.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/allocator.h"
#include "runtime/error.h"
#include "runtime/kernels/norm.h"
#include "shaders/common/launch.h"
#include "shaders/common/vulkan_family.h"
#include "shaders/norm/row_lanes.h"
#include "shaders/reduce/reduce_plan.h"

namespace ember::vulkan {

namespace {

// Spec constants and flags of the shaders.
constexpr uint32_t kModeStats = 0, kModeBnBackward = 1, kModeAffineGrad = 2;  // norm_channels.comp
constexpr uint32_t kStageElements = 0, kStageMerge = 1, kStageColumns = 2;
constexpr uint32_t kChannelFinalize = 1, kChannelRunning = 2, kChannelGradWeight = 4, kChannelGradBias = 8,
                   kChannelFromVar = 16;
constexpr uint32_t kApplyForward = 0, kApplyBackward = 1;  // norm_apply.comp
constexpr uint32_t kApplyWeight = 1, kApplyBias = 2, kApplyFromVar = 4, kApplyTraining = 8;
constexpr uint32_t kRowsForward = 0, kRowsBackward = 1, kRowsSoftmax = 2, kRowsSoftmaxBackward = 3;  // norm_rows.comp
constexpr uint32_t kRowsWeight = 1, kRowsBias = 2, kRowsWriteStats = 4, kRowsLog = 8;
// Elements (or quads) of a row that one lane of norm_rows.comp walks per pass, at most: llvmpipe ends a
// loop after 65535 iterations (ADDING_AN_OP.md), and softmax makes three passes. With 256 lanes a row it
// bounds rows to SoftmaxArgs::kMaxLength.
constexpr int64_t kMaxLaneSteps = 16384;
constexpr uint32_t kWorkgroupSize = 256;
// Elements a chunk of the channel pass takes at least, and the workgroups it aims for.
constexpr int64_t kMinChunk = 4096;
constexpr int64_t kMinColumnChunk = 1024;  // samples an invocation walks at least in STAGE_COLUMNS
constexpr int64_t kTargetWorkgroupsCpu = 8;
constexpr int64_t kTargetWorkgroupsGpu = 1024;
constexpr int64_t kApplyWorkgroupsCpu = 64;

struct ChannelParams {
  uint32_t in_offset, dy_offset, stat_a_offset, stat_b_offset, param_a_offset, param_b_offset;
  uint32_t channels, inner, samples, group_channels, groups;
  uint32_t chunks, chunk_length, state_base, sums_offset, flags;
  uint32_t eps[2];
  uint32_t momentum[2];
};
static_assert(sizeof(ChannelParams) == 80);

struct ApplyParams {
  uint32_t out_offset, in_offset, dy_offset, mean_offset, invstd_offset, weight_offset, bias_offset, sums_offset;
  uint32_t numel, channels, inner, flags;
  uint32_t eps[2];
  uint32_t count[2];
};
static_assert(sizeof(ApplyParams) == 64);

struct RowParams {
  uint32_t out_offset, in_offset, dy_offset, mean_offset, rstd_offset, weight_offset, bias_offset;
  uint32_t rows, groups, group_channels, inner, lanes_log2, flags;
  uint32_t padding;  // eps is 8-byte aligned
  uint32_t eps[2];
};
static_assert(sizeof(RowParams) == 64);

const KernelAbiRegistration kAbis{
    {"norm_channels_f32", 7, sizeof(ChannelParams)}, {"norm_channels_f64", 7, sizeof(ChannelParams)},
    {"norm_apply_f32", 8, sizeof(ApplyParams)},       {"norm_apply_f64", 8, sizeof(ApplyParams)},
    {"norm_rows_f32", 7, sizeof(RowParams)},          {"norm_rows_f64", 7, sizeof(RowParams)},
    {"norm_rows_f32_quads", 7, sizeof(RowParams)},
    {"norm_apply_f32_quads", 8, sizeof(ApplyParams)},
};

uint32_t code(DType dtype) { return static_cast<uint32_t>(dtype); }
uint32_t u32(int64_t value) { return static_cast<uint32_t>(value); }

// Whether a piece can take a QUADS pipeline (norm_apply.comp, norm_rows.comp): out, in and dy start on
// 16-byte words of their windows, and in and dy (bindings 1 and 2) can be read as texels.
template <class Params>
bool on_words(const Context& context, const Params& params, const Binding* bindings) {
  return params.out_offset % 4 == 0 && params.in_offset % 4 == 0 && params.dy_offset % 4 == 0 &&
         can_read_as_texels(context, bindings[1]) && can_read_as_texels(context, bindings[2]);
}

// A host value in the compute type's bits (float32, or float64 for float64 inputs).
void compute_bits(double value, bool f64, uint32_t (&out)[2]) {
  if (f64) {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    out[0] = static_cast<uint32_t>(bits);
    out[1] = static_cast<uint32_t>(bits >> 32);
  } else {
    const float f = static_cast<float>(value);
    std::memcpy(&out[0], &f, sizeof f);
    out[1] = 0;
  }
}

// Pieces of whole samples.
struct Piece {
  int64_t first = 0;
  int64_t count = 0;
};

// The samples of `shape` in pieces whose every operand fits a binding: `sample_bytes` is the most bytes
// one sample takes in any operand.
std::vector<Piece> sample_pieces(const Context& context, const NormShape& shape, uint64_t sample_bytes,
                                 const char* op) {
  const uint64_t window = max_window_bytes(context);
  if (sample_bytes > window) {
    throw UnsupportedError(std::string(op) + ": one sample of " + std::to_string(sample_bytes) +
                           " bytes is larger than a buffer binding of this device can reach");
  }
  const int64_t per_piece = sample_bytes == 0 ? std::max<int64_t>(shape.outer, 1)
                                              : static_cast<int64_t>(window / sample_bytes);
  std::vector<Piece> pieces;
  for (int64_t first = 0; first < shape.outer; first += per_piece) {
    pieces.push_back({first, std::min(per_piece, shape.outer - first)});
  }
  return pieces;
}

class VulkanNorm final : public NormKernels {
 public:
  explicit VulkanNorm(VulkanDevice& device) : device_(device) {}
  void batch_norm_stats(Stream& stream, const BatchNormStatsArgs& args) override;
  void batch_norm_apply(Stream& stream, const BatchNormApplyArgs& args) override;
  void batch_norm_backward(Stream& stream, const BatchNormBackwardArgs& args) override;
  void group_norm(Stream& stream, const GroupNormArgs& args) override;
  void group_norm_backward(Stream& stream, const GroupNormBackwardArgs& args) override;
  void softmax(Stream& stream, const SoftmaxArgs& args) override;
  void softmax_backward(Stream& stream, const SoftmaxBackwardArgs& args) override;

 private:
  // What a channel pass reduces and where its results go.
  struct ChannelPass {
    uint32_t mode = kModeStats;
    const TensorRef* in = nullptr;
    const TensorRef* dy = nullptr;
    const TensorRef* stat_a = nullptr;  // per channel, or per (sample, group) row in kModeAffineGrad
    const TensorRef* stat_b = nullptr;
    const TensorRef* param_a = nullptr;
    const TensorRef* param_b = nullptr;
    NormShape shape;
    int64_t groups = 1;
    uint32_t flags = 0;
    double eps = 0;
    double momentum = 0;
  };
  // Runs a channel pass; returns the scratch, whose per-channel sums (kModeBnBackward) start at
  // element *sums_offset.
  std::shared_ptr<Allocation> channel_pass(Stream& stream, const ChannelPass& pass, uint32_t* sums_offset);

  struct ApplyPass {
    uint32_t mode = kApplyForward;
    const TensorRef* out = nullptr;
    const TensorRef* in = nullptr;
    const TensorRef* dy = nullptr;
    const TensorRef* mean = nullptr;
    const TensorRef* invstd = nullptr;
    const TensorRef* weight = nullptr;
    const TensorRef* bias = nullptr;
    Allocation* sums = nullptr;
    uint32_t sums_offset = 0;
    NormShape shape;
    uint32_t flags = 0;
    double eps = 0;
  };
  void apply_pass(Stream& stream, const ApplyPass& pass);

  struct RowPass {
    uint32_t mode = kRowsForward;
    const TensorRef* out = nullptr;
    const TensorRef* in = nullptr;
    const TensorRef* dy = nullptr;
    const TensorRef* mean = nullptr;  // softmax: none
    const TensorRef* rstd = nullptr;
    const TensorRef* weight = nullptr;
    const TensorRef* bias = nullptr;
    NormShape shape;
    int64_t groups = 1;
    uint32_t flags = 0;
    double eps = 0;
  };
  void row_pass(Stream& stream, const RowPass& pass);
  // Softmax's rows (kRowsSoftmax, dy absent) or their gradient (kRowsSoftmaxBackward, in the forward's out).
  void softmax_pass(Stream& stream, uint32_t mode, const TensorRef& out, const TensorRef& in, const TensorRef* dy,
                    int64_t rows, int64_t length, bool log);

  // The window of elements [first, first + count) of `ref`.
  Window window_of(const TensorRef& ref, int64_t first, int64_t count, bool write) const {
    const uint32_t size = static_cast<uint32_t>(element_size(ref.dtype));
    return element_window(device_.context(), ref.allocation, ref.byte_offset + first * size, size,
                          std::max<int64_t>(count, 1), write);
  }
  const Pipeline& pipeline(const std::string& shader, DType in, std::vector<uint32_t> constants) {
    return device_.pipelines().get(shader + (in == DType::Float64 ? "_f64" : "_f32"), constants);
  }
  // A CPU driver pays per invocation: fewer invocations, each walking more elements of the grid.
  int64_t apply_workgroup_cap() const {
    return device_.context().properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU
               ? kApplyWorkgroupsCpu
               : device_.context().properties.limits.maxComputeWorkGroupCount[0];
  }
  int64_t target_workgroups() const {
    return device_.context().properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? kTargetWorkgroupsCpu
                                                                                  : kTargetWorkgroupsGpu;
  }

  VulkanDevice& device_;
};

std::shared_ptr<Allocation> VulkanNorm::channel_pass(Stream& stream, const ChannelPass& pass, uint32_t* sums_offset) {
  const Context& context = device_.context();
  VulkanStream& vs = vulkan_stream(stream);
  const NormShape& shape = pass.shape;
  const DType dtype = pass.in->dtype;
  const bool f64 = dtype == DType::Float64;
  const uint32_t value_bytes = f64 ? 8 : 4;
  const int64_t channels = shape.channels;
  const bool per_row = pass.mode == kModeAffineGrad;

  const uint64_t sample_bytes = static_cast<uint64_t>(channels * shape.inner) * element_size(dtype);
  const std::vector<Piece> pieces = sample_pieces(context, shape, sample_bytes, "norm");
  int64_t longest = 0;
  for (const Piece& piece : pieces) longest = std::max(longest, piece.count * shape.inner);
  // One element per sample and channel: an invocation per channel, no barrier (STAGE_COLUMNS).
  const bool columns = shape.inner == 1;
  const int64_t tiles = ceil_div(channels, kWorkgroupSize);
  const int64_t chunks =
      columns ? std::clamp<int64_t>(ceil_div(target_workgroups() * kWorkgroupSize, std::max<int64_t>(channels, 1)), 1,
                                    std::max<int64_t>(1, ceil_div(longest, kMinColumnChunk)))
              : std::clamp<int64_t>(ceil_div(target_workgroups(), std::max<int64_t>(channels, 1)), 1,
                                    std::max<int64_t>(1, ceil_div(longest, kMinChunk)));
  const int64_t chunk_length = std::max<int64_t>(1, ceil_div(longest, chunks));
  const int64_t states = static_cast<int64_t>(pieces.size()) * chunks;
  const bool one_dispatch = states == 1;
  const int64_t sums_at = one_dispatch ? 0 : states * channels * 3;
  std::shared_ptr<Allocation> scratch = device_.allocator().allocate(
      static_cast<uint64_t>(sums_at + 2 * channels + 1) * value_bytes, stream.shared_from_this());
  *sums_offset = u32(sums_at);
  const Window scratch_window =
      element_window(context, scratch.get(), 0, value_bytes, sums_at + 2 * channels + 1, true);
  if (scratch_window.first_element != 0) throw Error("norm: the scratch buffer is not aligned");

  const uint32_t param_dtype = pass.param_a ? code(pass.param_a->dtype) : pass.param_b ? code(pass.param_b->dtype) : 0;
  const std::vector<uint32_t> constants = {code(dtype), code(pass.stat_a->dtype), param_dtype, pass.mode};
  ChannelParams params{};
  params.channels = u32(channels);
  params.inner = u32(shape.inner);
  params.groups = u32(pass.groups);
  params.group_channels = u32(channels / pass.groups);
  params.chunks = u32(chunks);
  params.chunk_length = u32(chunk_length);
  params.sums_offset = u32(sums_at);
  compute_bits(pass.eps, f64, params.eps);
  compute_bits(pass.momentum, f64, params.momentum);

  // Bindings: 0 in, 1 dy, 2 and 3 the statistics, 4 and 5 the parameters, 6 the scratch. Absent ones
  // see the scratch.
  Binding bindings[7];
  auto bind_whole = [&](int slot, const TensorRef* ref, int64_t count, bool write, uint32_t& offset) {
    if (!ref) {
      bindings[slot] = scratch_window.binding;
      bindings[slot].write = false;
      offset = 0;
      return;
    }
    const Window w = window_of(*ref, 0, count, write);
    bindings[slot] = w.binding;
    offset = w.first_element;
  };
  const bool writes_stats = pass.mode == kModeStats;
  const bool writes_params = pass.mode == kModeStats ? (pass.flags & kChannelRunning) != 0 : true;
  bind_whole(4, pass.param_a, channels, writes_params, params.param_a_offset);
  bind_whole(5, pass.param_b, channels, writes_params, params.param_b_offset);
  bindings[6] = scratch_window.binding;
  if (!per_row) {
    bind_whole(2, pass.stat_a, channels, writes_stats, params.stat_a_offset);
    bind_whole(3, pass.stat_b, channels, writes_stats, params.stat_b_offset);
  }

  if (shape.outer * shape.inner == 0) {
    // Nothing to reduce: the merge of no states finalises each channel.
    bindings[0] = bindings[1] = scratch_window.binding;
    bindings[0].write = bindings[1].write = false;
    if (per_row) bindings[2] = bindings[3] = bindings[0];
    params.state_base = 0;
    params.flags = pass.flags | kChannelFinalize;
    std::vector<uint32_t> merge_constants = constants;
    merge_constants.push_back(kStageMerge);
    vs.dispatch(pipeline("norm_channels", dtype, merge_constants), bindings, &params, sizeof params,
                u32(std::max<int64_t>(channels, 1)));
    return scratch;
  }

  const uint32_t max_x = context.properties.limits.maxComputeWorkGroupCount[0];
  std::vector<uint32_t> element_constants = constants;
  element_constants.push_back(columns ? kStageColumns : kStageElements);
  const Pipeline& elements = pipeline("norm_channels", dtype, element_constants);
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Piece& piece = pieces[i];
    const int64_t piece_elements = piece.count * channels * shape.inner;
    const Window in_window = window_of(*pass.in, piece.first * channels * shape.inner, piece_elements, false);
    bindings[0] = in_window.binding;
    params.in_offset = in_window.first_element;
    if (pass.dy) {
      const Window dy_window = window_of(*pass.dy, piece.first * channels * shape.inner, piece_elements, false);
      bindings[1] = dy_window.binding;
      params.dy_offset = dy_window.first_element;
    } else {
      bindings[1] = in_window.binding;
      params.dy_offset = in_window.first_element;
    }
    if (per_row) {
      const Window a = window_of(*pass.stat_a, piece.first * pass.groups, piece.count * pass.groups, false);
      const Window b = window_of(*pass.stat_b, piece.first * pass.groups, piece.count * pass.groups, false);
      bindings[2] = a.binding;
      bindings[3] = b.binding;
      params.stat_a_offset = a.first_element;
      params.stat_b_offset = b.first_element;
    }
    params.samples = u32(piece.count);
    params.state_base = u32(static_cast<int64_t>(i) * chunks);
    params.flags = pass.flags | (one_dispatch ? kChannelFinalize : 0);
    const int64_t workgroups = columns ? tiles * chunks : channels * chunks;
    const uint32_t x = u32(std::min<int64_t>(workgroups, max_x));
    vs.dispatch(elements, bindings, &params, sizeof params, x, u32(ceil_div(workgroups, x)));
  }
  if (one_dispatch) return scratch;

  std::vector<uint32_t> merge_constants = constants;
  merge_constants.push_back(kStageMerge);
  params.state_base = u32(states);
  params.flags = pass.flags | kChannelFinalize;
  if (per_row) bindings[2] = bindings[3] = bindings[0];  // the merge reads no statistics per row
  const uint32_t x = u32(std::min<int64_t>(channels, max_x));
  vs.dispatch(pipeline("norm_channels", dtype, merge_constants), bindings, &params, sizeof params, x,
              u32(ceil_div(channels, x)));
  return scratch;
}

void VulkanNorm::apply_pass(Stream& stream, const ApplyPass& pass) {
  const Context& context = device_.context();
  VulkanStream& vs = vulkan_stream(stream);
  const NormShape& shape = pass.shape;
  const DType dtype = pass.in->dtype;
  const bool f64 = dtype == DType::Float64;
  const int64_t channels = shape.channels;
  const int64_t sample = channels * shape.inner;
  const uint32_t param_dtype = pass.weight ? code(pass.weight->dtype) : pass.bias ? code(pass.bias->dtype) : 0;
  const std::vector<uint32_t> constants{code(dtype), code(pass.mean->dtype), param_dtype, pass.mode};
  const Pipeline& pipe = pipeline("norm_apply", dtype, constants);
  // norm_apply.comp's QUADS where channels hold a multiple of four elements; each piece also needs its
  // operands on words.
  const bool quad_channels = dtype == DType::Float32 && shape.inner % 4 == 0;
  const Pipeline* quads = quad_channels ? &device_.pipelines().get("norm_apply_f32_quads", constants) : nullptr;

  ApplyParams params{};
  params.channels = u32(channels);
  params.inner = u32(shape.inner);
  params.flags = pass.flags;
  compute_bits(pass.eps, f64, params.eps);
  compute_bits(static_cast<double>(shape.outer * shape.inner), f64, params.count);
  Binding bindings[8];
  const Window mean = window_of(*pass.mean, 0, channels, false);
  const Window invstd = window_of(*pass.invstd, 0, channels, false);
  bindings[3] = mean.binding;
  bindings[4] = invstd.binding;
  params.mean_offset = mean.first_element;
  params.invstd_offset = invstd.first_element;
  // Absent operands see mean's window.
  auto bind_param = [&](int slot, const TensorRef* ref, uint32_t& offset) {
    const Window w = ref ? window_of(*ref, 0, channels, false) : mean;
    bindings[slot] = w.binding;
    offset = w.first_element;
  };
  bind_param(5, pass.weight, params.weight_offset);
  bind_param(6, pass.bias, params.bias_offset);
  if (pass.sums) {
    const Window sums = element_window(context, pass.sums, 0, f64 ? 8 : 4, pass.sums_offset + 2 * channels, false);
    bindings[7] = sums.binding;
    params.sums_offset = pass.sums_offset + sums.first_element;
  } else {
    bindings[7] = mean.binding;
  }

  const uint64_t sample_bytes = static_cast<uint64_t>(sample) * element_size(dtype);
  for (const Piece& piece : sample_pieces(context, shape, sample_bytes, "norm")) {
    const int64_t first = piece.first * sample;
    const int64_t count = piece.count * sample;
    const Window out = window_of(*pass.out, first, count, true);
    const Window in = window_of(*pass.in, first, count, false);
    const Window dy = pass.dy ? window_of(*pass.dy, first, count, false) : in;
    bindings[0] = out.binding;
    bindings[1] = in.binding;
    bindings[2] = dy.binding;
    params.out_offset = out.first_element;
    params.in_offset = in.first_element;
    params.dy_offset = dy.first_element;
    params.numel = u32(count);
    const bool quad_piece = quads != nullptr && on_words(context, params, bindings);
    const int64_t items = quad_piece ? count / 4 : count;
    vs.dispatch(quad_piece ? *quads : pipe, bindings, &params, sizeof params,
                std::min<uint32_t>(workgroups_for(context, items), u32(apply_workgroup_cap())));
  }
}

void VulkanNorm::row_pass(Stream& stream, const RowPass& pass) {
  const Context& context = device_.context();
  VulkanStream& vs = vulkan_stream(stream);
  const NormShape& shape = pass.shape;
  const DType dtype = pass.in->dtype;
  const int64_t channels = shape.channels;
  const int64_t sample = channels * shape.inner;
  const int64_t length = sample / pass.groups;
  const uint32_t param_dtype = pass.weight ? code(pass.weight->dtype) : pass.bias ? code(pass.bias->dtype) : 0;
  const std::vector<uint32_t> constants{code(dtype), code(pass.mean ? pass.mean->dtype : dtype), param_dtype,
                                        pass.mode};
  // norm_rows.comp's QUADS where the rows and channels allow; each piece also needs its operands on words.
  const bool quad_rows = dtype == DType::Float32 && length % 4 == 0 && (shape.inner == 1 || shape.inner % 4 == 0);
  const Pipeline* quads = quad_rows ? &device_.pipelines().get("norm_rows_f32_quads", constants) : nullptr;
  const Pipeline& pipe = pipeline("norm_rows", dtype, constants);

  RowParams params{};
  params.groups = u32(pass.groups);
  params.group_channels = u32(channels / pass.groups);
  params.inner = u32(shape.inner);
  params.flags = pass.flags;
  params.lanes_log2 = std::max(row_lanes_log2(context, shape.outer * pass.groups, length),
                               std::min<uint32_t>(8, ceil_log2(static_cast<uint64_t>(ceil_div(length, kMaxLaneSteps)))));
  compute_bits(pass.eps, dtype == DType::Float64, params.eps);
  const int64_t rows_per_workgroup = kWorkgroupSize >> params.lanes_log2;
  const uint32_t max_x = context.properties.limits.maxComputeWorkGroupCount[0];

  Binding bindings[7];
  auto bind_param = [&](int slot, const TensorRef* ref, const Window& fallback, uint32_t& offset) {
    const Window w = ref ? window_of(*ref, 0, channels, false) : fallback;
    bindings[slot] = w.binding;
    offset = w.first_element;
  };
  const bool writes_stats = pass.mode == kRowsForward;
  const uint64_t sample_bytes = static_cast<uint64_t>(sample) * element_size(dtype);
  for (const Piece& piece : sample_pieces(context, shape, sample_bytes, "norm")) {
    const int64_t first = piece.first * sample;
    const int64_t count = piece.count * sample;
    const int64_t rows = piece.count * pass.groups;
    const Window out = window_of(*pass.out, first, count, true);
    const Window in = window_of(*pass.in, first, count, false);
    const Window dy = pass.dy ? window_of(*pass.dy, first, count, false) : in;
    const Window mean = pass.mean ? window_of(*pass.mean, piece.first * pass.groups, rows, writes_stats) : in;
    const Window rstd = pass.rstd ? window_of(*pass.rstd, piece.first * pass.groups, rows, writes_stats) : in;
    bindings[0] = out.binding;
    bindings[1] = in.binding;
    bindings[2] = dy.binding;
    bindings[3] = mean.binding;
    bindings[4] = rstd.binding;
    params.out_offset = out.first_element;
    params.in_offset = in.first_element;
    params.dy_offset = dy.first_element;
    params.mean_offset = mean.first_element;
    params.rstd_offset = rstd.first_element;
    bind_param(5, pass.weight, in, params.weight_offset);
    bind_param(6, pass.bias, in, params.bias_offset);
    if (!pass.weight) bindings[5].write = false;
    if (!pass.bias) bindings[6].write = false;
    params.rows = u32(rows);
    const bool quad_piece = quads != nullptr && on_words(context, params, bindings);
    vs.dispatch(quad_piece ? *quads : pipe, bindings, &params, sizeof params,
                u32(std::clamp<int64_t>(ceil_div(rows, rows_per_workgroup), 1, max_x)));
  }
}

void VulkanNorm::batch_norm_stats(Stream& stream, const BatchNormStatsArgs& args) {
  args.check();
  require_dtype(device_, args.in.dtype, "batch_norm_stats");
  if (args.shape.channels == 0) return;
  ChannelPass pass;
  pass.mode = kModeStats;
  pass.in = &args.in;
  pass.stat_a = &args.mean;
  pass.stat_b = &args.invstd;
  pass.param_a = args.running_mean ? &*args.running_mean : nullptr;
  pass.param_b = args.running_var ? &*args.running_var : nullptr;
  pass.shape = args.shape;
  pass.flags = args.running_mean ? kChannelRunning : 0;
  pass.eps = args.eps;
  pass.momentum = args.momentum;
  uint32_t sums_offset = 0;
  channel_pass(stream, pass, &sums_offset);
}

void VulkanNorm::batch_norm_apply(Stream& stream, const BatchNormApplyArgs& args) {
  args.check();
  require_dtype(device_, args.in.dtype, "batch_norm_apply");
  if (args.shape.numel() == 0) return;
  ApplyPass pass;
  pass.mode = kApplyForward;
  pass.out = &args.out;
  pass.in = &args.in;
  pass.mean = &args.mean;
  pass.invstd = &args.invstd;
  pass.weight = args.weight ? &*args.weight : nullptr;
  pass.bias = args.bias ? &*args.bias : nullptr;
  pass.shape = args.shape;
  pass.flags = (args.weight ? kApplyWeight : 0) | (args.bias ? kApplyBias : 0) |
               (args.invstd_from_var ? kApplyFromVar : 0);
  pass.eps = args.eps;
  apply_pass(stream, pass);
}

void VulkanNorm::batch_norm_backward(Stream& stream, const BatchNormBackwardArgs& args) {
  args.check();
  require_dtype(device_, args.in.dtype, "batch_norm_backward");
  if (args.shape.channels == 0) return;
  const bool needs_sums = args.grad_in && args.training;
  std::shared_ptr<Allocation> sums;
  uint32_t sums_offset = 0;
  if (needs_sums || args.grad_weight || args.grad_bias) {
    ChannelPass pass;
    pass.mode = kModeBnBackward;
    pass.in = &args.in;
    pass.dy = &args.grad_out;
    pass.stat_a = &args.mean;
    pass.stat_b = &args.invstd;
    pass.param_a = args.grad_weight ? &*args.grad_weight : nullptr;
    pass.param_b = args.grad_bias ? &*args.grad_bias : nullptr;
    pass.shape = args.shape;
    pass.flags = (args.grad_weight ? kChannelGradWeight : 0) | (args.grad_bias ? kChannelGradBias : 0) |
                 (args.invstd_from_var ? kChannelFromVar : 0);
    pass.eps = args.eps;
    sums = channel_pass(stream, pass, &sums_offset);
  }
  if (!args.grad_in || args.shape.numel() == 0) return;
  ApplyPass pass;
  pass.mode = kApplyBackward;
  pass.out = &*args.grad_in;
  pass.in = &args.in;
  pass.dy = &args.grad_out;
  pass.mean = &args.mean;
  pass.invstd = &args.invstd;
  pass.weight = args.weight ? &*args.weight : nullptr;
  pass.sums = needs_sums ? sums.get() : nullptr;
  pass.sums_offset = sums_offset;
  pass.shape = args.shape;
  pass.flags = (args.weight ? kApplyWeight : 0) | (args.invstd_from_var ? kApplyFromVar : 0) |
               (args.training ? kApplyTraining : 0);
  pass.eps = args.eps;
  apply_pass(stream, pass);
}

void VulkanNorm::group_norm(Stream& stream, const GroupNormArgs& args) {
  args.check();
  require_dtype(device_, args.in.dtype, "group_norm");
  if (args.shape.outer == 0) return;
  RowPass pass;
  pass.mode = kRowsForward;
  pass.out = &args.out;
  pass.in = &args.in;
  pass.mean = &args.mean;
  pass.rstd = &args.rstd;
  pass.weight = args.weight ? &*args.weight : nullptr;
  pass.bias = args.bias ? &*args.bias : nullptr;
  pass.shape = args.shape;
  pass.groups = args.groups;
  pass.flags = (args.weight ? kRowsWeight : 0) | (args.bias ? kRowsBias : 0) | kRowsWriteStats;
  pass.eps = args.eps;
  row_pass(stream, pass);
}

void VulkanNorm::group_norm_backward(Stream& stream, const GroupNormBackwardArgs& args) {
  args.check();
  require_dtype(device_, args.in.dtype, "group_norm_backward");
  if (args.grad_in && args.shape.numel() > 0) {
    RowPass pass;
    pass.mode = kRowsBackward;
    pass.out = &*args.grad_in;
    pass.in = &args.in;
    pass.dy = &args.grad_out;
    pass.mean = &args.mean;
    pass.rstd = &args.rstd;
    pass.weight = args.weight ? &*args.weight : nullptr;
    pass.shape = args.shape;
    pass.groups = args.groups;
    pass.flags = args.weight ? kRowsWeight : 0;
    row_pass(stream, pass);
  }
  if ((args.grad_weight || args.grad_bias) && args.shape.channels > 0) {
    ChannelPass pass;
    pass.mode = kModeAffineGrad;
    pass.in = &args.in;
    pass.dy = &args.grad_out;
    pass.stat_a = &args.mean;
    pass.stat_b = &args.rstd;
    pass.param_a = args.grad_weight ? &*args.grad_weight : nullptr;
    pass.param_b = args.grad_bias ? &*args.grad_bias : nullptr;
    pass.shape = args.shape;
    pass.groups = args.groups;
    pass.flags = (args.grad_weight ? kChannelGradWeight : 0) | (args.grad_bias ? kChannelGradBias : 0);
    uint32_t sums_offset = 0;
    channel_pass(stream, pass, &sums_offset);
  }
}

void VulkanNorm::softmax(Stream& stream, const SoftmaxArgs& args) {
  args.check();
  require_dtype(device_, args.in.dtype, args.log ? "log_softmax" : "softmax");
  softmax_pass(stream, kRowsSoftmax, args.out, args.in, nullptr, args.rows, args.length, args.log);
}

void VulkanNorm::softmax_backward(Stream& stream, const SoftmaxBackwardArgs& args) {
  args.check();
  require_dtype(device_, args.out.dtype, args.log ? "log_softmax_backward" : "softmax_backward");
  softmax_pass(stream, kRowsSoftmaxBackward, args.grad_in, args.out, &args.grad_out, args.rows, args.length, args.log);
}

void VulkanNorm::softmax_pass(Stream& stream, uint32_t mode, const TensorRef& out, const TensorRef& in,
                              const TensorRef* dy, int64_t rows, int64_t length, bool log) {
  if (rows == 0 || length == 0) return;
  RowPass pass;
  pass.mode = mode;
  pass.out = &out;
  pass.in = &in;
  pass.dy = dy;
  pass.shape = {rows, length, 1};
  pass.flags = log ? kRowsLog : 0;
  row_pass(stream, pass);
}

}  // namespace

EMBER_VULKAN_KERNELS(NormKernels, VulkanNorm);

}  // namespace ember::vulkan
