// Launcher of the CTC recursion kernel (ctc_recursion.comp): one dispatch for the whole recursion where
// it fits, split into runs of frames only where a binding cannot reach the table's rows or, on a CPU
// driver, where frames × position blocks would pass llvmpipe's loop limit (65535 iterations).
#include "shaders/loss/ctc_launcher.h"

#include <algorithm>
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

const KernelAbiRegistration kAbis{
    {"ctc_recursion_f32", 3, sizeof(CtcParams)},
    {"ctc_recursion_f64", 3, sizeof(CtcParams)},
};

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

}  // namespace ember::vulkan
