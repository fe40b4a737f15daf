// Launcher of the cross-entropy kernel (cross_entropy.comp): one dispatch per piece of whole samples
// that fits a buffer binding, forward and backward; a Mean or Sum over more than one workgroup adds one
// dispatch that merges the workgroups' partial sums. A CPU driver gets few workgroups (each extra
// dispatch costs more there than the parallelism gains), so batch 64 × 10 classes is one dispatch.
// The CTC kernels have a launcher of their own (ctc_launcher.cpp).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/allocator.h"
#include "runtime/error.h"
#include "runtime/kernels/loss.h"
#include "shaders/common/launch.h"
#include "shaders/common/vulkan_family.h"
#include "shaders/loss/ctc_launcher.h"
#include "shaders/norm/row_lanes.h"
#include "shaders/reduce/reduce_plan.h"

namespace ember::vulkan {

namespace {

constexpr uint32_t kModeForward = 0, kModeFinal = 1, kModeBackward = 2;
constexpr uint32_t kFlagWeight = 1, kFlagLogSoftmax = 2, kFlagWriteLse = 4, kFlagDirect = 8;
constexpr int64_t kRowsPerLaneGroup = 256;
constexpr int64_t kMaxWorkgroupsCpu = 16;
constexpr int64_t kMaxWorkgroupsGpu = 1024;

struct LossParams {
  uint32_t out_offset, in_offset, target_offset, weight_offset, lse_offset, gout_offset;
  uint32_t rows, classes, inner, lanes_log2, flags, reduction, partial_base, padding;
  uint32_t ignore_index[2];
  uint32_t smoothing[2];
};
static_assert(sizeof(LossParams) == 72);

const KernelAbiRegistration kAbis{
    {"cross_entropy_f32", 8, sizeof(LossParams)},
    {"cross_entropy_f64", 8, sizeof(LossParams)},
    {"cross_entropy_f32_quads", 8, sizeof(LossParams)},
};

uint32_t u32(int64_t v) { return static_cast<uint32_t>(v); }

void compute_bits(double value, bool f64, uint32_t (&out)[2]) {
  if (f64) {
    std::memcpy(out, &value, sizeof value);
  } else {
    const float f = static_cast<float>(value);
    std::memcpy(&out[0], &f, sizeof f);
    out[1] = 0;
  }
}

struct Piece {
  int64_t first = 0;  // sample
  int64_t count = 0;
};

// What the forward and the backward launch alike.
struct Launch {
  const TensorRef* dst;  // out or grad_in
  const TensorRef* in;
  const TensorRef* target;
  const std::optional<TensorRef>* weight;
  const std::optional<TensorRef>* lse;
  const TensorRef* total_weight;
  const TensorRef* gout;    // backward
  const TensorRef* status;  // forward
  ClassShape shape;
  int64_t ignore_index;
  double smoothing;
  bool log_softmax;
  ReductionKind reduction;
};

class VulkanLoss final : public LossKernels {
 public:
  explicit VulkanLoss(VulkanDevice& device) : device_(device) {}
  void cross_entropy(Stream& stream, const CrossEntropyArgs& args) override;
  void cross_entropy_backward(Stream& stream, const CrossEntropyBackwardArgs& args) override;
  void ctc_recursion(Stream& stream, const CtcRecursionArgs& args) override {
    launch_ctc_recursion(device_, stream, args);
  }
  void ctc_gradient(Stream& stream, const CtcGradientArgs& args) override {
    launch_ctc_gradient(device_, stream, args);
  }

 private:
  void run(Stream& stream, uint32_t mode, const Launch& launch);
  Window window_of(const TensorRef& ref, int64_t first, int64_t count, bool write) const {
    const uint32_t size = static_cast<uint32_t>(element_size(ref.dtype));
    return element_window(device_.context(), ref.allocation, ref.byte_offset + first * size, size,
                          std::max<int64_t>(count, 1), write);
  }

  VulkanDevice& device_;
};

void VulkanLoss::run(Stream& stream, uint32_t mode, const Launch& l) {
  const Context& context = device_.context();
  VulkanStream& vs = vulkan_stream(stream);
  const ClassShape& shape = l.shape;
  const DType dtype = l.in->dtype;
  const bool f64 = dtype == DType::Float64;
  const uint32_t value_bytes = f64 ? 8 : 4;
  const bool has_weight = l.weight->has_value();
  const std::string shader = f64 ? "cross_entropy_f64" : "cross_entropy_f32";
  const uint32_t weight_dtype = has_weight ? static_cast<uint32_t>((*l.weight)->dtype) : 0;
  auto pipeline = [&](uint32_t m) -> const Pipeline& {
    return device_.pipelines().get(shader, {static_cast<uint32_t>(dtype), weight_dtype, m});
  };
  // cross_entropy.comp's QUADS where the rows allow; each piece also needs its scores (and gradients) on
  // 16-byte words and a texel view of the scores.
  const bool quad_rows = dtype == DType::Float32 && shape.inner == 1 && shape.classes % 4 == 0;
  const Pipeline* quads =
      quad_rows ? &device_.pipelines().get("cross_entropy_f32_quads", {static_cast<uint32_t>(dtype), weight_dtype, mode})
                : nullptr;

  // Pieces of whole samples, their rows' operands within a binding.
  const uint64_t sample_bytes = static_cast<uint64_t>(shape.classes * shape.inner) * element_size(dtype);
  const uint64_t window = max_window_bytes(context);
  if (sample_bytes > window) {
    throw UnsupportedError("cross_entropy: one sample of " + std::to_string(sample_bytes) +
                           " bytes is larger than a buffer binding of this device can reach");
  }
  const int64_t per_piece = sample_bytes == 0 ? std::max<int64_t>(shape.outer, 1)
                                              : std::min<int64_t>(static_cast<int64_t>(window / sample_bytes),
                                                                  std::max<int64_t>(1, (int64_t{1} << 31) / std::max<int64_t>(shape.inner, 1)));
  std::vector<Piece> pieces;
  for (int64_t first = 0; first < shape.outer; first += per_piece) {
    pieces.push_back({first, std::min(per_piece, shape.outer - first)});
  }

  LossParams params{};
  params.classes = u32(shape.classes);
  params.inner = u32(shape.inner);
  params.lanes_log2 = row_lanes_log2(context, shape.rows(), shape.classes);
  params.flags = (has_weight ? kFlagWeight : 0) | (l.log_softmax ? kFlagLogSoftmax : 0) |
                 (mode == kModeForward && l.lse->has_value() ? kFlagWriteLse : 0);
  params.reduction = static_cast<uint32_t>(l.reduction);
  std::memcpy(params.ignore_index, &l.ignore_index, sizeof l.ignore_index);
  compute_bits(l.smoothing, f64, params.smoothing);
  const int64_t rows_per_workgroup = kRowsPerLaneGroup >> params.lanes_log2;
  const int64_t max_workgroups = std::min<int64_t>(
      context.properties.limits.maxComputeWorkGroupCount[0],
      context.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? kMaxWorkgroupsCpu : kMaxWorkgroupsGpu);
  std::vector<int64_t> workgroups;
  int64_t partial_count = 0;
  for (const Piece& piece : pieces) {
    workgroups.push_back(std::clamp<int64_t>(ceil_div(piece.count * shape.inner, rows_per_workgroup), 1, max_workgroups));
    partial_count += workgroups.back();
  }
  const bool reduces = mode == kModeForward && l.reduction != ReductionKind::None;
  const bool direct = partial_count == 1;
  if (reduces && direct) params.flags |= kFlagDirect;
  std::shared_ptr<Allocation> partials;
  if (reduces && !direct) {
    partials = device_.allocator().allocate(static_cast<uint64_t>(2 * partial_count) * value_bytes,
                                            stream.shared_from_this());
  }

  // Bindings: 0 dst, 1 in, 2 target, 3 weight, 4 logsumexp, 5 total weight, 6 partials or grad_out,
  // 7 status. Absent ones see the total weight's window, read-only.
  Binding bindings[8];
  const Window total = window_of(*l.total_weight, 0, 1, mode == kModeForward);
  Binding stand_in = total.binding;
  stand_in.write = false;
  bindings[5] = total.binding;
  if (has_weight) {
    const Window w = window_of(**l.weight, 0, shape.classes, false);
    bindings[3] = w.binding;
    params.weight_offset = w.first_element;
  } else {
    bindings[3] = stand_in;
  }
  bindings[7] = l.status ? window_of(*l.status, 0, 3, true).binding : stand_in;
  if (l.status && window_of(*l.status, 0, 3, true).first_element != 0) throw Error("cross_entropy: status misaligned");
  Window partials_window{};
  if (partials) {
    partials_window = element_window(context, partials.get(), 0, value_bytes, 2 * partial_count, true);
    if (partials_window.first_element != 0) throw Error("cross_entropy: the partials are not aligned");
  }
  const Window gout_whole = l.gout ? window_of(*l.gout, 0, 1, false) : Window{};

  const Pipeline& pipe = pipeline(mode);
  int64_t partial_base = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Piece& piece = pieces[i];
    const int64_t rows = piece.count * shape.inner;
    const int64_t first_row = piece.first * shape.inner;
    const int64_t first = piece.first * shape.classes * shape.inner;
    const int64_t count = rows * shape.classes;
    const bool per_row_dst = mode == kModeBackward || l.reduction == ReductionKind::None;
    const Window dst = per_row_dst ? window_of(*l.dst, mode == kModeBackward ? first : first_row,
                                               mode == kModeBackward ? count : rows, true)
                                   : window_of(*l.dst, 0, 1, true);
    const Window in = window_of(*l.in, first, count, false);
    const Window target = window_of(*l.target, first_row, rows, false);
    bindings[0] = dst.binding;
    bindings[1] = in.binding;
    bindings[2] = target.binding;
    params.out_offset = dst.first_element;
    params.in_offset = in.first_element;
    params.target_offset = target.first_element;
    if (l.lse->has_value()) {
      const Window lse = window_of(**l.lse, first_row, rows, mode == kModeForward);
      bindings[4] = lse.binding;
      params.lse_offset = lse.first_element;
    } else {
      bindings[4] = stand_in;
    }
    if (mode == kModeBackward) {
      const Window gout = l.reduction == ReductionKind::None ? window_of(*l.gout, first_row, rows, false) : gout_whole;
      bindings[6] = gout.binding;
      params.gout_offset = gout.first_element;
    } else {
      bindings[6] = partials ? partials_window.binding : stand_in;
    }
    params.rows = u32(rows);
    params.partial_base = u32(partial_base);
    const bool quad_piece = quads != nullptr && params.in_offset % 4 == 0 &&
                            (mode != kModeBackward || params.out_offset % 4 == 0) &&
                            can_read_as_texels(context, bindings[1]);
    vs.dispatch(quad_piece ? *quads : pipe, bindings, &params, sizeof params, u32(workgroups[i]));
    partial_base += workgroups[i];
  }
  if (!reduces || direct) return;
  params.rows = u32(partial_count);
  bindings[0] = window_of(*l.dst, 0, 1, true).binding;
  params.out_offset = window_of(*l.dst, 0, 1, true).first_element;
  bindings[6] = partials_window.binding;
  vs.dispatch(pipeline(kModeFinal), bindings, &params, sizeof params, 1);
}

void VulkanLoss::cross_entropy(Stream& stream, const CrossEntropyArgs& args) {
  args.check();
  require_dtype(device_, args.in.dtype, "cross_entropy");
  if (args.shape.rows() == 0) throw Error("cross_entropy: no rows (the caller gives an empty batch its result)");
  run(stream, kModeForward,
      {&args.out, &args.in, &args.target, &args.weight, &args.logsumexp, &args.total_weight, nullptr, &args.status,
       args.shape, args.ignore_index, args.label_smoothing, args.log_softmax, args.reduction});
}

void VulkanLoss::cross_entropy_backward(Stream& stream, const CrossEntropyBackwardArgs& args) {
  args.check();
  require_dtype(device_, args.in.dtype, "cross_entropy_backward");
  if (args.shape.rows() == 0) return;
  run(stream, kModeBackward,
      {&args.grad_in, &args.in, &args.target, &args.weight, &args.logsumexp, &args.total_weight, &args.grad_out,
       nullptr, args.shape, args.ignore_index, args.label_smoothing, args.log_softmax, args.reduction});
}

}  // namespace

EMBER_VULKAN_KERNELS(LossKernels, VulkanLoss);

}  // namespace ember::vulkan
