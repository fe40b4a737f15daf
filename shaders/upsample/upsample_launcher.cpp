// Launcher of the upsample kernels (upsample.comp forward, upsample_backward.comp backward): one dispatch
// over every element of the output (forward) or of grad_in (backward).
//
// The planes (every dim but the last two) are merged where both operands allow and passed as at most
// two dims; a launch whose operands reach past a buffer binding is split along the planes, and a single
// plane larger than a binding is an UnsupportedError.
#include <cstring>
#include <limits>
#include <string>

#include "runtime/error.h"
#include "runtime/kernels/memory.h"
#include "runtime/kernels/upsample.h"
#include "shaders/common/vulkan_family.h"
#include "shaders/reduce/reduce_plan.h"

namespace ember::vulkan {

namespace {

constexpr int kPlaneDims = 2;  // plane_sizes in upsample_common.glsl

struct UpsampleParams {
  uint32_t in_offset;
  uint32_t out_offset;
  uint32_t plane_sizes[kPlaneDims];
  uint32_t in_plane_strides[kPlaneDims];
  uint32_t out_plane_strides[kPlaneDims];
  uint32_t in_size[2];
  uint32_t out_size[2];
  uint32_t in_strides[2];
  uint32_t out_strides[2];
  uint32_t scale[2][2];
  uint32_t flags;  // FLAG_* in upsample_common.glsl
};
static_assert(sizeof(UpsampleParams) <= 128);

const KernelAbiRegistration kAbis{
    {"upsample_f32", 2, sizeof(UpsampleParams)},
    {"upsample_f64", 2, sizeof(UpsampleParams)},
    {"upsample_backward_f32", 2, sizeof(UpsampleParams)},
    {"upsample_backward_f64", 2, sizeof(UpsampleParams)},
};

uint32_t to_u32(int64_t value, const char* what) {
  if (value < 0 || value > std::numeric_limits<uint32_t>::max()) {
    throw UnsupportedError(std::string("upsample: ") + what + " does not fit the kernel's 32-bit arguments");
  }
  return static_cast<uint32_t>(value);
}

int64_t plane_reach(const TensorRef& ref) {
  const int h = ref.ndim - 2, w = ref.ndim - 1;
  return (ref.sizes[h] - 1) * ref.strides[h] + (ref.sizes[w] - 1) * ref.strides[w] + 1;
}

// The bits of a scale as the shader reads it: a float32 in the first word, or a float64.
void put_scale(uint32_t (&slot)[2], double scale, bool as_double) {
  if (as_double) {
    std::memcpy(slot, &scale, sizeof scale);
  } else {
    const float narrow = static_cast<float>(scale);
    std::memcpy(&slot[0], &narrow, sizeof narrow);
    slot[1] = 0;
  }
}

class VulkanUpsample final : public UpsampleKernels {
 public:
  explicit VulkanUpsample(VulkanDevice& device) : device_(device) {}
  void upsample(Stream& stream, const UpsampleArgs& args) override;
  void upsample_backward(Stream& stream, const UpsampleBackwardArgs& args) override;

 private:
  void launch(Stream& stream, const UpsampleGeometry& geometry, const TensorRef& in, const TensorRef& out,
              bool backward);
  VulkanDevice& device_;
};

void VulkanUpsample::upsample(Stream& stream, const UpsampleArgs& args) {
  args.check();
  require_dtype(device_, args.in.dtype, "upsample");
  if (args.out.numel() == 0) return;
  launch(stream, args.geometry, args.in, args.out, false);
}

void VulkanUpsample::upsample_backward(Stream& stream, const UpsampleBackwardArgs& args) {
  args.check();
  require_dtype(device_, args.grad_in.dtype, "upsample backward");
  if (args.grad_in.numel() == 0) return;
  if (args.grad_out.numel() == 0) {
    device_.kernels().get<MemoryKernels>().fill(stream, {args.grad_in, 0});
    return;
  }
  launch(stream, args.geometry, args.grad_in, args.grad_out, true);
}

void VulkanUpsample::launch(Stream& stream, const UpsampleGeometry& g, const TensorRef& in, const TensorRef& out,
                            bool backward) {
  for (const TensorRef* ref : {&in, &out}) {
    for (int d = 0; d < ref->ndim; ++d) {
      if (ref->strides[d] < 0) throw UnsupportedError("upsample: negative strides");
    }
  }
  const int h = in.ndim - 2;
  const bool float64 = in.dtype == DType::Float64;
  UpsampleParams base{};
  for (int d = 0; d < 2; ++d) {
    base.in_size[d] = to_u32(in.sizes[h + d], "a size");
    base.out_size[d] = to_u32(out.sizes[h + d], "a size");
    base.in_strides[d] = to_u32(in.strides[h + d], "a stride");
    base.out_strides[d] = to_u32(out.strides[h + d], "a stride");
    put_scale(base.scale[d], upsample_scale(g, d, in.sizes[h + d], out.sizes[h + d], float64),
              float64 && g.op == UpsampleOp::Linear);
  }
  base.flags = (g.align_corners ? 1u : 0u) | (g.nearest_shortcuts ? 2u : 0u);
  to_u32(in.sizes[h] * in.sizes[h + 1], "a plane");
  to_u32(out.sizes[h] * out.sizes[h + 1], "a plane");

  // Operands 0 in, 1 out over the planes (the third slot unused).
  Box planes;
  for (int d = 0; d < h; ++d) planes.push_dim(in.sizes[d], {in.strides[d], out.strides[d], 0});
  const TensorRef* operands[2] = {&in, &out};
  const int64_t extents[2] = {plane_reach(in), plane_reach(out)};
  const int64_t per_plane = backward ? in.sizes[h] * in.sizes[h + 1] : out.sizes[h] * out.sizes[h + 1];
  const Context& context = device_.context();
  const uint64_t window = max_window_bytes(context);
  auto reach = [&](const Box& piece, int i) { return piece.reach(i) - piece.base[i] - 1 + extents[i]; };
  auto fits = [&](const Box& piece) {
    if (piece.count() * per_plane > std::numeric_limits<uint32_t>::max()) return false;
    for (int i = 0; i < 2; ++i) {
      if (static_cast<uint64_t>(reach(piece, i)) * element_size(operands[i]->dtype) > window) return false;
    }
    return true;
  };
  VulkanStream& vs = vulkan_stream(stream);
  const std::string shader =
      std::string(backward ? "upsample_backward_" : "upsample_") + (float64 ? "f64" : "f32");
  const Pipeline& pipeline =
      device_.pipelines().get(shader, {static_cast<uint32_t>(in.dtype), static_cast<uint32_t>(g.op)});
  split_box(planes, kPlaneDims, fits, [&](const Box& piece) {
    UpsampleParams params = base;
    // Bindings: 0 the written operand, 1 the read one.
    Binding bindings[2];
    uint32_t* offsets[2] = {&params.in_offset, &params.out_offset};
    for (int i = 0; i < 2; ++i) {
      const TensorRef& ref = *operands[i];
      const uint32_t size = static_cast<uint32_t>(element_size(ref.dtype));
      const bool written = (i == 0) == backward;
      const Window win = element_window(context, ref.allocation, ref.byte_offset + piece.base[i] * size, size,
                                        reach(piece, i), written);
      bindings[written ? 0 : 1] = win.binding;
      *offsets[i] = win.first_element;
    }
    uint32_t* plane_strides[2] = {params.in_plane_strides, params.out_plane_strides};
    params.plane_sizes[0] = params.plane_sizes[1] = 1;
    for (int d = 0; d < piece.ndim; ++d) {
      const int slot = kPlaneDims - piece.ndim + d;
      params.plane_sizes[slot] = to_u32(piece.sizes[d], "a plane count");
      for (int i = 0; i < 2; ++i) plane_strides[i][slot] = to_u32(piece.strides[i][d], "a plane stride");
    }
    vs.dispatch(pipeline, bindings, &params, sizeof params, workgroups_for(context, piece.count() * per_plane));
  }, backward ? "upsample backward" : "upsample");
}

}  // namespace

EMBER_VULKAN_KERNELS(UpsampleKernels, VulkanUpsample);

}  // namespace ember::vulkan
