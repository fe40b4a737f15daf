// Launcher of the pool kernels (pool.comp forward, pool_backward.comp backward): one dispatch over
// every element of the output (forward) or of grad_in (backward), each invocation computing its element
// whole. 2×2 max and average pooling with stride 2 of float32 planes laid out one after the other take
// pool_pairs.comp instead, four elements per invocation.
//
// The planes (every dim but the last two) are merged where all operands allow and passed as at most
// two dims. A launch whose operands reach past a buffer binding is split along the planes; a single
// plane larger than a binding is an UnsupportedError.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "runtime/kernels/memory.h"
#include "runtime/kernels/pool.h"
#include "shaders/common/contiguous_launch.h"
#include "shaders/common/vulkan_family.h"
#include "shaders/reduce/reduce_plan.h"

namespace ember::vulkan {

namespace {

constexpr int kPlaneDims = 2;  // plane_sizes in pool_common.glsl
constexpr int64_t kMaxFixedKernel = 4;  // larger windows read their size from the push constants
// Positions per invocation run (pool_common.glsl's POSITION_RUN).
constexpr int64_t kPositionRun = 8;
// The pool shaders divide in float lanes (divide_small), exact for dividends below 2^24: launches are split
// so that their positions stay below it, and only a plane that large, or a backward's windows reaching
// that far, take the pipelines that divide integers (LARGE_DIVIDENDS in pool_common.glsl), which llvmpipe
// does one lane at a time.
constexpr int64_t kSmallDividends = int64_t{1} << 24;

struct PoolParams {
  uint32_t in_offset;
  uint32_t out_offset;
  uint32_t indices_offset;
  uint32_t plane_sizes[kPlaneDims];
  uint32_t in_plane_strides[kPlaneDims];
  uint32_t out_plane_strides[kPlaneDims];
  uint32_t indices_plane_strides[kPlaneDims];
  uint32_t in_h;
  uint32_t in_w;
  uint32_t out_h;
  uint32_t out_w;
  uint32_t in_strides[2];
  uint32_t out_strides[2];
  uint32_t indices_strides[2];
  int32_t kernel[2];
  int32_t stride[2];
  int32_t padding[2];
  int32_t dilation[2];
  uint32_t count_include_pad;
  int32_t divisor_override;
};
static_assert(sizeof(PoolParams) <= 128);

const KernelAbiRegistration kAbis{
    {"pool_f32", 3, sizeof(PoolParams)},
    {"pool_f64", 3, sizeof(PoolParams)},
    {"pool_backward_f32", 3, sizeof(PoolParams)},
    {"pool_backward_f64", 3, sizeof(PoolParams)},
    {"pool_f32_texel", 4, sizeof(PoolParams)},
    {"pool_backward_f32_texel", 4, sizeof(PoolParams)},
    {"pool_pairs_f32", 3, sizeof(PoolParams)},
    {"pool_pairs_backward_f32", 3, sizeof(PoolParams)},
    {"pool_pairs_backward_rows_f32", 3, sizeof(PoolParams)},
};

uint32_t to_u32(int64_t value, const char* what) {
  if (value < 0 || value > std::numeric_limits<uint32_t>::max()) {
    throw UnsupportedError(std::string("pool: ") + what + " does not fit the kernel's 32-bit arguments");
  }
  return static_cast<uint32_t>(value);
}

int32_t to_i32(int64_t value, const char* what) {
  if (value < 0 || value > std::numeric_limits<int32_t>::max()) {
    throw UnsupportedError(std::string("pool: ") + what + " does not fit the kernel's 32-bit arguments");
  }
  return static_cast<int32_t>(value);
}

// Whether pool_pairs.comp can take this pooling, apart from where the operands start: 2×2 max (with
// indices) or average pooling with stride 2 of float32 planes of an even height and width, each plane's
// rows one after the other in every operand (its pieces also need their planes one after the other).
bool pairs_geometry(const PoolGeometry& g, const TensorRef& in, const TensorRef& out, const TensorRef* indices) {
  const bool max_pool = g.op == PoolOp::Max && indices != nullptr;
  const bool avg_pool = g.op == PoolOp::Avg && indices == nullptr;
  if (!(max_pool || avg_pool) || in.dtype != DType::Float32) return false;
  for (const PoolWindow& win : g.window) {
    if (win.kernel != 2 || win.stride != 2 || win.padding != 0 || win.dilation != 1) return false;
  }
  const int h = in.ndim - 2, w = in.ndim - 1;
  if (in.sizes[h] != 2 * out.sizes[h] || in.sizes[w] != 2 * out.sizes[w]) return false;
  for (const TensorRef* ref : {&in, &out, indices}) {
    if (ref != nullptr && (ref->strides[w] != 1 || ref->strides[h] != ref->sizes[w])) return false;
  }
  return true;
}

// Whether pool_pairs.comp can take a piece of a launch that pairs_geometry accepts: its planes one after
// the other in every operand, whole uvec4 words of the written operands (a multiple of four outputs
// forward, which also starts on a word), and texel views of what it reads. Bindings as launch() binds
// them: 0 the written operand, 1 the indices (average pooling: the read operand), 2 the read operand; and
// fewer than 2^24 input elements (its divisions), which launch() keeps to but for a single larger plane.
bool pairs_piece(const Box& piece, const PoolParams& params, const Binding* bindings, const Context& context,
                 int64_t in_plane_size, int64_t out_plane_size, bool backward, bool has_indices) {
  // Every position it divides lies below the piece's input elements, which divide_small needs below 2^24.
  if (piece.count() * in_plane_size >= (int64_t{1} << 24)) return false;
  const int64_t plane_sizes[kBoxOperands] = {in_plane_size, out_plane_size, out_plane_size};
  for (int d = 0; d < piece.ndim; ++d) {
    if (piece.sizes[d] == 1) continue;
    if (d != piece.ndim - 1) return false;
    for (int i = 0; i < (has_indices ? kBoxOperands : 2); ++i) {
      if (piece.strides[i][d] != plane_sizes[i]) return false;
    }
  }
  if (backward) {
    return params.in_offset % 4 == 0 && can_read_as_texels(context, bindings[1]) &&
           can_read_as_texels(context, bindings[2]);
  }
  return piece.count() * out_plane_size % 4 == 0 && params.in_offset % 2 == 0 && params.out_offset % 4 == 0 &&
         params.indices_offset % 2 == 0 && can_read_as_texels(context, bindings[2]);
}

// Elements of one plane of `ref` from its first, to one past its furthest.
int64_t plane_reach(const TensorRef& ref) {
  const int h = ref.ndim - 2, w = ref.ndim - 1;
  return (ref.sizes[h] - 1) * ref.strides[h] + (ref.sizes[w] - 1) * ref.strides[w] + 1;
}

class VulkanPool final : public PoolKernels {
 public:
  explicit VulkanPool(VulkanDevice& device) : device_(device) {}
  void pool(Stream& stream, const PoolArgs& args) override;
  void pool_backward(Stream& stream, const PoolBackwardArgs& args) override;

 private:
  // One launch per piece of the planes. `in` and `out` are the forward's; `backward` writes in.
  void launch(Stream& stream, const PoolGeometry& geometry, const TensorRef& in, const TensorRef& out,
              const TensorRef* indices, bool backward);

  VulkanDevice& device_;
};

void VulkanPool::pool(Stream& stream, const PoolArgs& args) {
  args.check();
  require_dtype(device_, args.in.dtype, "pool");
  if (args.out.numel() == 0) return;
  launch(stream, args.geometry, args.in, args.out, args.indices ? &*args.indices : nullptr, false);
}

void VulkanPool::pool_backward(Stream& stream, const PoolBackwardArgs& args) {
  args.check();
  require_dtype(device_, args.grad_in.dtype, "pool backward");
  if (args.grad_in.numel() == 0) return;
  if (args.grad_out.numel() == 0) {  // no window holds anything: grad_in is zero
    device_.kernels().get<MemoryKernels>().fill(stream, {args.grad_in, 0});
    return;
  }
  launch(stream, args.geometry, args.grad_in, args.grad_out, args.indices ? &*args.indices : nullptr, true);
}

void VulkanPool::launch(Stream& stream, const PoolGeometry& g, const TensorRef& in, const TensorRef& out,
                        const TensorRef* indices, bool backward) {
  for (const TensorRef* ref : {&in, &out, indices}) {
    if (!ref) continue;
    for (int d = 0; d < ref->ndim; ++d) {
      if (ref->strides[d] < 0) throw UnsupportedError("pool: negative strides");
    }
  }
  const int h = in.ndim - 2, w = in.ndim - 1;
  PoolParams base{};
  base.in_h = to_u32(in.sizes[h], "the input's height");
  base.in_w = to_u32(in.sizes[w], "the input's width");
  base.out_h = to_u32(out.sizes[h], "the output's height");
  base.out_w = to_u32(out.sizes[w], "the output's width");
  base.in_strides[0] = to_u32(in.strides[h], "a stride");
  base.in_strides[1] = to_u32(in.strides[w], "a stride");
  base.out_strides[0] = to_u32(out.strides[h], "a stride");
  base.out_strides[1] = to_u32(out.strides[w], "a stride");
  if (indices) {
    base.indices_strides[0] = to_u32(indices->strides[h], "a stride");
    base.indices_strides[1] = to_u32(indices->strides[w], "a stride");
  }
  if (!is_adaptive_pool(g.op)) {
    for (int d = 0; d < 2; ++d) {
      base.kernel[d] = to_i32(g.window[d].kernel, "the kernel size");
      base.stride[d] = to_i32(g.window[d].stride, "the stride");
      base.padding[d] = to_i32(g.window[d].padding, "the padding");
      base.dilation[d] = to_i32(g.window[d].dilation, "the dilation");
      // Positions within a window and the reach of the last one stay within 32-bit arithmetic.
      to_i32((g.window[d].kernel - 1) * g.window[d].dilation + g.window[d].padding, "the window's reach");
      to_i32((out.sizes[h + d] - 1) * g.window[d].stride, "the window's reach");
    }
  }
  base.count_include_pad = g.count_include_pad ? 1 : 0;
  if (g.divisor_override < std::numeric_limits<int32_t>::min() || g.divisor_override > std::numeric_limits<int32_t>::max()) {
    throw UnsupportedError("pool: the divisor does not fit the kernel's 32-bit arguments");
  }
  base.divisor_override = static_cast<int32_t>(g.divisor_override);
  // Every element index of a plane is below 2^32.
  to_u32(in.sizes[h] * in.sizes[w], "a plane");

  // Operands 0 in, 1 out, 2 indices over the planes.
  const std::array<const TensorRef*, kBoxOperands> operands = {&in, &out, indices};
  Box planes;
  for (int d = 0; d < h; ++d) {
    planes.push_dim(in.sizes[d], {in.strides[d], out.strides[d], indices ? indices->strides[d] : 0});
  }
  const std::array<int64_t, kBoxOperands> extents = {plane_reach(in), plane_reach(out),
                                                     indices ? plane_reach(*indices) : 1};
  // Backward over windows that do not overlap writes whole stride-sized blocks of grad_in (BLOCKED in
  // pool_backward.comp): one invocation per block instead of per element.
  bool blocked = backward && !is_adaptive_pool(g.op);
  int64_t blocks[2] = {0, 0};
  for (int d = 0; d < 2 && blocked; ++d) {
    const PoolWindow& win = g.window[d];
    blocked = (win.kernel - 1) * win.dilation + 1 <= win.stride;
    blocks[d] = ceil_div(in.sizes[h + d] + win.padding, win.stride);
  }
  const int64_t per_plane = blocked    ? blocks[0] * blocks[1]
                            : backward ? in.sizes[h] * in.sizes[w]
                                       : out.sizes[h] * out.sizes[w];
  // The largest dividend of the backward's window arithmetic (outputs_holding, blocked_main).
  int64_t window_dividend = 0;
  for (int d = 0; d < 2 && backward && !is_adaptive_pool(g.op); ++d) {
    window_dividend = std::max(window_dividend, in.sizes[h + d] + g.window[d].padding + g.window[d].stride);
  }
  const bool pairs_layout = pairs_geometry(g, in, out, indices);
  const int64_t in_plane_size = in.sizes[h] * in.sizes[w], out_plane_size = out.sizes[h] * out.sizes[w];
  // pool_pairs.comp divides positions of input elements.
  const int64_t dividends_per_plane = pairs_layout ? std::max(per_plane, in_plane_size) : per_plane;
  const Context& context = device_.context();
  const uint64_t window = max_window_bytes(context);
  auto reach = [&](const Box& piece, int i) { return piece.reach(i) - piece.base[i] - 1 + extents[i]; };
  auto fits = [&](const Box& piece) {
    // Below 2^31, so that the shaders' runs of positions never step past 2^32.
    if (piece.count() * per_plane > std::numeric_limits<int32_t>::max()) return false;
    if (piece.count() > 1 && piece.count() * dividends_per_plane >= kSmallDividends) return false;
    for (int i = 0; i < kBoxOperands; ++i) {
      if (operands[i] && static_cast<uint64_t>(reach(piece, i)) * element_size(operands[i]->dtype) > window) {
        return false;
      }
    }
    return true;
  };

  VulkanStream& vs = vulkan_stream(stream);
  const std::string shader = std::string(backward ? "pool_backward_" : "pool_") + std::string(compute_suffix(in.dtype));
  std::vector<uint32_t> specialization = {static_cast<uint32_t>(in.dtype), static_cast<uint32_t>(g.op)};
  if (backward) {
    specialization.push_back(blocked ? 1 : 0);
    for (int d = 0; d < 2; ++d) {
      const int64_t stride = g.window[d].stride;
      specialization.push_back(blocked && stride <= kMaxFixedKernel ? static_cast<uint32_t>(stride) : 0);
    }
  } else {
    // Small windows get pipelines of their own size, whose loops unroll; windows that all lie inside the
    // input skip the bounds checks.
    bool interior = !is_adaptive_pool(g.op);
    for (int d = 0; d < 2; ++d) {
      const PoolWindow& win = g.window[d];
      const bool small = !is_adaptive_pool(g.op) && win.kernel <= kMaxFixedKernel;
      specialization.push_back(small ? static_cast<uint32_t>(win.kernel) : 0);
      interior = interior && win.padding == 0 &&
                 (out.sizes[h + d] - 1) * win.stride + (win.kernel - 1) * win.dilation < in.sizes[h + d];
    }
    specialization.push_back(interior ? 1 : 0);
  }
  // Each looked up at the first launch that takes it: on lavapipe a pipeline compiles at its creation.
  // Generic ones by [texel reads][large dividends].
  const Pipeline* generic_pipelines[2][2] = {};
  const Pipeline* pairs_pipeline = nullptr;
  split_box(planes, kPlaneDims, fits, [&](const Box& piece) {
    PoolParams params = base;
    Binding bindings[4];
    uint32_t* offsets[kBoxOperands] = {&params.in_offset, &params.out_offset, &params.indices_offset};
    // Bindings: 0 the written operand, 1 indices, 2 the read one. Without indices, binding 1 sees the
    // read operand's window, read-only.
    const int written = backward ? 0 : 1;
    const int slot[kBoxOperands] = {backward ? 0 : 2, backward ? 2 : 0, 1};
    for (int i = 0; i < kBoxOperands; ++i) {
      const int operand = operands[i] ? i : 1 - written;
      const TensorRef& ref = *operands[operand];
      const uint32_t size = static_cast<uint32_t>(element_size(ref.dtype));
      const bool write = operand == written || (operand == 2 && !backward);
      const Window win = element_window(context, ref.allocation, ref.byte_offset + piece.base[operand] * size, size,
                                        reach(piece, operand), write);
      bindings[slot[i]] = win.binding;
      *offsets[i] = win.first_element;
    }
    uint32_t* plane_strides[kBoxOperands] = {params.in_plane_strides, params.out_plane_strides,
                                             params.indices_plane_strides};
    params.plane_sizes[0] = params.plane_sizes[1] = 1;
    for (int d = 0; d < piece.ndim; ++d) {
      const int slot_d = kPlaneDims - piece.ndim + d;
      params.plane_sizes[slot_d] = to_u32(piece.sizes[d], "a plane count");
      for (int i = 0; i < kBoxOperands; ++i) {
        plane_strides[i][slot_d] = operands[i] ? to_u32(piece.strides[i][d], "a plane stride") : 0;
      }
    }
    if (pairs_layout && pairs_piece(piece, params, bindings, context, in_plane_size, out_plane_size, backward,
                                    indices != nullptr)) {
      // The backward of an even output width writes both input rows of two outputs' windows per item.
      const bool window_rows = backward && out.sizes[w] % 2 == 0;
      if (pairs_pipeline == nullptr) {
        pairs_pipeline = &device_.pipelines().get(
            window_rows ? "pool_pairs_backward_rows_f32" : backward ? "pool_pairs_backward_f32" : "pool_pairs_f32",
            {static_cast<uint32_t>(in.dtype), static_cast<uint32_t>(g.op)});
      }
      const Binding pair_bindings[3] = {bindings[0], bindings[1], bindings[2]};
      const int64_t items =
          window_rows ? piece.count() * out_plane_size / 2 : piece.count() * (backward ? in_plane_size : out_plane_size) / 4;
      const Groups groups = groups_for_items(contiguous_limits(context), items);
      vs.dispatch(*pairs_pipeline, pair_bindings, &params, sizeof params, groups.x, groups.y);
      return;
    }
    // The read operand once more at 3 for the float32 texel variants, which read it and the backward's
    // indices (binding 1) through texel views: on lavapipe the CNN's 2×2 max pools ran 5-15% faster so
    // (docs/PERFORMANCE.md).
    bindings[3] = bindings[2];
    const bool texels = in.dtype == DType::Float32 && can_read_as_texels(context, bindings[3]) &&
                        (!backward || can_read_as_texels(context, bindings[1]));
    const bool large = piece.count() * per_plane >= kSmallDividends || window_dividend >= kSmallDividends;
    const Pipeline*& chosen = generic_pipelines[texels][large];
    if (chosen == nullptr) {
      std::vector<uint32_t> constants = specialization;
      constants.push_back(large ? 1 : 0);
      chosen = &device_.pipelines().get(texels ? shader + "_texel" : shader, constants);
    }
    vs.dispatch(*chosen, std::span<const Binding>(bindings, texels ? 4 : 3),
                &params, sizeof params, workgroups_for(context, ceil_div(piece.count() * per_plane, kPositionRun)));
  }, backward ? "pool backward" : "pool");
}

}  // namespace

EMBER_VULKAN_KERNELS(PoolKernels, VulkanPool);

}  // namespace ember::vulkan
