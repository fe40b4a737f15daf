// Launcher of the attention kernels (attention.comp): the forward is one dispatch per piece of whole
// batches whose operands fit a buffer binding; the backward two, grad_q (which also stores D) before
// grad_k and grad_v. A CPU driver gets four rows per invocation, so that every key loaded serves four
// queries; a GPU one, to keep the registers for occupancy.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "runtime/kernels/attention.h"
#include "shaders/common/launch.h"
#include "shaders/common/vulkan_family.h"
#include "shaders/reduce/reduce_plan.h"

namespace ember::vulkan {

namespace {

constexpr uint32_t kModeForward = 0, kModeGradQ = 1, kModeGradKV = 2;
constexpr uint32_t kFlagCausal = 1, kFlagMask = 2;
constexpr int64_t kWorkgroupSize = 256;  // WORKGROUP_SIZE in attention.comp
constexpr int64_t kCpuMaxFeatures = 128;  // 32 blocks of four
constexpr int64_t kCpuMaxLoop = 65535;

// Binding slots, in the order of attention.comp's OP_* and of AttentionParams::offsets.
enum Slot { kDst0, kDst1, kQ, kK, kV, kMask, kLse, kGradOut, kOut, kDelta, kSlots };

struct AttentionParams {
  uint32_t scale[2];
  uint32_t offsets[kSlots];
  uint32_t L, S;
  uint32_t mask_strides[3];
  uint32_t flags;
};
static_assert(sizeof(AttentionParams) == 72);

const KernelAbiRegistration kAbis{
    {"attention_f32", kSlots, sizeof(AttentionParams)},
    {"attention_f64", kSlots, sizeof(AttentionParams)},
};

uint32_t u32(int64_t v) { return static_cast<uint32_t>(v); }

// One launch's operands; absent ones are null.
struct Operands {
  const TensorRef* dst0 = nullptr;
  const TensorRef* dst1 = nullptr;
  const TensorRef* q = nullptr;
  const TensorRef* k = nullptr;
  const TensorRef* v = nullptr;
  const std::optional<TensorRef>* mask = nullptr;
  const TensorRef* lse = nullptr;
  const TensorRef* grad_out = nullptr;
  const TensorRef* out = nullptr;
  const TensorRef* delta = nullptr;
  const TensorRef* operator[](int slot) const {
    const TensorRef* all[kSlots] = {dst0, dst1, q, k, v, nullptr, lse, grad_out, out, delta};
    return all[slot];
  }
};

bool writes(uint32_t mode, int slot) {
  if (slot == kDst0) return true;
  if (slot == kDst1) return mode == kModeGradKV;
  if (slot == kLse) return mode == kModeForward;
  if (slot == kDelta) return mode == kModeGradQ;
  return false;
}

class VulkanAttention final : public AttentionKernels {
 public:
  explicit VulkanAttention(VulkanDevice& device) : device_(device) {}
  void attention(Stream& stream, const AttentionArgs& args) override;
  void attention_backward(Stream& stream, const AttentionBackwardArgs& args) override;

 private:
  void run(Stream& stream, uint32_t mode, const Operands& operands, const AttentionShape& shape, double scale,
           bool causal);

  VulkanDevice& device_;
};

void VulkanAttention::run(Stream& stream, uint32_t mode, const Operands& ops, const AttentionShape& shape,
                          double scale, bool causal) {
  const int64_t rows = mode == kModeGradKV ? shape.keys : shape.queries;
  if (shape.batch == 0 || rows == 0) return;
  const Context& context = device_.context();
  const DType dtype = ops.q->dtype;
  const bool f64 = dtype == DType::Float64;
  const bool cpu = context.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  if (cpu) {
    // llvmpipe's loop guard (attention.comp): feature loops of up to 32 blocks unroll, and the loop over
    // the other side's rows may run 65535 times.
    if (shape.head_dim > kCpuMaxFeatures || shape.value_dim > kCpuMaxFeatures) {
      throw UnsupportedError("attention on " + device_.info().name + " takes at most " +
                             std::to_string(kCpuMaxFeatures) + " features per head");
    }
    const int64_t streamed = mode == kModeGradKV ? shape.queries : shape.keys;
    if (streamed > kCpuMaxLoop) {
      throw UnsupportedError("attention on " + device_.info().name + " takes at most " +
                             std::to_string(kCpuMaxLoop) + " keys and queries");
    }
  }
  const int64_t rows_per_invocation = !cpu ? 1 : (shape.head_dim + shape.value_dim <= 256 ? 4 : 1);
  const Pipeline& pipeline = device_.pipelines().get(
      f64 ? "attention_f64" : "attention_f32",
      {static_cast<uint32_t>(dtype), u32(shape.head_dim), u32(shape.value_dim), mode, u32(rows_per_invocation),
       u32(ceil_div(shape.head_dim, 4)), u32(ceil_div(shape.value_dim, 4))});

  // An empty operand (no keys) is never read: it binds nothing.
  const std::optional<TensorRef>* mask = ops.mask && ops.mask->has_value() && shape.keys > 0 ? ops.mask : nullptr;
  auto present = [&](int slot) { return ops[slot] != nullptr && ops[slot]->numel() > 0; };
  // Bytes of one batch of each operand; a piece takes as many whole batches as every binding can reach.
  auto batch_bytes = [&](int slot) -> uint64_t {
    if (!present(slot)) return 0;
    return static_cast<uint64_t>(ops[slot]->numel() / shape.batch) * element_size(ops[slot]->dtype);
  };
  uint64_t widest = 0;
  for (int slot = 0; slot < kSlots; ++slot) widest = std::max(widest, batch_bytes(slot));
  const TensorRef* mask_ref = mask ? &**mask : nullptr;
  const uint64_t mask_row_bytes =
      mask_ref ? static_cast<uint64_t>((shape.queries - 1) * mask_ref->strides[1] + (shape.keys - 1) * mask_ref->strides[2] + 1) *
                     element_size(dtype)
               : 0;
  widest = std::max(widest, mask_ref ? mask_row_bytes + static_cast<uint64_t>(mask_ref->strides[0]) * element_size(dtype) : 0);
  const uint64_t window = max_window_bytes(context);
  if (widest > window) {
    throw UnsupportedError("attention: one batch of an operand spans " + std::to_string(widest) +
                           " bytes, more than a buffer binding of " + device_.info().name + " reaches");
  }
  const auto& limits = context.properties.limits;
  const int64_t groups_x = ceil_div(rows, kWorkgroupSize * rows_per_invocation);
  if (groups_x > limits.maxComputeWorkGroupCount[0]) {
    throw UnsupportedError("attention: " + std::to_string(rows) + " rows need more workgroups than " +
                           device_.info().name + " launches");
  }
  const int64_t per_piece = std::clamp<int64_t>(static_cast<int64_t>(window / std::max<uint64_t>(widest, 1)), 1,
                                                limits.maxComputeWorkGroupCount[1]);

  AttentionParams params{};
  if (f64) {
    std::memcpy(params.scale, &scale, sizeof scale);
  } else {
    const float f = static_cast<float>(scale);
    std::memcpy(&params.scale[0], &f, sizeof f);
  }
  params.L = u32(shape.queries);
  params.S = u32(shape.keys);
  params.flags = (causal ? kFlagCausal : 0) | (mask_ref ? kFlagMask : 0);
  if (mask_ref) {
    for (int d = 0; d < 3; ++d) params.mask_strides[d] = u32(mask_ref->strides[d]);
  }
  VulkanStream& vs = vulkan_stream(stream);
  Binding bindings[kSlots];
  for (int64_t first = 0; first < shape.batch; first += per_piece) {
    const int64_t count = std::min(per_piece, shape.batch - first);
    Binding stand_in{};
    for (int slot = 0; slot < kSlots; ++slot) {
      if (!present(slot)) continue;
      const TensorRef* ref = ops[slot];
      const int64_t per_batch = ref->numel() / shape.batch;
      const uint32_t size = static_cast<uint32_t>(element_size(ref->dtype));
      const Window w = element_window(context, ref->allocation, ref->byte_offset + first * per_batch * size, size,
                                      std::max<int64_t>(count * per_batch, 1), writes(mode, slot));
      bindings[slot] = w.binding;
      params.offsets[slot] = w.first_element;
      if (!writes(mode, slot)) stand_in = w.binding;
    }
    if (mask_ref) {
      const uint32_t size = static_cast<uint32_t>(element_size(dtype));
      const uint64_t elements = (count - 1) * mask_ref->strides[0] + mask_row_bytes / size;
      const Window w = element_window(context, mask_ref->allocation,
                                      mask_ref->byte_offset + first * mask_ref->strides[0] * size, size,
                                      static_cast<int64_t>(elements), false);
      bindings[kMask] = w.binding;
      params.offsets[kMask] = w.first_element;
    }
    // Slots the mode does not use see a read-only operand of the launch.
    for (int slot = 0; slot < kSlots; ++slot) {
      if (present(slot) || (slot == kMask && mask_ref)) continue;
      bindings[slot] = stand_in;
    }
    vs.dispatch(pipeline, bindings, &params, sizeof params, u32(groups_x), u32(count));
  }
}

void VulkanAttention::attention(Stream& stream, const AttentionArgs& args) {
  args.check();
  require_dtype(device_, args.q.dtype, "attention");
  Operands ops;
  ops.dst0 = &args.out;
  ops.q = &args.q;
  ops.k = &args.k;
  ops.v = &args.v;
  ops.mask = &args.mask;
  ops.lse = &args.lse;
  run(stream, kModeForward, ops, args.shape, args.scale, args.causal);
}

void VulkanAttention::attention_backward(Stream& stream, const AttentionBackwardArgs& args) {
  args.check();
  require_dtype(device_, args.q.dtype, "attention_backward");
  Operands ops;
  ops.q = &args.q;
  ops.k = &args.k;
  ops.v = &args.v;
  ops.mask = &args.mask;
  ops.lse = &args.lse;
  ops.grad_out = &args.grad_out;
  ops.delta = &args.delta;
  ops.dst0 = &args.grad_q;
  ops.out = &args.out;
  run(stream, kModeGradQ, ops, args.shape, args.scale, args.causal);
  // grad_k and grad_v read D, not out.
  ops.out = nullptr;
  ops.dst0 = &args.grad_k;
  ops.dst1 = &args.grad_v;
  run(stream, kModeGradKV, ops, args.shape, args.scale, args.causal);
}

}  // namespace

EMBER_VULKAN_KERNELS(AttentionKernels, VulkanAttention);

}  // namespace ember::vulkan
