// Depthwise convolution on Vulkan (conv_depthwise.comp): its launches. The forward and the input gradient
// run one dispatch per batch window; the weight gradient splits its reduction over batch and rows into
// workgroups, each writing its own partial sums (float32, float64 for float64), and the reduce family
// sums the splits into the gradient, as the GEMM path's weight gradient does.
#include <algorithm>
#include <string>
#include <vector>

#include "runtime/allocator.h"
#include "runtime/error.h"
#include "runtime/kernels/reduce.h"
#include "shaders/common/launch.h"
#include "shaders/common/vulkan_family.h"
#include "shaders/conv/conv_launch.h"
#include "shaders/reduce/reduce_plan.h"

namespace ember::vulkan::conv {

namespace {

// Adjacent positions per invocation (POSITIONS in the shader): each tap's weight is read once for them.
constexpr uint32_t kPositions = 4;

const KernelAbiRegistration kAbis{
    {"conv_depthwise_forward_f32", 4, sizeof(ConvParams)},     {"conv_depthwise_forward_f64", 4, sizeof(ConvParams)},
    {"conv_depthwise_input_grad_f32", 4, sizeof(ConvParams)},  {"conv_depthwise_input_grad_f64", 4, sizeof(ConvParams)},
    {"conv_depthwise_weight_grad_f32", 4, sizeof(ConvParams)}, {"conv_depthwise_weight_grad_f64", 4, sizeof(ConvParams)},
};

const Pipeline& pipeline_of(VulkanDevice& device, Direction direction, const Operands& operands) {
  const DType dtype = operands.b.dtype;
  const DType compute = dtype == DType::Float64 ? DType::Float64 : DType::Float32;
  std::vector<uint32_t> specialization(4, static_cast<uint32_t>(dtype));
  specialization[kOut] = static_cast<uint32_t>(operands.out.dtype);
  if (operands.bias) specialization[kBias] = static_cast<uint32_t>(operands.bias->dtype);
  if (direction != Direction::WeightGrad) specialization.push_back(kPositions);  // the weight gradient has none
  return device.pipelines().get(
      "conv_depthwise_" + std::string(direction_name(direction)) + "_" + std::string(compute_suffix(compute)),
      specialization);
}

// Samples per launch: as many as every batched operand's window holds and 32-bit invocation ids count.
int64_t samples_per_launch(VulkanDevice& device, const ConvShape& s, const std::vector<const TensorRef*>& batched,
                           const std::vector<const TensorRef*>& whole, int64_t invocations_per_sample,
                           const char* what) {
  const uint64_t window = max_window_bytes(device.context());
  for (const TensorRef* ref : whole) {
    if (ref->extent_bytes() > window) {
      throw UnsupportedError(std::string("conv ") + what + ": the weight (" + format_bytes(ref->extent_bytes()) +
                             ") is larger than a storage-buffer binding of " + device.info().name + " can reach (" +
                             format_bytes(window) + ")");
    }
  }
  uint64_t per_sample = 1;
  for (const TensorRef* ref : batched) {
    per_sample = std::max<uint64_t>(per_sample, static_cast<uint64_t>(ref->numel() / s.batch) * element_size(ref->dtype));
  }
  if (per_sample > window) {
    throw UnsupportedError(std::string("conv ") + what + ": one sample (" + format_bytes(per_sample) +
                           ") is larger than a storage-buffer binding of " + device.info().name + " can reach (" +
                           format_bytes(window) + ")");
  }
  const int64_t by_ids = std::max<int64_t>(1, (int64_t{1} << 31) / std::max<int64_t>(invocations_per_sample, 1));
  return std::max<int64_t>(1, std::min({s.batch, static_cast<int64_t>(window / per_sample), by_ids}));
}

}  // namespace

bool depthwise_applies(const ConvShape& s, const ConvGeometry& geometry) {
  if (s.groups != s.in_channels || s.out_channels % s.in_channels != 0) return false;
  // From 8 output channels per input channel the GEMM kernels' register blocks fill their rows and win
  // (measured on lavapipe: 1 → 32 channels at 28×28, the direct kernel 38 ms forward against 16).
  if (s.out_channels / s.in_channels >= 8) return false;
  const Geometry3 g = as_3d(s, geometry);
  const int64_t taps = volume(g.kernel_size) * (s.out_channels / s.in_channels);
  // Inside llvmpipe's loop budget per invocation: taps × positions (forward, input gradient), and a row of
  // positions per row of the weight gradient's split.
  return taps * (kPositions + 1) <= kMaxKPerInvocation && g.out_size[2] < kMaxKPerInvocation / 2;
}

void launch_depthwise(VulkanDevice& device, Stream& stream, Direction direction, const ConvShape& s,
                      const ConvGeometry& geometry, const Operands& operands) {
  const Geometry3 g = as_3d(s, geometry);
  const Context& context = device.context();
  const bool forward = direction == Direction::Forward;
  const std::array<int64_t, 3>& here = forward ? g.out_size : g.in_size;
  const int64_t channels = forward ? s.out_channels : s.in_channels;
  const int64_t per_sample = channels * here[0] * here[1] * ((here[2] + kPositions - 1) / kPositions);
  std::vector<const TensorRef*> whole = {&operands.a};
  if (operands.bias) whole.push_back(&*operands.bias);
  const int64_t samples = samples_per_launch(device, s, {&operands.out, &operands.b}, whole, per_sample,
                                             direction_name(direction));
  const Pipeline& pipeline = pipeline_of(device, direction, operands);
  ConvParams params = base_params(s, g);
  params.flags = (operands.bias ? kHasBias : 0u) | (operands.relu ? kRelu : 0u);
  VulkanStream& vs = vulkan_stream(stream);
  for (int64_t first = 0; first < s.batch; first += samples) {
    const int64_t count = std::min(samples, s.batch - first);
    const TensorRef out = samples_of(operands.out, first, count);
    const TensorRef b = samples_of(operands.b, first, count);
    params.batch = static_cast<uint32_t>(count);
    const Window windows[4] = {window_of(context, out, true), window_of(context, operands.a, false),
                               window_of(context, b, false),
                               operands.bias ? window_of(context, *operands.bias, false) : window_of(context, b, false)};
    Binding bindings[4];
    for (int slot = 0; slot < 4; ++slot) {
      bindings[slot] = windows[slot].binding;
      params.offsets[slot] = windows[slot].first_element;
    }
    const auto [x, y] = grid_of(context, (per_sample * count + kWorkgroupSize - 1) / kWorkgroupSize);
    vs.dispatch(pipeline, bindings, &params, sizeof params, x, y, 1);
  }
}

void launch_depthwise_weight_grad(VulkanDevice& device, Stream& stream, const ConvShape& s,
                                  const ConvGeometry& geometry, const ConvWeightGradArgs& args) {
  const Geometry3 g = as_3d(s, geometry);
  const Context& context = device.context();
  const auto& limits = context.properties.limits;
  const DType dtype = args.input.dtype;
  const DType compute = dtype == DType::Float64 ? DType::Float64 : DType::Float32;
  const DType partial_dtype = compute_storage(compute);
  const int64_t entries = args.grad_weight.numel();  // out channels × taps: one workgroup each per split
  const int64_t rows_per_sample = g.out_size[0] * g.out_size[1];
  const int64_t samples = samples_per_launch(device, s, {&args.grad_output, &args.input}, {}, rows_per_sample,
                                             "weight_grad");
  const int64_t launches = (s.batch + samples - 1) / samples;
  const int64_t rows = samples * rows_per_sample;

  // Splits of a launch's rows: enough workgroups for the device, a split at least 64 rows, each lane's
  // loop (its rows × a row of positions) inside llvmpipe's budget, and partial sums in one binding.
  const bool cpu = device.info().kind == "CPU";
  const int64_t wanted = cpu ? 4 * cpu_workers() : 1024;
  const int64_t max_rows_per_split =
      int64_t{kWorkgroupSize} * std::max<int64_t>(1, kMaxKPerInvocation / (g.out_size[2] + 1));
  int64_t splits = std::clamp<int64_t>((wanted + entries - 1) / entries, 1, std::max<int64_t>(1, rows / 64));
  splits = std::max(splits, (rows + max_rows_per_split - 1) / max_rows_per_split);
  const uint64_t window = max_window_bytes(context);
  const uint64_t entry_bytes = static_cast<uint64_t>(entries) * element_size(partial_dtype);
  if (splits > limits.maxComputeWorkGroupCount[2] ||
      static_cast<uint64_t>(splits * launches) * entry_bytes > window) {
    throw UnsupportedError("conv weight_grad: the depthwise reduction needs more splits than " + device.info().name +
                           " can hold");
  }
  const int64_t rows_per_split = (rows + splits - 1) / splits;
  const int64_t partials = splits * launches;

  std::shared_ptr<Allocation> scratch;
  TensorRef out = TensorRef::contiguous(*args.grad_weight.allocation, dtype, {1, entries}, args.grad_weight.byte_offset);
  if (partials > 1) {
    scratch = device.allocator().allocate(static_cast<uint64_t>(partials) * entry_bytes, stream.shared_from_this());
    out = TensorRef::contiguous(*scratch, partial_dtype, {partials, entries});
  }
  const Operands operands{out, args.grad_output, args.input, {}};
  const Pipeline& pipeline = pipeline_of(device, Direction::WeightGrad, operands);
  ConvParams params = base_params(s, g);
  params.k_per_split = static_cast<uint32_t>(rows_per_split);
  const auto [x, y] = grid_of(context, entries);
  VulkanStream& vs = vulkan_stream(stream);
  int64_t launch_index = 0;
  for (int64_t first = 0; first < s.batch; first += samples, ++launch_index) {
    const int64_t count = std::min(samples, s.batch - first);
    const TensorRef part = samples_of(out, launch_index * splits, splits);
    const TensorRef a = samples_of(args.grad_output, first, count);
    const TensorRef b = samples_of(args.input, first, count);
    params.batch = static_cast<uint32_t>(count);
    const Window windows[4] = {window_of(context, part, true), window_of(context, a, false), window_of(context, b, false),
                               window_of(context, b, false)};
    Binding bindings[4];
    for (int slot = 0; slot < 4; ++slot) {
      bindings[slot] = windows[slot].binding;
      params.offsets[slot] = windows[slot].first_element;
    }
    vs.dispatch(pipeline, bindings, &params, sizeof params, x, y, static_cast<uint32_t>(splits));
  }
  if (partials == 1) return;
  ReduceArgs sum;
  sum.op = ReduceOp::Sum;
  sum.out = TensorRef::contiguous(*args.grad_weight.allocation, dtype, {entries}, args.grad_weight.byte_offset);
  sum.in = out;
  sum.reduce_mask = 1;
  sum.compute = compute;
  device.kernels().get<ReduceKernels>().reduce(stream, sum);
}

}  // namespace ember::vulkan::conv
