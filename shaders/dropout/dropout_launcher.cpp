// Launcher of the dropout kernel (dropout.comp): one dispatch per piece of whole 8192-element blocks
// that fits a buffer binding, one workgroup per block.
#include <algorithm>
#include <cstring>
#include <string>

#include "runtime/error.h"
#include "runtime/kernels/dropout.h"
#include "shaders/common/launch.h"
#include "shaders/common/vulkan_family.h"
#include "shaders/reduce/reduce_plan.h"

namespace ember::vulkan {

namespace {

constexpr uint32_t kModeDraw = 0, kModeApply = 1;
constexpr int64_t kBlockElements = 8192;
constexpr int64_t kBlockWords = 256;

struct DropoutParams {
  uint32_t out_offset, in_offset, mask_offset, numel, blocks;
  uint32_t seed_lo, seed_hi, start_lo, start_hi;
  float keep;
  uint32_t scale[2];
};
static_assert(sizeof(DropoutParams) == 48);

const KernelAbiRegistration kAbis{
    {"dropout_f32", 3, sizeof(DropoutParams)},
    {"dropout_f64", 3, sizeof(DropoutParams)},
};

uint32_t lo(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t hi(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

class VulkanDropout final : public DropoutKernels {
 public:
  explicit VulkanDropout(VulkanDevice& device) : device_(device) {}
  void dropout(Stream& stream, const DropoutArgs& args) override {
    args.check();
    launch(stream, kModeDraw, args.out, args.in, args.mask, 1.0 / (1.0 - args.p), 1.0 - args.p, args.state);
  }
  void apply_mask(Stream& stream, const DropoutMaskArgs& args) override {
    args.check();
    launch(stream, kModeApply, args.out, args.in, args.mask, args.scale, 0, {});
  }

 private:
  void launch(Stream& stream, uint32_t mode, const TensorRef& out, const TensorRef& in, const TensorRef& mask,
              double scale, double keep, PhiloxState state);

  VulkanDevice& device_;
};

void VulkanDropout::launch(Stream& stream, uint32_t mode, const TensorRef& out, const TensorRef& in,
                           const TensorRef& mask, double scale, double keep, PhiloxState state) {
  require_dtype(device_, in.dtype, "dropout");
  const int64_t numel = in.numel();
  if (numel == 0) return;
  const Context& context = device_.context();
  VulkanStream& vs = vulkan_stream(stream);
  const bool f64 = in.dtype == DType::Float64;
  const Pipeline& pipeline =
      device_.pipelines().get(f64 ? "dropout_f64" : "dropout_f32", {static_cast<uint32_t>(in.dtype), mode});
  const uint32_t size = static_cast<uint32_t>(element_size(in.dtype));
  // Whole blocks per piece: the elements' window, and 32-bit counts of elements and Philox blocks.
  const int64_t per_piece = std::max<int64_t>(
      1, std::min<int64_t>(static_cast<int64_t>(max_window_bytes(context) / (kBlockElements * size)),
                           (int64_t{1} << 31) / kBlockElements));
  const int64_t blocks = ceil_div(numel, kBlockElements);
  const uint32_t max_groups = context.properties.limits.maxComputeWorkGroupCount[0];
  DropoutParams params{};
  params.seed_lo = lo(state.seed);
  params.seed_hi = hi(state.seed);
  params.keep = static_cast<float>(keep);
  if (f64) {
    std::memcpy(params.scale, &scale, sizeof scale);
  } else {
    const float s = static_cast<float>(scale);
    std::memcpy(&params.scale[0], &s, sizeof s);
  }
  for (int64_t first_block = 0; first_block < blocks; first_block += per_piece) {
    const int64_t piece_blocks = std::min(per_piece, blocks - first_block);
    const int64_t first = first_block * kBlockElements;
    const int64_t count = std::min(numel - first, piece_blocks * kBlockElements);
    const Window out_window = element_window(context, out.allocation, out.byte_offset + first * size, size, count, true);
    const Window in_window = element_window(context, in.allocation, in.byte_offset + first * size, size, count, false);
    const Window mask_window = element_window(context, mask.allocation, mask.byte_offset + first_block * kBlockWords * 4, 4,
                                              piece_blocks * kBlockWords, mode == kModeDraw);
    const Binding bindings[3] = {out_window.binding, in_window.binding, mask_window.binding};
    params.out_offset = out_window.first_element;
    params.in_offset = in_window.first_element;
    params.mask_offset = mask_window.first_element;
    params.numel = static_cast<uint32_t>(count);
    params.blocks = static_cast<uint32_t>(piece_blocks);
    const uint64_t start = state.offset + static_cast<uint64_t>(first / 4);
    params.start_lo = lo(start);
    params.start_hi = hi(start);
    vs.dispatch(pipeline, bindings, &params, sizeof params,
                static_cast<uint32_t>(std::min<int64_t>(piece_blocks, max_groups)));
  }
}

}  // namespace

EMBER_VULKAN_KERNELS(DropoutKernels, VulkanDropout);

}  // namespace ember::vulkan
