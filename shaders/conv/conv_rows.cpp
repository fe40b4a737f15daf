// The row kernels (conv_rows.comp, and conv_rows_few.comp for fewer than 8 rows of out) for stride-1
// float32 convolutions on CPU drivers: where they apply, their launch plans, and the padded copy of the
// gathered operand they read (conv_pad.comp), which conv_rows_few.comp skips where the operand's rows
// start on texels.
#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "runtime/allocator.h"
#include "runtime/error.h"
#include "shaders/common/vulkan_family.h"
#include "shaders/conv/conv_launch.h"
#include "shaders/matmul/matmul_variant.h"
#include "shaders/reduce/reduce_plan.h"

namespace ember::vulkan::conv {

namespace {

// Mirrors the row kernels' push constants (conv_rows_common.glsl).
struct RowsParams {
  uint32_t out_first, bias_first, a_first, x_first;
  uint32_t batch, rows, channels;
  uint32_t out_h, out_w, row_blocks;
  uint32_t x_row_texels, x_plane_texels, x_sample_texels;
  int32_t a_stride_m, a_stride_c, a_stride_h, a_stride_w;
  uint32_t kernel_h;
  uint32_t flags;
  uint32_t source_h;
  int32_t shift_y, shift_x;
};
constexpr uint32_t kRowsBias = 1, kRowsAccumulate = 2, kRowsRelu = 4;

// Mirrors conv_rows_weight_grad.comp's push constants.
struct WeightGradParams {
  uint32_t partial_first, g_first, rows, out_h, out_w, row_blocks, blocks, splits;
  uint32_t x_row_texels, x_plane_texels, x_sample_texels, kernel_h;
  uint32_t row_groups, run_groups, taps;
};

// Mirrors conv_pad.comp's push constants.
struct PadParams {
  uint32_t padded_first, source_first, rows, source_h, source_w, padded_h, row_words;
  int32_t shift_y, shift_x;
};

const KernelAbiRegistration kAbis{
    {"conv_rows_f32", 4, sizeof(RowsParams)},
    {"conv_rows_few_f32", 4, sizeof(RowsParams)},
    {"conv_pad_f32", 2, sizeof(PadParams)},
    {"conv_rows_weight_grad_f32", 3, sizeof(WeightGradParams)},
};

constexpr int64_t kBlock = 8;     // TN: adjacent outputs per invocation
constexpr int64_t kMaxKw = 9;     // MAX_TEXELS: a run of kBlock + KW − 1 elements in four texels
constexpr uint32_t kRowsTm = 16;  // TM: rows of out per invocation, a multiple of the subgroup's 8
constexpr int64_t kRowsMaxKh = 3;  // kernels it sums all rows of at once (its KH); taller ones unmeasured
// conv_rows_few.comp: rows of positions per block (its TY), and its uniform-buffer window of A (4096 uvec4).
constexpr int64_t kFewRowsTy = 2;
constexpr uint64_t kUniformWindowBytes = 65536;
// conv_rows_weight_grad.comp: kernels up to 5 wide (its TEXELS), TM output channels per invocation, and
// at most kWeightGradMaxTaps taps (RUNS · KW) of input channels per invocation.
constexpr int64_t kWeightGradMaxKw = 5, kWeightGradTm = 8, kWeightGradMaxTaps = 36;
// Blocks one invocation of it walks at most: its one loop, inside llvmpipe's loop limit (kMaxKPerInvocation's
// comment), since the shader unrolls the others. Few splits keep the partial sums, and their reduction,
// small: with at most 64 blocks, a 64 → 64 layer at 56 × 56 (batch 32) reduced 29 MB of them in 37 ms.
constexpr int64_t kWeightGradMaxBlocks = 1024;

// The convolution as conv_rows.comp sees it: out [batch, M, out_h, out_w] from X [batch, C, padded_h,
// padded_w] (the source [batch, C, source_h, source_w] shifted by (shift_y, shift_x) into zeros) and A,
// whose element (m, c, kh, kw) is the weight's element a_origin + m·a_stride[0] + c·a_stride[1] +
// kh·a_stride[2] + kw·a_stride[3].
struct RowsShape {
  int64_t batch = 0, rows = 0, channels = 0;
  int64_t out_h = 0, out_w = 0, kernel_h = 0, kernel_w = 0;
  int64_t source_h = 0, source_w = 0, shift_y = 0, shift_x = 0;
  int64_t a_origin = 0;
  std::array<int64_t, 4> a_stride{};

  int64_t row_blocks() const { return ceil_div(out_w, kBlock); }
  int64_t padded_h() const { return out_h + kernel_h - 1; }
  int64_t padded_w() const { return ceil_div(row_blocks() * kBlock + kernel_w - 1, 4) * 4; }
  int64_t padded_elements() const { return batch * channels * padded_h() * padded_w(); }
  int64_t blocks() const { return batch * out_h * row_blocks(); }
  int64_t few_blocks() const { return batch * ceil_div(out_h, kFewRowsTy) * row_blocks(); }
};

RowsShape rows_shape(Direction direction, const ConvShape& s, const Geometry3& g) {
  RowsShape r;
  r.batch = s.batch;
  r.kernel_h = g.kernel_size[1];
  r.kernel_w = g.kernel_size[2];
  const int64_t volume = r.kernel_h * r.kernel_w;
  // The input gradient is the forward with input and output swapped: grad_input[y, x] = Σ grad_output[y +
  // kh − (KH − 1 − padding), ...] · weight[co, ci, KH − 1 − kh, ...].
  const bool forward = direction == Direction::Forward;
  const std::array<int64_t, 3>& out = forward ? g.out_size : g.in_size;
  const std::array<int64_t, 3>& source = forward ? g.in_size : g.out_size;
  r.rows = forward ? s.out_channels : s.in_channels;
  r.channels = forward ? s.in_channels : s.out_channels;
  r.out_h = out[1];
  r.out_w = out[2];
  r.source_h = source[1];
  r.source_w = source[2];
  r.shift_y = forward ? g.padding[1] : r.kernel_h - 1 - g.padding[1];
  r.shift_x = forward ? g.padding[2] : r.kernel_w - 1 - g.padding[2];
  // A is the weight [Cout, Cin, KH, KW]; the input gradient reads it flipped, from its last tap.
  r.a_origin = forward ? 0 : volume - 1;
  r.a_stride = forward ? std::array<int64_t, 4>{s.in_channels * volume, volume, r.kernel_w, 1}
                       : std::array<int64_t, 4>{volume, s.in_channels * volume, -r.kernel_w, -1};
  return r;
}

// The offset alignment of a texel view: at least a texel.
uint64_t texel_alignment(const Context& context) {
  return std::max<uint64_t>(kTexelBytes, context.properties.limits.minTexelBufferOffsetAlignment);
}

// A view of `ref` that starts at the `alignment` at or below its first element (a view's offset must be
// aligned); `lead_bytes` is where its first element lies in the view.
Binding view_from_aligned_start(const TensorRef& ref, uint64_t alignment, uint64_t& lead_bytes) {
  const uint64_t start = ref.allocation->offset() + ref.byte_offset;
  lead_bytes = start % alignment;
  return Binding{ref.allocation, start - lead_bytes, lead_bytes + ref.extent_bytes(), false};
}

// Records the padded copy of `source` that the row kernels read (conv_pad.comp), into fresh memory, and
// sets `view` to its texel binding; returns null, recording nothing, where that memory or the source
// cannot be read as texels.
std::shared_ptr<Allocation> padded_copy(VulkanDevice& device, Stream& stream, const RowsShape& r,
                                        const TensorRef& source, Binding& view) {
  const Context& context = device.context();
  const uint64_t bytes = static_cast<uint64_t>(r.padded_elements()) * 4;
  std::shared_ptr<Allocation> padded = device.allocator().allocate(bytes, stream.shared_from_this());
  view = Binding{padded.get(), padded->offset(), bytes, false};
  uint64_t source_lead = 0;
  const Binding source_view = view_from_aligned_start(source, texel_alignment(context), source_lead);
  if (!can_read_as_texels(context, view) || !can_read_as_texels(context, source_view)) return nullptr;
  PadParams pad{};
  const Window padded_window = element_window(context, padded.get(), 0, 16, r.padded_elements() / 4, true);
  pad.padded_first = padded_window.first_element;
  pad.source_first = static_cast<uint32_t>(source_lead / 4);
  pad.rows = static_cast<uint32_t>(r.batch * r.channels * r.padded_h());
  pad.source_h = static_cast<uint32_t>(r.source_h);
  pad.source_w = static_cast<uint32_t>(r.source_w);
  pad.padded_h = static_cast<uint32_t>(r.padded_h());
  pad.row_words = static_cast<uint32_t>(r.padded_w() / 4);
  pad.shift_y = static_cast<int32_t>(r.shift_y);
  pad.shift_x = static_cast<int32_t>(r.shift_x);
  const Binding bindings[2] = {padded_window.binding, source_view};
  const auto [x, y] = grid_of(context, (pad.rows + kWorkgroupSize - 1) / kWorkgroupSize);
  vulkan_stream(stream).dispatch(device.pipelines().get("conv_pad_f32", {}), bindings, &pad, sizeof pad, x, y, 1);
  return padded;
}

// Whether a convolution has stride 1 and dilation 1 in its two inner dims, and float32 operands and bias.
bool stride_one_float32(const Geometry3& g, std::initializer_list<const TensorRef*> operands,
                        const std::optional<TensorRef>& bias) {
  for (int d = 1; d < 3; ++d) {
    if (g.stride[d] != 1 || g.dilation[d] != 1) return false;
  }
  for (const TensorRef* tensor : operands) {
    if (tensor->dtype != DType::Float32) return false;
  }
  return !bias || bias->dtype == DType::Float32;
}

// Whether a row kernel takes this convolution: a forward or input gradient of stride 1, dilation 1 and
// one group over 1 or 2 spatial dims, float32 operands, a kernel at most kMaxKw wide, and operands that fit
// one binding each and 32-bit positions. conv_rows.comp, for 8 rows or more, also needs subgroups of 8
// with shuffles; conv_rows_few.comp, for fewer, A in one uniform-buffer window (`a_window`, with A's first
// element `a_lead` elements into it).
bool rows_take(VulkanDevice& device, Direction direction, const ConvShape& s, const Geometry3& g, const RowsShape& r,
               const Operands& operands, std::optional<Binding>& a_window, uint64_t& a_lead) {
  if (direction == Direction::WeightGrad || s.spatial == 3 || s.groups != 1 || r.rows == 0 || r.kernel_w > kMaxKw) {
    return false;
  }
  if (!stride_one_float32(g, {&operands.out, &operands.a, &operands.b}, operands.bias)) return false;
  const Context& context = device.context();
  const auto& limits = context.properties.limits;
  if (r.rows < 8) {
    // All of A in one window of whole uvec4; it then also holds fewer than kMaxKPerInvocation of each
    // row's sum.
    uint64_t lead_bytes = 0;
    Binding window = view_from_aligned_start(
        operands.a, std::max<uint64_t>(limits.minUniformBufferOffsetAlignment, 16), lead_bytes);
    window.range = ceil_div(window.range, uint64_t{16}) * 16;
    if (window.range > std::min<uint64_t>(kUniformWindowBytes, limits.maxUniformBufferRange)) return false;
    a_window = window;
    a_lead = lead_bytes / 4;
  } else if (!register_blocks_can_share_a(device)) {
    return false;
  }
  const uint64_t window = max_window_bytes(context);
  const uint64_t padded_bytes = static_cast<uint64_t>(r.padded_elements()) * 4;
  for (const TensorRef* tensor : {&operands.out, &operands.b}) {
    if (tensor->extent_bytes() > window || tensor->extent_bytes() / 16 >= limits.maxTexelBufferElements) return false;
  }
  return padded_bytes <= window && padded_bytes / 16 < limits.maxTexelBufferElements &&
         r.padded_elements() < (int64_t{1} << 32) && r.padded_w() / 4 <= kMaxKPerInvocation &&
         r.blocks() <= int64_t{limits.maxComputeWorkGroupCount[0]} * kWorkgroupSize &&
         (r.rows + kRowsTm - 1) / kRowsTm <= limits.maxComputeWorkGroupCount[1];
}

}  // namespace

bool launch_rows(VulkanDevice& device, Stream& stream, Direction direction, const ConvShape& s,
                 const ConvGeometry& geometry, const Operands& operands) {
  const Geometry3 g = as_3d(s, geometry);
  const RowsShape r = rows_shape(direction, s, g);
  std::optional<Binding> a_window;
  uint64_t a_lead = 0;
  if (!rows_take(device, direction, s, g, r, operands, a_window, a_lead)) return false;
  const bool few = a_window.has_value();
  const Context& context = device.context();
  const Binding a_view = few ? *a_window
                             : Binding{operands.a.allocation, operands.a.allocation->offset() + operands.a.byte_offset,
                                       operands.a.extent_bytes(), false};
  if (!few && !can_read_as_texels(context, a_view)) return false;
  // conv_rows_few.comp reads the source itself where its rows start on texels (a source on a texel, rows
  // of a multiple of four elements) and a block's run, from the texel at or below its first element, fits
  // the kernel's four texels; otherwise a padded copy.
  const int64_t lead = ((-r.shift_x) % 4 + 4) % 4;
  uint64_t source_lead = 0;
  Binding x_view = view_from_aligned_start(operands.b, texel_alignment(context), source_lead);
  const bool direct = few && r.source_w % 4 == 0 && source_lead % kTexelBytes == 0 &&
                      lead + r.kernel_w <= kMaxKw && can_read_as_texels(context, x_view);
  std::shared_ptr<Allocation> padded;
  if (!direct) {
    padded = padded_copy(device, stream, r, operands.b, x_view);
    if (!padded) return false;
  }
  VulkanStream& vs = vulkan_stream(stream);

  // Channels per launch: each invocation's loop inside llvmpipe's budget; launches after the first add
  // to out. conv_rows_few.comp's A fits one window, so one launch takes all of them (rows_take).
  const int64_t taps = r.kernel_h * r.kernel_w;
  const int64_t channels_per_launch = std::max<int64_t>(1, kMaxKPerInvocation / taps);
  const Window out = window_of(context, operands.out, true);
  // Rows of a multiple of four keep every run of four outputs in one row (blocks start at multiples of 8).
  const bool word_stores = takes_word_stores(direction, DType::Float32, operands.out.dtype,
                                             static_cast<uint32_t>(kBlock), r.out_w, out.first_element);
  const uint32_t tm = few ? static_cast<uint32_t>(r.rows) : r.rows <= 8 ? 8 : kRowsTm;
  std::vector<uint32_t> constants{tm, static_cast<uint32_t>(r.kernel_w), word_stores ? 1u : 0u};
  if (few) constants.insert(constants.end(), {direct ? 1u : 0u, static_cast<uint32_t>(direct ? lead : 0)});
  // conv_rows.comp's KH: all of a channel's kernel rows at once. With one channel it measured slower
  // (2.77-2.85 against 2.52-2.69 ms for Fashion-MNIST's first layer).
  if (!few) constants.push_back(r.kernel_h <= kRowsMaxKh && r.channels > 1 ? static_cast<uint32_t>(r.kernel_h) : 0u);
  const Pipeline& pipeline = device.pipelines().get(few ? "conv_rows_few_f32" : "conv_rows_f32", constants);
  const std::optional<Window> bias =
      operands.bias ? std::optional<Window>(window_of(context, *operands.bias, false)) : std::nullopt;
  RowsParams params{};
  params.out_first = out.first_element;
  params.bias_first = bias ? bias->first_element : 0;
  params.batch = static_cast<uint32_t>(r.batch);
  params.rows = static_cast<uint32_t>(r.rows);
  params.out_h = static_cast<uint32_t>(r.out_h);
  params.out_w = static_cast<uint32_t>(r.out_w);
  params.row_blocks = static_cast<uint32_t>(r.row_blocks());
  const int64_t x_h = direct ? r.source_h : r.padded_h(), x_w = direct ? r.source_w : r.padded_w();
  params.x_row_texels = static_cast<uint32_t>(x_w / 4);
  params.x_plane_texels = static_cast<uint32_t>(x_h * x_w / 4);
  params.x_sample_texels = static_cast<uint32_t>(r.channels * x_h * x_w / 4);
  params.source_h = static_cast<uint32_t>(r.source_h);
  params.shift_y = static_cast<int32_t>(r.shift_y);
  params.shift_x = static_cast<int32_t>(r.shift_x);
  params.a_stride_m = static_cast<int32_t>(r.a_stride[0]);
  params.a_stride_c = static_cast<int32_t>(r.a_stride[1]);
  params.a_stride_h = static_cast<int32_t>(r.a_stride[2]);
  params.a_stride_w = static_cast<int32_t>(r.a_stride[3]);
  params.kernel_h = static_cast<uint32_t>(r.kernel_h);
  const auto column_groups = static_cast<uint32_t>(ceil_div(few ? r.few_blocks() : r.blocks(), kWorkgroupSize));
  const auto row_groups = static_cast<uint32_t>(ceil_div(r.rows, tm));
  for (int64_t channel_first = 0; channel_first < r.channels; channel_first += channels_per_launch) {
    const int64_t channels = std::min(channels_per_launch, r.channels - channel_first);
    params.a_first = static_cast<uint32_t>(static_cast<int64_t>(a_lead) + r.a_origin + channel_first * r.a_stride[1]);
    params.x_first = static_cast<uint32_t>((direct ? source_lead / kTexelBytes : 0) + channel_first * x_h * x_w / 4);
    params.channels = static_cast<uint32_t>(channels);
    const bool first = channel_first == 0, last = channel_first + channels == r.channels;
    params.flags = (first && bias ? kRowsBias : 0u) | (first ? 0u : kRowsAccumulate) |
                   (last && operands.relu ? kRowsRelu : 0u);
    const Binding bindings[4] = {out.binding, a_view, x_view, bias ? bias->binding : out.binding};
    vs.dispatch(pipeline, bindings, &params, sizeof params, column_groups, row_groups, 1);
  }
  return true;
}

bool launch_rows_weight_grad(VulkanDevice& device, Stream& stream, const ConvShape& s, const ConvWeightGradArgs& args) {
  const Geometry3 g = as_3d(s, args.geometry);
  const RowsShape r = rows_shape(Direction::Forward, s, g);
  if (device.info().kind != "CPU" || s.spatial == 3 || s.groups != 1 || r.kernel_w > kWeightGradMaxKw ||
      r.kernel_h * r.kernel_w > kWeightGradMaxTaps || r.channels == 0) {
    return false;
  }
  if (!stride_one_float32(g, {&args.grad_weight, &args.grad_output, &args.input}, args.grad_bias)) return false;
  const Context& context = device.context();
  const auto& limits = context.properties.limits;
  const uint64_t window = max_window_bytes(context);
  // Input channels per invocation: the most that divide C with at most kWeightGradMaxTaps taps.
  int64_t channels_per_invocation = std::max<int64_t>(1, kWeightGradMaxTaps / (r.kernel_h * r.kernel_w));
  while (r.channels % channels_per_invocation != 0) --channels_per_invocation;
  const int64_t runs = channels_per_invocation * r.kernel_h;
  const int64_t row_groups = ceil_div(r.rows, kWeightGradTm), run_groups = r.channels / channels_per_invocation;
  const int64_t blocks = r.blocks();
  // Splits: two workgroups for each of lavapipe's workers, and few enough blocks for each invocation.
  const int64_t splits =
      std::min(blocks, std::max(ceil_div(2 * cpu_workers() * kWorkgroupSize, row_groups * run_groups),
                                ceil_div(blocks, kWeightGradMaxBlocks)));
  const int64_t invocations = splits * row_groups * run_groups;
  const int64_t taps = r.channels * r.kernel_h * r.kernel_w;
  const uint64_t partial_bytes = static_cast<uint64_t>(splits * r.rows * (taps + 1)) * 4;
  // grad_output through a texel view, from the texel at or below its first element.
  uint64_t g_lead = 0;
  const Binding g_view = view_from_aligned_start(args.grad_output, texel_alignment(context), g_lead);
  const bool g_aligned = r.out_w % 4 == 0 && g_lead % kTexelBytes == 0;
  const uint64_t padded_bytes = static_cast<uint64_t>(r.padded_elements()) * 4;
  if (g_view.range > window || g_view.range / 16 >= limits.maxTexelBufferElements || padded_bytes > window ||
      padded_bytes / 16 >= limits.maxTexelBufferElements || partial_bytes > window ||
      r.padded_elements() >= (int64_t{1} << 32) || g_view.range / 4 >= (uint64_t{1} << 32) ||
      invocations >= (int64_t{1} << 32) || ceil_div(invocations, kWorkgroupSize) > limits.maxComputeWorkGroupCount[0] ||
      !can_read_as_texels(context, g_view)) {
    return false;
  }
  Binding x_view;
  const std::shared_ptr<Allocation> padded = padded_copy(device, stream, r, args.input, x_view);
  if (!padded) return false;
  std::shared_ptr<Allocation> scratch = device.allocator().allocate(partial_bytes, stream.shared_from_this());
  const Window partial = element_window(context, scratch.get(), 0, 4, splits * r.rows * (taps + 1), true);
  WeightGradParams params{};
  params.partial_first = partial.first_element;
  params.g_first = static_cast<uint32_t>(g_lead / 4);
  params.rows = static_cast<uint32_t>(r.rows);
  params.out_h = static_cast<uint32_t>(r.out_h);
  params.out_w = static_cast<uint32_t>(r.out_w);
  params.row_blocks = static_cast<uint32_t>(r.row_blocks());
  params.blocks = static_cast<uint32_t>(blocks);
  params.splits = static_cast<uint32_t>(splits);
  params.x_row_texels = static_cast<uint32_t>(r.padded_w() / 4);
  params.x_plane_texels = static_cast<uint32_t>(r.padded_h() * r.padded_w() / 4);
  params.x_sample_texels = static_cast<uint32_t>(r.channels * r.padded_h() * r.padded_w() / 4);
  params.kernel_h = static_cast<uint32_t>(r.kernel_h);
  params.row_groups = static_cast<uint32_t>(row_groups);
  params.run_groups = static_cast<uint32_t>(run_groups);
  params.taps = static_cast<uint32_t>(taps);
  const Pipeline& pipeline = device.pipelines().get(
      "conv_rows_weight_grad_f32",
      {static_cast<uint32_t>(runs), static_cast<uint32_t>(r.kernel_w), g_aligned ? 1u : 0u});
  const Binding bindings[3] = {partial.binding, g_view, x_view};
  vulkan_stream(stream).dispatch(pipeline, bindings, &params, sizeof params,
                                 static_cast<uint32_t>(ceil_div(invocations, kWorkgroupSize)), 1, 1);
  sum_weight_partials(device, stream, *scratch, DType::Float32, splits, taps, BiasPartials::After, args);
  return true;
}

}  // namespace ember::vulkan::conv
