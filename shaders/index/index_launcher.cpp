// Launchers of the index kernels: gather, scatter, triangle (tril / triu) and nonzero.
#include <algorithm>
#include <functional>
#include <limits>
#include <string>

#include "runtime/error.h"
#include "runtime/kernels/index.h"
#include "runtime/kernels/memory.h"
#include "shaders/common/index_launch.h"
#include "shaders/common/launch.h"
#include "shaders/common/vulkan_family.h"

namespace ember::vulkan {

namespace {

// Out, index and in with the extras fit 128 bytes of push constants with five launch dims.
constexpr int kGatherDims = 5;
struct GatherExtra {
  uint32_t in_dim_stride;
  uint32_t in_dim_size;
  uint32_t slice_first;
  uint32_t slice_size;
};
using GatherParams = StridedParams<3, GatherExtra, kGatherDims>;

struct TriangleExtra {
  uint32_t rows;
  uint32_t cols;
  uint32_t position_base;  // the piece's first row-major position, modulo rows * cols
  int32_t diagonal;
  uint32_t upper;
};
using TriangleParams = StridedParams<2, TriangleExtra>;

// in's own sizes (of dims 1 onwards) turn positions into coordinates; four launch dims leave room.
constexpr int kNonzeroDims = 4;
struct NonzeroExtra {
  uint32_t positions_offset;
  uint32_t out_offset;
  uint32_t out_row_stride;
  uint32_t out_col_stride;
  uint32_t base;
  uint32_t in_ndim;
  uint32_t in_sizes[kMaxDims - 1];
};
using NonzeroParams = StridedParams<1, NonzeroExtra, kNonzeroDims>;

// Index, src and out with the extras fit 128 bytes of push constants with five launch dims.
constexpr int kScatterDims = 5;
struct ScatterExtra {
  uint32_t out_dim_stride;
  uint32_t out_dim_size;
  uint32_t slice_first;
  uint32_t slice_size;
  uint32_t alpha_lo, alpha_hi;
};
using ScatterParams = StridedParams<3, ScatterExtra, kScatterDims>;
// scatter_ordered: the same, with the shift of its table of claims (128 bytes in all).
struct ScatterOrderedExtra {
  ScatterExtra scatter;
  uint32_t claim_shift;
};
using ScatterOrderedParams = StridedParams<3, ScatterOrderedExtra, kScatterDims>;
static_assert(sizeof(ScatterOrderedParams) == 128);
struct ScatterValueExtra {
  uint32_t out_dim_stride;
  uint32_t out_dim_size;
  uint32_t slice_first;
  uint32_t slice_size;
  uint32_t alpha_lo, alpha_hi;
  uint32_t value_lo, value_hi;
};
using ScatterValueParams = StridedParams<2, ScatterValueExtra>;

const KernelAbiRegistration kAbis{
    {"gather_8", 3, sizeof(GatherParams)},
    {"gather_16", 3, sizeof(GatherParams)},
    {"gather_32", 3, sizeof(GatherParams)},
    {"gather_64", 3, sizeof(GatherParams)},
    {"gather_32_texel", 3, sizeof(GatherParams)},
    {"gather_64_texel", 3, sizeof(GatherParams)},
    {"triangle_8", 2, sizeof(TriangleParams)},
    {"triangle_16", 2, sizeof(TriangleParams)},
    {"triangle_32", 2, sizeof(TriangleParams)},
    {"triangle_64", 2, sizeof(TriangleParams)},
    {"nonzero_8", 3, sizeof(NonzeroParams)},
    {"nonzero_16", 3, sizeof(NonzeroParams)},
    {"nonzero_32", 3, sizeof(NonzeroParams)},
    {"nonzero_64", 3, sizeof(NonzeroParams)},
    {"scatter_f32", 3, sizeof(ScatterParams)},
    {"scatter_f64", 3, sizeof(ScatterParams)},
    {"scatter_i32", 3, sizeof(ScatterParams)},
    {"scatter_i64", 3, sizeof(ScatterParams)},
    {"scatter_value_f32", 2, sizeof(ScatterValueParams)},
    {"scatter_value_f64", 2, sizeof(ScatterValueParams)},
    {"scatter_value_i32", 2, sizeof(ScatterValueParams)},
    {"scatter_value_i64", 2, sizeof(ScatterValueParams)},
    {"scatter_ordered_f32", 4, sizeof(ScatterOrderedParams)},
    {"scatter_ordered_f64", 4, sizeof(ScatterOrderedParams)},
    {"scatter_ordered_i32", 4, sizeof(ScatterOrderedParams)},
    {"scatter_ordered_i64", 4, sizeof(ScatterOrderedParams)},
};

std::string width_suffix(DType dtype) { return std::to_string(element_size(dtype) * 8); }
std::string name_of(DType dtype) { return std::string(dtype_name(dtype)); }

uint32_t to_u32(int64_t value, const char* what) {
  if (value < 0 || value > std::numeric_limits<uint32_t>::max()) {
    throw UnsupportedError(std::string(what) + " does not fit the kernel's 32-bit arguments");
  }
  return static_cast<uint32_t>(value);
}

void require_int64_index(const TensorRef& index, const char* op) {
  if (index.dtype != DType::Int64) {
    throw Error(std::string(op) + " takes int64 indices, not " + name_of(index.dtype));
  }
}

void check_dim(int dim, int ndim, const char* op) {
  if (dim < 0 || dim >= ndim) {
    throw Error(std::string(op) + ": dim " + std::to_string(dim) + " is out of range for " +
                std::to_string(ndim) + " dims");
  }
}

// Positions of one run of the ordered scatter: its table of claims has a power-of-two count of slots of
// 8 bytes, at least twice the positions, so 2^20 positions take at most 16 MiB. A run's launch indices
// (and so the claims) then fit 32 bits whatever the launch's size: a longer piece is split into runs,
// never left to the single pass.
constexpr int64_t kMaxOrderedRun = int64_t{1} << 20;
constexpr uint32_t kOrderClaim = 0, kOrderStore = 1;  // ORDER_PASS_* in scatter.comp

// log2 of the slots of the table of claims for `positions` positions: at least twice as many, and two.
uint32_t claim_table_log2(int64_t positions) {
  uint32_t log2 = 1;
  while ((int64_t{1} << log2) < 2 * positions) ++log2;
  return log2;
}

class VulkanIndex final : public IndexKernels {
 public:
  explicit VulkanIndex(VulkanDevice& device) : device_(device) {}
  void gather(Stream& stream, const GatherArgs& args) override;
  void scatter(Stream& stream, const ScatterArgs& args) override;
  void triangle(Stream& stream, const TriangleArgs& args) override;
  void nonzero(Stream& stream, const NonzeroArgs& args) override;

 private:
  VulkanDevice& device_;
};

void VulkanIndex::gather(Stream& stream, const GatherArgs& args) {
  const TensorRef& out_arg = args.out;
  const TensorRef& in_arg = args.in;
  const int dim = args.dim;
  const TensorRef& index_arg = args.index;
  if (out_arg.dtype != in_arg.dtype) {
    throw Error("gather needs equal dtypes of out and in, got " + name_of(out_arg.dtype) + " and " +
                name_of(in_arg.dtype));
  }
  require_int64_index(index_arg, "gather");
  require_dtype(device_, out_arg.dtype, "gather");
  const TensorRef out = at_least_1d(out_arg);
  const TensorRef in = at_least_1d(in_arg);
  const TensorRef index = at_least_1d(index_arg);
  check_dim(dim, out.ndim, "gather");
  if (in.ndim != out.ndim) throw Error("gather: in and out differ in rank");
  for (int d = 0; d < out.ndim; ++d) {
    if (d != dim && in.sizes[d] != out.sizes[d]) {
      throw Error("gather: in and out differ in size at dimension " + std::to_string(d));
    }
  }
  if (out.numel() == 0) return;
  // Every index is out of range of an empty dim, and there is no memory of in to bind.
  if (in.sizes[dim] == 0) {
    device_.kernels().get<MemoryKernels>().fill(stream, {out_arg, 0});
    return;
  }
  VulkanStream& vs = vulkan_stream(stream);
  const Context& context = device_.context();
  const std::string shader = "gather_" + width_suffix(out.dtype);
  // 32- and 64-bit elements may read index and in through texel views (gather.comp's TEXEL_READS).
  const bool has_texel_variant = element_size(out.dtype) >= 4;
  // By [texel reads][ROWS], made when first used.
  const Pipeline* pipelines[2][2] = {};
  const uint32_t dim_stride = to_u32(in.strides[dim], "gather's stride along dim");
  const uint32_t dim_size = to_u32(in.sizes[dim], "gather's size along dim");
  const size_t element = element_size(in.dtype);
  for (const DimSlice& slice : dim_slices(context, in.sizes[dim], in.strides[dim], element)) {
    TensorRef in_slice = in;
    in_slice.byte_offset += static_cast<uint64_t>(slice.first * in.strides[dim]) * element;
    in_slice.sizes[dim] = slice.size;
    const TensorRef in_view = along_dim_view(in_slice, out, dim);
    const GatherExtra extra{dim_stride, dim_size, static_cast<uint32_t>(slice.first),
                            static_cast<uint32_t>(slice.size)};
    const uint64_t reach = reach_bytes(slice.size, in.strides[dim], element);
    for_each_window(plan_launch({&out, &index, &in_view}), kGatherDims, window_limit(context, reach, "gather"),
                    [&](const LaunchShape& piece) {
                      GatherParams params{};
                      Binding bindings[3];
                      const bool writes[] = {true, false, false};
                      fill_params(context, piece, params, bindings, writes);
                      const Window in_window =
                          widened_window(context, piece, 2, false, slice.size, in.strides[dim]);
                      bindings[2] = in_window.binding;
                      params.offsets[2] = in_window.first_element;
                      params.extra = extra;
                      const bool texels = has_texel_variant && can_read_as_texels(context, bindings[1]) &&
                                          can_read_as_texels(context, bindings[2]);
                      const bool rows = takes_rows_runs(piece);
                      const Pipeline*& chosen = pipelines[texels][rows];
                      if (!chosen) {
                        chosen = &device_.pipelines().get(texels ? shader + "_texel" : shader, {rows ? 1u : 0u});
                      }
                      // An invocation per run of kRunElements elements (gather.comp).
                      vs.dispatch(*chosen, bindings, &params, sizeof params,
                                  workgroups_for(context, (piece.numel() + kRunElements - 1) / kRunElements));
                    });
  }
}

void VulkanIndex::scatter(Stream& stream, const ScatterArgs& args) {
  const ScatterMode mode = args.mode;
  const TensorRef& out_arg = args.out;
  const int dim = args.dim;
  const TensorRef& index_arg = args.index;
  const Operand& src = args.src;
  const Scalar alpha = args.alpha;
  require_int64_index(index_arg, "scatter");
  require_dtype(device_, out_arg.dtype, "scatter");
  if (!src.is_scalar() && src.tensor.dtype != out_arg.dtype) {
    throw Error("scatter needs src of out's dtype " + name_of(out_arg.dtype) + ", got " +
                name_of(src.tensor.dtype));
  }
  if (element_size(out_arg.dtype) == 8 && !device_.context().int64_atomics) {
    throw UnsupportedError("scatter of " + name_of(out_arg.dtype) + " on " + device_.info().name +
                           " needs 64-bit atomics (shaderBufferInt64Atomics), which it lacks");
  }
  const TensorRef out = at_least_1d(out_arg);
  const TensorRef index = at_least_1d(index_arg);
  check_dim(dim, out.ndim, "scatter");
  if (index.ndim != out.ndim) throw Error("scatter: index and out differ in rank");
  for (int d = 0; d < out.ndim; ++d) {
    if (d != dim && index.sizes[d] > out.sizes[d]) {
      throw Error("scatter: index is larger than out at dimension " + std::to_string(d));
    }
  }
  if (index.numel() == 0 || out.sizes[dim] == 0) return;

  VulkanStream& vs = vulkan_stream(stream);
  const Context& context = device_.context();
  const DType storage = compute_storage(out.dtype);
  const uint64_t alpha_bits = alpha.bits_as(storage);
  // out's dtype, the mode, src's dtype (a tensor src; ignored by the scalar variants), the ordered
  // variant's pass, and ROWS (set per launch piece).
  const uint32_t src_dtype = src.is_scalar() ? 0 : static_cast<uint32_t>(src.tensor.dtype);
  const std::vector<uint32_t> specialization = {static_cast<uint32_t>(out.dtype), static_cast<uint32_t>(mode),
                                                src_dtype, kOrderClaim, 0};
  const uint32_t out_dim_stride = to_u32(out.strides[dim], "scatter's stride along dim");
  const uint32_t out_dim_size = to_u32(out.sizes[dim], "scatter's size along dim");
  const size_t element = element_size(out.dtype);
  const std::string suffix(compute_suffix(out.dtype));
  const uint64_t value_bits = src.is_scalar() ? src.scalar->bits_as(storage) : 0;
  const TensorRef source = src.is_scalar() ? TensorRef{} : at_least_1d(src.tensor);

  // Assign from a tensor keeps the last of colliding positions along dim, as PyTorch's CPU kernels do,
  // in runs of a zeroed table, a claiming pass and a storing pass (scatter.comp). Only positions along
  // dim collide, and colliding stores of one scalar, or combining modes, need no order: every other case
  // is the single pass.
  const bool ordered =
      mode == ScatterMode::Assign && !src.is_scalar() && index.sizes[dim] > 1 && !args.any_collision_wins;
  const std::string shader = (ordered ? "scatter_ordered_" : src.is_scalar() ? "scatter_value_" : "scatter_") + suffix;
  // The pipeline of a launch piece (scatter.comp's ROWS where the piece allows) and, for the ordered
  // variant, its pass.
  auto pipeline_for = [&](const LaunchShape& piece, uint32_t pass) -> const Pipeline& {
    std::vector<uint32_t> constants = specialization;
    constants[3] = pass;
    constants[4] = takes_rows_runs(piece) ? 1 : 0;
    return device_.pipelines().get(shader, constants);
  };
  std::shared_ptr<Allocation> claims;  // for the longest run, cleared before each
  if (ordered) {
    const uint64_t slots = uint64_t{1} << claim_table_log2(std::min(index.numel(), kMaxOrderedRun));
    claims = device_.allocator().allocate(slots * 2 * sizeof(uint32_t), stream.shared_from_this());
  }
  // Clears the table for a run of `positions` and returns its binding, whose first slot is claims[0].
  auto clear_claims = [&](int64_t positions) {
    const uint64_t bytes = (uint64_t{1} << claim_table_log2(positions)) * 2 * sizeof(uint32_t);
    LaunchShape table;
    table.ndim = 1;
    table.sizes[0] = static_cast<int64_t>(bytes / sizeof(uint32_t));
    table.noperands = 1;
    table.operands[0] = {claims.get(), 0, sizeof(uint32_t), {1}};
    const Window window = operand_window(context, table, 0, true);
    if (window.first_element != 0) throw Error("scatter: the table of claims is not aligned");
    vs.fill_words(*claims, window.binding.offset - claims->offset(), bytes, 0u);
    return window.binding;
  };
  for (const DimSlice& slice : dim_slices(context, out.sizes[dim], out.strides[dim], element)) {
    TensorRef out_slice = out;
    out_slice.byte_offset += static_cast<uint64_t>(slice.first * out.strides[dim]) * element;
    out_slice.sizes[dim] = slice.size;
    const TensorRef out_view = along_dim_view(out_slice, index, dim);
    const uint64_t limit = window_limit(context, reach_bytes(slice.size, out.strides[dim], element), "scatter");
    const auto first = static_cast<uint32_t>(slice.first);
    const auto size = static_cast<uint32_t>(slice.size);

    // Binds out (the last operand) with its reach along dim, then dispatches.
    auto launch = [&](const LaunchShape& piece, auto& params, std::span<Binding> bindings,
                      std::span<const bool> writes) {
      fill_params(context, piece, params, bindings, writes);
      const int last = piece.noperands - 1;
      const Window out_window = widened_window(context, piece, last, true, slice.size, out.strides[dim]);
      bindings[last] = out_window.binding;
      params.offsets[last] = out_window.first_element;
      // An invocation per run of kRunElements elements (scatter.comp).
      vs.dispatch(pipeline_for(piece, kOrderClaim), bindings, &params, sizeof params,
                  workgroups_for(context, (piece.numel() + kRunElements - 1) / kRunElements));
    };

    if (src.is_scalar()) {
      for_each_window(plan_launch({&index, &out_view}), kShaderMaxDims, limit, [&](const LaunchShape& piece) {
        ScatterValueParams params{};
        params.extra = {out_dim_stride,
                        out_dim_size,
                        first,
                        size,
                        static_cast<uint32_t>(alpha_bits),
                        static_cast<uint32_t>(alpha_bits >> 32),
                        static_cast<uint32_t>(value_bits),
                        static_cast<uint32_t>(value_bits >> 32)};
        Binding bindings[2];
        const bool writes[] = {false, true};
        launch(piece, params, bindings, writes);
      });
    } else if (!ordered) {
      for_each_window(plan_launch({&index, &source, &out_view}), kScatterDims, limit, [&](const LaunchShape& piece) {
        ScatterParams params{};
        params.extra = {out_dim_stride, out_dim_size, first, size, static_cast<uint32_t>(alpha_bits),
                        static_cast<uint32_t>(alpha_bits >> 32)};
        Binding bindings[3];
        const bool writes[] = {false, false, true};
        launch(piece, params, bindings, writes);
      });
    } else {
      // Pieces and their runs are runs of row-major positions, recorded in order, and a later run's stores
      // come after an earlier one's (the hazard barrier on out): the last along dim wins across runs too.
      const ScatterExtra extra{out_dim_stride, out_dim_size, first, size, static_cast<uint32_t>(alpha_bits),
                               static_cast<uint32_t>(alpha_bits >> 32)};
      for_each_window(plan_launch({&index, &source, &out_view}), kScatterDims, limit, [&](const LaunchShape& piece) {
        const auto short_enough = [](const LaunchShape& run) { return run.numel() <= kMaxOrderedRun; };
        for_each_piece(piece, short_enough, [&](const LaunchShape& run) {
          ScatterOrderedParams params{};
          params.extra = {extra, 32 - claim_table_log2(run.numel())};
          Binding bindings[4];
          const bool writes[] = {false, false, true};
          fill_params(context, run, params, std::span<Binding>(bindings, 3), writes);
          const Window out_window = widened_window(context, run, 2, true, slice.size, out.strides[dim]);
          bindings[2] = out_window.binding;
          params.offsets[2] = out_window.first_element;
          bindings[3] = clear_claims(run.numel());
          const uint32_t groups = workgroups_for(context, (run.numel() + kRunElements - 1) / kRunElements);
          // The claiming pass reads out's binding at most (it stores nothing) and writes the table.
          bindings[2].write = false;
          vs.dispatch(pipeline_for(run, kOrderClaim), bindings, &params, sizeof params, groups);
          bindings[2].write = true;
          bindings[3].write = false;
          vs.dispatch(pipeline_for(run, kOrderStore), bindings, &params, sizeof params, groups);
        });
      });
    }
  }
}

void VulkanIndex::triangle(Stream& stream, const TriangleArgs& args) {
  const TensorRef& out = args.out;
  const TensorRef& in = args.in;
  const int64_t diagonal = args.diagonal;
  const bool upper = args.upper;
  if (out.dtype != in.dtype) {
    throw Error("triangle needs equal dtypes of out and in, got " + name_of(out.dtype) + " and " +
                name_of(in.dtype));
  }
  require_dtype(device_, out.dtype, "triangle");
  if (out.ndim < 2) throw Error("tril and triu need at least 2 dims");
  if (out.numel() == 0) return;
  const int64_t rows = out.sizes[out.ndim - 2];
  const int64_t cols = out.sizes[out.ndim - 1];
  const uint64_t matrix = static_cast<uint64_t>(rows * cols);
  // col - row lies in [1 - rows, cols - 1], so clamping keeps the meaning and fits 32 bits.
  const int32_t clamped = static_cast<int32_t>(std::clamp<int64_t>(diagonal, -rows, cols));
  VulkanStream& vs = vulkan_stream(stream);
  const Context& context = device_.context();
  const Pipeline& pipeline = device_.pipelines().get("triangle_" + width_suffix(out.dtype));
  const TensorRef tracker = position_tracker(out);
  for_each_window(
      plan_launch({&out, &in, &tracker}), kShaderMaxDims, max_window_bytes(context),
      [&](const LaunchShape& piece) {
        TriangleParams params{};
        Binding bindings[2];
        const bool writes[] = {true, false};
        fill_params(context, piece, params, bindings, writes);
        const uint64_t base = piece.operands[2].byte_offset % matrix;
        to_u32(static_cast<int64_t>(base) + piece.numel(), "triangle's positions in one launch");
        params.extra = {to_u32(rows, "triangle's rows"), to_u32(cols, "triangle's columns"),
                        static_cast<uint32_t>(base), clamped, upper ? 1u : 0u};
        vs.dispatch(pipeline, bindings, &params, sizeof params,
                    workgroups_for(context, piece.numel()));
      });
}

void VulkanIndex::nonzero(Stream& stream, const NonzeroArgs& args) {
  const TensorRef& out = args.out;
  const TensorRef& in = args.in;
  const TensorRef& positions = args.positions;
  require_dtype(device_, in.dtype, "nonzero");
  if (out.dtype != DType::Int64 || out.ndim != 2 || out.sizes[1] != in.ndim) {
    throw Error("nonzero writes int64 coordinates, one row of in.ndim per nonzero");
  }
  if (positions.dtype != DType::Int64 || !positions.is_contiguous() ||
      positions.numel() != in.numel()) {
    throw Error("nonzero takes contiguous int64 positions, one per element of in");
  }
  if (in.ndim == 0 || in.numel() == 0 || out.sizes[0] == 0) return;
  to_u32(in.numel(), "nonzero's element count");
  VulkanStream& vs = vulkan_stream(stream);
  const Context& context = device_.context();
  const Pipeline& pipeline =
      device_.pipelines().get("nonzero_" + width_suffix(in.dtype), {is_floating_point(in.dtype) ? 1u : 0u});
  if (out.extent_bytes() > max_window_bytes(context)) {
    throw UnsupportedError("nonzero: the coordinates are larger than a buffer binding can reach");
  }
  const Window out_window = operand_window(context, plan_launch({&out}), 0, true);
  // positions seen with in's sizes, so that launch pieces split both alike.
  TensorRef positions_view = position_tracker(in);
  positions_view.allocation = positions.allocation;
  positions_view.byte_offset = positions.byte_offset;
  positions_view.dtype = DType::Int64;
  NonzeroExtra extra{};
  extra.out_offset = out_window.first_element;
  extra.out_row_stride = to_u32(out.strides[0], "nonzero's out stride");
  extra.out_col_stride = to_u32(out.strides[1], "nonzero's out stride");
  extra.in_ndim = static_cast<uint32_t>(in.ndim);
  for (int d = 1; d < in.ndim; ++d) extra.in_sizes[d - 1] = static_cast<uint32_t>(in.sizes[d]);
  for_each_window(plan_launch({&in, &positions_view}), kNonzeroDims, max_window_bytes(context),
                  [&](const LaunchShape& piece) {
                    NonzeroParams params{};
                    Binding bindings[3];
                    const bool writes[] = {false};
                    fill_params(context, piece, params, std::span<Binding>(bindings + 1, 1), writes);
                    bindings[0] = out_window.binding;
                    const Window positions_window = operand_window(context, piece, 1, false);
                    bindings[2] = positions_window.binding;
                    params.extra = extra;
                    params.extra.positions_offset = positions_window.first_element;
                    params.extra.base = static_cast<uint32_t>(
                        (piece.operands[1].byte_offset - positions.byte_offset) / sizeof(int64_t));
                    vs.dispatch(pipeline, bindings, &params, sizeof params,
                                workgroups_for(context, piece.numel()));
                  });
}

}  // namespace

EMBER_VULKAN_KERNELS(IndexKernels, VulkanIndex);

}  // namespace ember::vulkan
