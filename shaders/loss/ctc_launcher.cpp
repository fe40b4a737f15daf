// Launchers of the CTC kernels. The recursion (ctc_recursion.comp) is one dispatch for the whole
// recursion where it fits, split into runs of frames only where a binding cannot reach the table's rows
// or, on a CPU driver, where frames × position blocks would pass llvmpipe's loop limit (65535
// iterations). The gradient (ctc_gradient.comp) is two dispatches per piece of rows that its bindings
// and workgroup counts reach, usually one piece.
#include "shaders/loss/ctc_launcher.h"

#include <algorithm>
#include <memory>
#include <string>

#include "runtime/error.h"
#include "shaders/common/launch.h"
#include "shaders/common/vulkan_family.h"
#include "shaders/reduce/reduce_plan.h"

namespace ember::vulkan {

namespace {

struct CtcParams {
  uint32_t table_offset, emissions_offset, moves_offset, batch, positions, first_sequence, frames;
};

struct CtcGradientParams {
  uint32_t grad_offset, log_probs_offset, alpha_offset, beta_offset, shift_offset, labels_offset, nll_offset,
      lengths_offset, first_row, rows, batch, positions, classes, zero_infinity;
};

const KernelAbiRegistration kAbis{
    {"ctc_recursion_f32", 3, sizeof(CtcParams)},
    {"ctc_recursion_f64", 3, sizeof(CtcParams)},
    {"ctc_gradient_f32", 8, sizeof(CtcGradientParams)},
    {"ctc_gradient_f64", 8, sizeof(CtcGradientParams)},
};

constexpr uint32_t kGradientWorkgroup = 256;  // local_size_x of ctc_gradient.comp
constexpr int64_t kBelowFloatExact = int64_t{1} << 24;  // divide_small's dividends

// Half of llvmpipe's limit. Each frame counts as its position blocks plus two (the frame loop's own
// iteration and the position loop's exit test): measured, the limit cut a one-block recursion short
// after 21845 frames.
constexpr int64_t kCpuLoopIterations = 32768;

uint32_t workgroup_size_for(int64_t positions) {
  uint32_t size = 32;
  while (size < 256 && size < positions) size *= 2;
  return size;
}

}  // namespace

void launch_ctc_recursion(VulkanDevice& device, Stream& stream, const CtcRecursionArgs& args) {
  args.check();
  require_dtype(device, args.table.dtype, "ctc_recursion");
  if (args.batch == 0 || args.positions == 0 || args.first_frame == args.end_frame) return;
  const Context& context = device.context();
  VulkanStream& vs = vulkan_stream(stream);
  const bool backward = args.direction == CtcDirection::Backward;
  const uint32_t element = static_cast<uint32_t>(element_size(args.table.dtype));
  const uint32_t workgroup = workgroup_size_for(args.positions);

  // Frames per launch: the table's window holds one row more than the frames, the emissions' one row each.
  const int64_t row_elements = args.batch * (args.positions + 2);
  const int64_t frame_emissions = args.batch * args.positions;
  const int64_t window = static_cast<int64_t>(max_window_bytes(context));
  int64_t per_launch = std::min(window / (row_elements * element) - 1, window / (frame_emissions * element));
  if (per_launch < 1 || args.moves.numel() * element > window) {
    throw UnsupportedError("ctc_loss: one frame of " + std::to_string(args.batch) + " sequences of " +
                           std::to_string(args.positions) +
                           " extended positions is larger than a buffer binding of this device can reach");
  }
  if (context.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU) {
    const int64_t iterations_per_frame = ceil_div(args.positions, workgroup) + 2;
    if (iterations_per_frame > kCpuLoopIterations) {
      throw UnsupportedError("ctc_loss: " + std::to_string(args.positions) +
                             " extended positions are more than one launch of this device can walk");
    }
    per_launch = std::min(per_launch, kCpuLoopIterations / iterations_per_frame);
  }
  const int64_t max_groups = context.properties.limits.maxComputeWorkGroupCount[0];
  const Pipeline& pipeline = device.pipelines().get(
      args.table.dtype == DType::Float64 ? "ctc_recursion_f64" : "ctc_recursion_f32", {backward ? 1u : 0u, workgroup});

  const Window moves = element_window(context, args.moves.allocation, args.moves.byte_offset, element,
                                      args.moves.numel(), false);
  CtcParams params{};
  params.moves_offset = moves.first_element;
  params.batch = static_cast<uint32_t>(args.batch);
  params.positions = static_cast<uint32_t>(args.positions);
  const int64_t frames = args.end_frame - args.first_frame;
  const int64_t launches = ceil_div(frames, per_launch);
  for (int64_t i = 0; i < launches; ++i) {
    // Backward, the last frames go first.
    const int64_t run = backward ? launches - 1 - i : i;
    const int64_t first = args.first_frame + run * per_launch;
    const int64_t count = std::min(per_launch, args.end_frame - first);
    const int64_t first_row = backward ? first : first - 1;
    const Window table =
        element_window(context, args.table.allocation,
                       args.table.byte_offset + static_cast<uint64_t>(first_row * row_elements) * element, element,
                       (count + 1) * row_elements, true);
    const Window emissions =
        element_window(context, args.emissions.allocation,
                       args.emissions.byte_offset + static_cast<uint64_t>(first * frame_emissions) * element, element,
                       count * frame_emissions, false);
    const Binding bindings[3] = {table.binding, emissions.binding, moves.binding};
    params.table_offset = table.first_element;
    params.emissions_offset = emissions.first_element;
    params.frames = static_cast<uint32_t>(count);
    for (int64_t sequence = 0; sequence < args.batch; sequence += max_groups) {
      params.first_sequence = static_cast<uint32_t>(sequence);
      vs.dispatch(pipeline, bindings, &params, sizeof params,
                  static_cast<uint32_t>(std::min(max_groups, args.batch - sequence)));
    }
  }
}

void launch_ctc_gradient(VulkanDevice& device, Stream& stream, const CtcGradientArgs& args) {
  args.check();
  require_dtype(device, args.grad.dtype, "ctc_gradient");
  const int64_t frames = args.grad.sizes[0], batch = args.grad.sizes[1], classes = args.grad.sizes[2];
  const int64_t positions = args.labels.sizes[1];
  const int64_t rows = frames * batch;
  VulkanStream& vs = vulkan_stream(stream);
  const uint32_t element = static_cast<uint32_t>(element_size(args.grad.dtype));
  if (rows * classes == 0) return;
  const Context& context = device.context();
  const int64_t window = static_cast<int64_t>(max_window_bytes(context));
  const int64_t max_groups = context.properties.limits.maxComputeWorkGroupCount[0];
  // Rows per launch: what the row operands' windows hold, what the cells' workgroups cover, and what
  // divide_small divides exactly.
  int64_t per_launch = std::min({window / (std::max<int64_t>(classes, positions + 2) * element),
                                 max_groups * kGradientWorkgroup / classes, (kBelowFloatExact - 1) / classes});
  const bool fits = per_launch >= 1 && rows < kBelowFloatExact &&
                    static_cast<int64_t>(args.labels.numel()) * 4 <= window &&
                    (context.properties.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU ||
                     2 * positions + 4 <= kCpuLoopIterations);
  if (!fits) {
    throw UnsupportedError("ctc_loss: the gradient of " + std::to_string(frames) + " frames of " +
                           std::to_string(batch) + " sequences of " + std::to_string(positions) +
                           " extended positions over " + std::to_string(classes) +
                           " classes is more than this device's launches reach");
  }
  // The occupancy adds into the gradient, which starts at zero; a fill is no dispatch.
  vs.fill_words(*args.grad.allocation, args.grad.byte_offset, static_cast<uint64_t>(rows * classes) * element, 0u);
  const std::shared_ptr<Allocation> shift = device.allocator().allocate(static_cast<uint64_t>(rows) * element,
                                                                        stream.shared_from_this());
  const auto whole = [&](const TensorRef& ref) {
    return element_window(context, ref.allocation, ref.byte_offset, static_cast<uint32_t>(element_size(ref.dtype)),
                          ref.numel(), false);
  };
  const auto rows_of = [&](Allocation* allocation, uint64_t byte_offset, int64_t first, int64_t count, int64_t width,
                           bool write) {
    return element_window(context, allocation, byte_offset + static_cast<uint64_t>(first * width) * element, element,
                          count * width, write);
  };
  const Window labels = whole(args.labels), nll = whole(args.nll), lengths = whole(args.input_lengths);
  CtcGradientParams params{};
  params.labels_offset = labels.first_element;
  params.nll_offset = nll.first_element;
  params.lengths_offset = lengths.first_element;
  params.batch = static_cast<uint32_t>(batch);
  params.positions = static_cast<uint32_t>(positions);
  params.classes = static_cast<uint32_t>(classes);
  params.zero_infinity = args.zero_infinity ? 1u : 0u;
  const std::string shader = args.grad.dtype == DType::Float64 ? "ctc_gradient_f64" : "ctc_gradient_f32";
  for (int64_t first = 0; first < rows; first += per_launch) {
    const int64_t count = std::min(per_launch, rows - first);
    const Window grad = rows_of(args.grad.allocation, args.grad.byte_offset, first, count, classes, true);
    const Window log_probs =
        rows_of(args.log_probs.allocation, args.log_probs.byte_offset, first, count, classes, false);
    const Window alpha = rows_of(args.alpha.allocation, args.alpha.byte_offset, first, count, positions + 2, false);
    const Window beta = rows_of(args.beta.allocation, args.beta.byte_offset, first, count, positions + 2, false);
    const Window shifts = rows_of(shift.get(), 0, first, count, 1, true);
    const Binding bindings[8] = {grad.binding,   log_probs.binding, alpha.binding,   beta.binding,
                                 labels.binding, nll.binding,       lengths.binding, shifts.binding};
    params.grad_offset = grad.first_element;
    params.log_probs_offset = log_probs.first_element;
    params.alpha_offset = alpha.first_element;
    params.beta_offset = beta.first_element;
    params.shift_offset = shifts.first_element;
    params.first_row = static_cast<uint32_t>(first);
    params.rows = static_cast<uint32_t>(count);
    vs.dispatch(device.pipelines().get(shader, {0u}), bindings, &params, sizeof params,
                static_cast<uint32_t>(ceil_div(count, kGradientWorkgroup)));
    vs.dispatch(device.pipelines().get(shader, {1u}), bindings, &params, sizeof params,
                static_cast<uint32_t>(ceil_div(count * classes, kGradientWorkgroup)));
  }
}

}  // namespace ember::vulkan
