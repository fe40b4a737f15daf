// Launchers of the reductions (reduce.comp) and scans (scan.comp).
//
// A reduction is planned as outer dims (the kept dims, one result each, in output order) and inner dims
// (the reduced ones), each merged where memory allows. Groups of 2^k invocations share an output, with
// k chosen so that each invocation merges at most kChain elements in sequence; a reduction longer than
// one workgroup's share is cut into chunks whose partial states go to a scratch buffer, and passes over
// the states follow until one state per output is left.
//
// A scan gives each row (position of the other dims) to a group of invocations that walks it in steps,
// carrying the running result (scan.comp).
//
// Launches split along outer dims (rows) where the dims left after merging outnumber the push
// constants' slots or an operand outgrows a buffer binding (128 MiB on lavapipe). What no split can fix
// is an UnsupportedError: more than 2^32 - 2^25 elements per output or scan row; one output's slice of
// the input, or one row, wider than a binding; more than 10 reduced dims that cannot merge (a
// non-contiguous input; making it contiguous merges them).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "runtime/allocator.h"
#include "runtime/error.h"
#include "runtime/kernels/memory.h"
#include "runtime/kernels/reduce.h"
#include "shaders/common/vulkan_family.h"
#include "shaders/reduce/reduce_plan.h"

namespace ember::vulkan {

namespace {

// The shader's ops, from reduce_kernel_ops.def (see kernel_op()).
enum class KernelOp : uint32_t {
#define EMBER_REDUCE_KERNEL_OP(Enum, name, domain) Enum,
#include "shaders/reduce/reduce_kernel_ops.def"
#undef EMBER_REDUCE_KERNEL_OP
};

constexpr int kReduceMaxDims = 11;  // MAX_DIMS in reduce.comp
constexpr int64_t kChain = 64;      // elements one invocation merges in sequence, at most, per pass
// Counts (outputs, rows, elements per output or row) stay this far below 2^32 so that the shaders'
// 32-bit loop counters, which step by up to 65535 workgroups of 256, never wrap.
constexpr int64_t kMaxCount = (int64_t{1} << 32) - (int64_t{1} << 25);
constexpr uint32_t kStageReadsStates = 1;
constexpr uint32_t kStageWritesStates = 2;
constexpr uint32_t kStageReadsBlocks = 4;
constexpr uint32_t kStageReadsColumns = 8;

struct ReduceParams {
  uint32_t param[2];
  uint32_t in_offset;
  uint32_t out_offset;
  uint32_t idx_offset;
  uint32_t outputs;
  uint32_t reduced;
  uint32_t chunk;
  uint32_t shape;
  uint32_t sizes[kReduceMaxDims];
  uint32_t strides[kReduceMaxDims];
};
static_assert(sizeof(ReduceParams) <= 128);

constexpr int kScanMaxDims = 5;     // MAX_DIMS in scan.comp
constexpr int64_t kScanChain = 32;  // CHAIN in scan.comp
// Rows longer than this, when there are fewer than kFewRows, are cut into chunks of kScanChunk that
// separate workgroups scan.
constexpr int64_t kScanChunk = 4 * kWorkgroupSize * kScanChain;
constexpr int64_t kLongRow = 2 * kScanChunk;
constexpr int64_t kFewRows = 64;
constexpr uint32_t kScanWholeRows = 0;  // STAGE in scan.comp
constexpr uint32_t kScanChunkTotals = 1;
constexpr uint32_t kScanChunksFromTotals = 2;

struct ScanParams {
  uint32_t in_offset;
  uint32_t out_offset;
  uint32_t idx_offset;
  uint32_t rows;
  uint32_t row_length;
  uint32_t shape;
  uint32_t in_step;
  uint32_t out_step;
  uint32_t idx_step;
  uint32_t chunk;
  uint32_t sizes[kScanMaxDims];
  uint32_t in_strides[kScanMaxDims];
  uint32_t out_strides[kScanMaxDims];
  uint32_t idx_strides[kScanMaxDims];
};
static_assert(sizeof(ScanParams) <= 128);

const KernelAbiRegistration kAbis{
    {"reduce_f32", 5, sizeof(ReduceParams)}, {"reduce_f64", 5, sizeof(ReduceParams)},
    {"reduce_i32", 5, sizeof(ReduceParams)}, {"reduce_i64", 5, sizeof(ReduceParams)},
    {"reduce_f32_subgroup", 5, sizeof(ReduceParams)}, {"reduce_f32_subgroup_texel", 6, sizeof(ReduceParams)}, {"reduce_f64_subgroup", 5, sizeof(ReduceParams)},
    {"reduce_i32_subgroup", 5, sizeof(ReduceParams)}, {"reduce_i64_subgroup", 5, sizeof(ReduceParams)},
    {"scan_f32", 4, sizeof(ScanParams)},     {"scan_f64", 4, sizeof(ScanParams)},
    {"scan_i32", 4, sizeof(ScanParams)},     {"scan_i64", 4, sizeof(ScanParams)},
};

KernelOp kernel_op(ReduceOp op, double param) {
  switch (op) {
    case ReduceOp::Sum: return KernelOp::Sum;
    case ReduceOp::Prod: return KernelOp::Prod;
    case ReduceOp::Mean: return KernelOp::Mean;
    case ReduceOp::NanSum: return KernelOp::NanSum;
    case ReduceOp::NanMean: return KernelOp::NanMean;
    case ReduceOp::Max:
    case ReduceOp::Argmax: return KernelOp::Max;
    case ReduceOp::Min:
    case ReduceOp::Argmin: return KernelOp::Min;
    case ReduceOp::Amax: return KernelOp::Amax;
    case ReduceOp::Amin: return KernelOp::Amin;
    case ReduceOp::Var: return KernelOp::Var;
    case ReduceOp::Std: return KernelOp::Std;
    case ReduceOp::Norm:
      if (param == 0) return KernelOp::Norm0;
      if (param == 1) return KernelOp::Norm1;
      if (param == 2) return KernelOp::Norm2;
      if (std::isinf(param)) return param > 0 ? KernelOp::NormInf : KernelOp::NormNegInf;
      return KernelOp::NormP;
    case ReduceOp::LogSumExp: return KernelOp::LogSumExp;
    case ReduceOp::All: return KernelOp::All;
    case ReduceOp::Any: return KernelOp::Any;
    case ReduceOp::CountNonzero: return KernelOp::CountNonzero;
  }
  throw Error("unknown reduce op");
}

bool writes_indices(ReduceOp op) {
  return op == ReduceOp::Max || op == ReduceOp::Min || op == ReduceOp::Argmax || op == ReduceOp::Argmin;
}

// What a reduction of no elements gives; nothing for the ops that have no identity.
std::optional<Scalar> empty_result(KernelOp op) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  switch (op) {
    case KernelOp::Prod:
    case KernelOp::All: return Scalar(1.0);
    case KernelOp::Mean:
    case KernelOp::NanMean:
    case KernelOp::Var:
    case KernelOp::Std: return Scalar(nan);
    case KernelOp::LogSumExp: return Scalar(-std::numeric_limits<double>::infinity());
    case KernelOp::Max:
    case KernelOp::Min:
    case KernelOp::Amax:
    case KernelOp::Amin:
    case KernelOp::NormInf:
    case KernelOp::NormNegInf: return std::nullopt;
    case KernelOp::Sum:
    case KernelOp::NanSum:
    case KernelOp::Norm0:
    case KernelOp::Norm1:
    case KernelOp::Norm2:
    case KernelOp::NormP:
    case KernelOp::Any:
    case KernelOp::CountNonzero: return Scalar(0.0);
  }
  return std::nullopt;
}

uint32_t state_bytes(DType compute) {
  const DType storage = compute_storage(compute);
  const uint32_t value_words = storage == DType::Float64 || storage == DType::Int64 ? 2 : 1;
  return (2 * value_words + 1) * 4;
}

// Only float64 modules can load or store float64 (typed_operands.glsl), so a float64 operand needs
// float64 compute, as tensor/'s type promotion gives anyway.
void require_float64_compute(std::initializer_list<const TensorRef*> operands, DType compute,
                             const std::string& what) {
  for (const TensorRef* ref : operands) {
    if (ref && ref->dtype == DType::Float64 && compute != DType::Float64) {
      throw Error(what + ": float64 operands need float64 compute, got " + std::string(dtype_name(compute)));
    }
  }
}

// What one pass reads: input elements or states, located by outer then inner dims.
struct PassInput {
  bool states = false;
  Binding binding;
  uint32_t offset = 0;
  int outer_ndim = 0;
  int inner_ndim = 0;
  std::array<int64_t, kReduceMaxDims> sizes{};
  std::array<int64_t, kReduceMaxDims> strides{};
  int64_t reduced = 0;
};

// How a pass cuts its reductions: 2^group_log2 invocations per output, each reduction in `chunks`
// pieces of `chunk` for the workgroups along x.
struct PassShape {
  uint32_t group_log2 = 0;
  int64_t chunk = 0;
  int64_t chunks = 1;
};

// Groups have at most 2^max_group_log2 invocations: by default the whole workgroup of 256, for a column
// pass one subgroup.
PassShape pass_shape(int64_t reduced, int64_t max_chunks, uint32_t max_group_log2 = 8) {
  PassShape shape;
  shape.group_log2 = std::min<uint32_t>(max_group_log2, ceil_log2(ceil_div(reduced, kChain)));
  shape.chunk = reduced;
  const int64_t max_group = int64_t{1} << max_group_log2;
  if (reduced > max_group * kChain) {
    shape.chunk = max_group * kChain;
    if (ceil_div(reduced, shape.chunk) > max_chunks) {
      shape.chunk = ceil_div(ceil_div(reduced, max_chunks), max_group) * max_group;
    }
    shape.chunks = ceil_div(reduced, shape.chunk);
  }
  return shape;
}

// What every pass of one reduction shares.
struct ReduceJob {
  VulkanDevice& device;
  VulkanStream& stream;
  std::string shader;
  uint32_t in_dtype;
  uint32_t out_dtype;
  KernelOp op;
  uint64_t param_bits;
  uint32_t state_size;
  bool texel_reads;  // float32 input and a shader with a *_texel variant (reduce_f32_subgroup_texel)
  uint32_t shuffle_group_log2;  // log2 of the widest group that merges by shuffles alone (0 without them)
};

// A run of reduction indices: the part of the reduced dims that one piece of a split reduction reads,
// and the index of its first element in the whole reduction.
struct InnerPiece {
  Box box;
  int64_t first_index = 0;
};

// Splits `box` (the reduced dims, operand 0 the input) into runs of consecutive reduction indices, each
// reaching at most `limit` elements of the input, by halving its outermost dim.
void split_inner(const Box& box, int64_t first_index, int64_t limit, std::vector<InnerPiece>& pieces) {
  if (box.reach(0) - box.base[0] <= limit) {
    pieces.push_back({box, first_index});
    return;
  }
  if (box.ndim == 0) throw Error("reduce: one element is larger than a buffer binding can reach");
  const int64_t inner_count = box.count() / box.sizes[0];
  if (box.sizes[0] == 1) {
    Box rest = box;
    for (int d = 1; d < box.ndim; ++d) {
      rest.sizes[d - 1] = box.sizes[d];
      for (int i = 0; i < kBoxOperands; ++i) rest.strides[i][d - 1] = box.strides[i][d];
    }
    --rest.ndim;
    split_inner(rest, first_index, limit, pieces);
    return;
  }
  const int64_t half = box.sizes[0] / 2;
  Box head = box;
  head.sizes[0] = half;
  Box tail = box;
  tail.sizes[0] = box.sizes[0] - half;
  for (int i = 0; i < kBoxOperands; ++i) tail.base[i] += half * box.strides[i][0];
  split_inner(head, first_index, limit, pieces);
  split_inner(tail, first_index + half * inner_count, limit, pieces);
}

// Where the last pass of a reduction writes: its results (values, indices or both), or, for one piece of
// reductions split along their reduced dims, one partial state per output into a shared scratch,
// starting at state `first_state` of `states`.
struct FinalTarget {
  std::optional<Window> out;
  std::optional<Window> indices;
  std::optional<Binding> states;
  uint32_t first_state = 0;
};

// Whether a pass over elements may read them four at a time (reduce.comp's READS_BLOCKS): 32-bit
// elements, a contiguous innermost reduced dim whose runs, like every other dim's step, the offset and
// the chunks, fall on whole blocks of four.
bool reads_blocks(const ReduceJob& job, const PassInput& input, const PassShape& shape) {
  const int dims = input.outer_ndim + input.inner_ndim;
  if (element_size(static_cast<DType>(job.in_dtype)) != 4 || input.inner_ndim == 0) return false;
  if (input.strides[dims - 1] != 1 || input.sizes[dims - 1] % kBlockElements != 0) return false;
  for (int d = 0; d < dims - 1; ++d) {
    if (input.strides[d] % kBlockElements != 0) return false;
  }
  return input.offset % kBlockElements == 0 && shape.chunk % kBlockElements == 0;
}

// Whether a pass over elements may read four outputs' elements at a time (reduce.comp's READS_COLUMNS):
// 32-bit elements, reduced dims, and a contiguous innermost kept dim of whole blocks of four; every
// other dim's step and the offset fall on whole blocks.
bool reads_columns(const ReduceJob& job, const PassInput& input) {
  const int dims = input.outer_ndim + input.inner_ndim;
  if (element_size(static_cast<DType>(job.in_dtype)) != 4 || input.outer_ndim == 0 || input.inner_ndim == 0) {
    return false;
  }
  const int innermost_kept = input.outer_ndim - 1;
  if (input.strides[innermost_kept] != 1 || input.sizes[innermost_kept] % kBlockElements != 0) return false;
  for (int d = 0; d < dims; ++d) {
    if (d != innermost_kept && input.strides[d] % kBlockElements != 0) return false;
  }
  return input.offset % kBlockElements == 0;
}

// Records the passes over one piece's `outputs` reductions: each pass reduces chunks of its input to
// partial states, until a pass has one chunk per output and writes to `target`. `spare` is a read-only
// binding for the slots a pass does not use.
void record_passes(const ReduceJob& job, PassInput input, int64_t outputs, const Binding& spare,
                   const FinalTarget& target) {
  const Context& context = job.device.context();
  const VkPhysicalDeviceLimits& limits = context.properties.limits;
  // Scratch states stay alive until the pass that reads them is recorded; after that, stream order
  // keeps later work behind it.
  std::shared_ptr<Allocation> states_read;
  while (true) {
    PassShape shape = pass_shape(input.reduced, limits.maxComputeWorkGroupCount[0]);
    bool columns = false;
    if (!input.states && reads_columns(job, input) && !reads_blocks(job, input, shape)) {
      const PassShape column_shape =
          pass_shape(input.reduced, limits.maxComputeWorkGroupCount[0], job.shuffle_group_log2);
      // Its extra chunks' states must fit a binding too.
      columns = column_shape.chunks == 1 ||
                static_cast<uint64_t>(outputs * column_shape.chunks) * job.state_size <= max_window_bytes(context);
      if (columns) shape = column_shape;
    }
    const bool final_pass = shape.chunks == 1;

    ReduceParams params{};
    params.param[0] = static_cast<uint32_t>(job.param_bits);
    params.param[1] = static_cast<uint32_t>(job.param_bits >> 32);
    params.in_offset = input.offset;
    params.outputs = static_cast<uint32_t>(outputs);
    params.reduced = static_cast<uint32_t>(input.reduced);
    params.chunk = static_cast<uint32_t>(shape.chunk);
    params.shape = shape.group_log2 | (static_cast<uint32_t>(input.outer_ndim) << 8) |
                   (static_cast<uint32_t>(input.inner_ndim) << 16);
    for (int d = 0; d < input.outer_ndim + input.inner_ndim; ++d) {
      params.sizes[d] = static_cast<uint32_t>(input.sizes[d]);
      params.strides[d] = static_cast<uint32_t>(input.strides[d]);
    }

    // Bindings: 0 values, 1 indices, 2 input elements, 3 input states, 4 output states; 5 the input
    // elements again, for the texel variant.
    Binding bindings[6];
    std::fill(std::begin(bindings), std::end(bindings), spare);
    uint32_t stage = 0;
    if (input.states) {
      stage |= kStageReadsStates;
      bindings[3] = input.binding;
    } else {
      bindings[2] = input.binding;
      if (columns) {
        stage |= kStageReadsColumns;
      } else if (reads_blocks(job, input, shape)) {
        stage |= kStageReadsBlocks;
      }
    }
    std::shared_ptr<Allocation> states_written;
    if (final_pass && target.states) {
      stage |= kStageWritesStates;
      bindings[4] = *target.states;
      params.out_offset = target.first_state;
    } else if (final_pass) {
      if (target.out) {
        bindings[0] = target.out->binding;
        params.out_offset = target.out->first_element;
        params.shape |= 1u << 24;
      }
      if (target.indices) {
        bindings[1] = target.indices->binding;
        params.idx_offset = target.indices->first_element;
        params.shape |= 1u << 25;
      }
    } else {
      stage |= kStageWritesStates;
      const int64_t count = outputs * shape.chunks;
      states_written = job.device.allocator().allocate(count * job.state_size, job.stream.shared_from_this());
      const Window window = element_window(context, states_written.get(), 0, job.state_size, count, true);
      if (window.first_element != 0) throw Error("reduce: scratch states are not aligned");
      bindings[4] = window.binding;
    }

    // Float32 blocks read through a texel view where there is a texel variant (the float32 subgroup one):
    // a sum over 64×32×28×28 floats took 3.7 ms per pass through storage loads on lavapipe (below).
    bindings[5] = bindings[2];
    const bool texels = job.texel_reads && (stage & (kStageReadsBlocks | kStageReadsColumns)) != 0 &&
                        can_read_as_texels(context, bindings[2]);
    const Pipeline& pipeline = job.device.pipelines().get(
        texels ? job.shader + "_texel" : job.shader, {job.in_dtype, job.out_dtype, static_cast<uint32_t>(job.op), stage});
    const int64_t slots = (stage & kStageReadsColumns) != 0 ? outputs / kBlockElements : outputs;
    const int64_t output_groups = ceil_div(slots, kWorkgroupSize >> shape.group_log2);
    const uint32_t groups_y =
        static_cast<uint32_t>(std::min<int64_t>(output_groups, limits.maxComputeWorkGroupCount[1]));
    job.stream.dispatch(pipeline, std::span<const Binding>(bindings, texels ? 6 : 5), &params, sizeof params,
                        static_cast<uint32_t>(shape.chunks), groups_y);
    if (final_pass) return;

    // The next pass reduces the states: outputs × chunks, contiguous.
    states_read = states_written;
    input.states = true;
    input.binding = bindings[4];
    input.binding.write = false;
    input.offset = 0;
    input.outer_ndim = 1;
    input.inner_ndim = 1;
    input.sizes = {outputs, shape.chunks};
    input.strides = {shape.chunks, 1};
    input.reduced = shape.chunks;
  }
}

// Whether the device can run reduce.comp's SUBGROUP_MERGE variants: shuffles in compute shaders, and
// subgroups of a power of two that divides the workgroup.
bool can_merge_in_subgroups(VulkanDevice& device) {
  const uint32_t size = device.info().subgroup_size;
  return size > 1 && (size & (size - 1)) == 0 && size <= kWorkgroupSize && compute_subgroup_shuffles(device);
}

class VulkanReduce final : public ReduceKernels {
 public:
  explicit VulkanReduce(VulkanDevice& device) : device_(device), subgroups_(can_merge_in_subgroups(device)) {}
  void reduce(Stream& stream, const ReduceArgs& args) override;
  void scan(Stream& stream, const ScanArgs& args) override;

 private:
  // Where the device can, unless EMBER_REDUCE_SUBGROUPS=0 (read at each call, as tests flip it).
  bool merges_in_subgroups() const {
    const char* switch_value = std::getenv("EMBER_REDUCE_SUBGROUPS");
    return subgroups_ && (switch_value == nullptr || std::string(switch_value) != "0");
  }

  VulkanDevice& device_;
  const bool subgroups_;
};

void VulkanReduce::reduce(Stream& stream, const ReduceArgs& args) {
  const ReduceOp op = args.op;
  const TensorRef* out = args.out ? &*args.out : nullptr;
  const TensorRef* indices = args.indices ? &*args.indices : nullptr;
  const TensorRef& in = args.in;
  const uint32_t reduce_mask = args.reduce_mask;
  DType compute = args.compute;
  const double param = op == ReduceOp::Norm ? args.p : args.correction;
  const std::string name(reduce_op_name(op));
  args.check();
  for (int d = 0; d < in.ndim; ++d) {
    if (in.strides[d] < 0) throw UnsupportedError("reduce: negative strides");
  }
  const KernelOp kop = kernel_op(op, param);
  const bool index_op = writes_indices(op);
  if (op == ReduceOp::Argmax || op == ReduceOp::Argmin) out = nullptr;
  if (!index_op) indices = nullptr;
  // These ops only compare with zero, which the input's own dtype does exactly.
  if (kop == KernelOp::All || kop == KernelOp::Any || kop == KernelOp::CountNonzero) compute = in.dtype;
  require_dtype(device_, in.dtype, "reduce " + name);
  require_dtype(device_, compute, "reduce " + name);
  if (out) require_dtype(device_, out->dtype, "reduce " + name);
  require_float64_compute({&in, out}, compute, "reduce " + name);

  // Kept dims become outer dims (operand 0: the input, 1: the output position); reduced dims inner.
  Box outer;
  Box inner;
  int64_t outputs = 1;
  int64_t reduced = 1;
  for (int d = 0; d < in.ndim; ++d) {
    if (reduce_mask & (1u << d)) {
      reduced *= in.sizes[d];
    } else {
      outputs *= in.sizes[d];
    }
  }
  if (outputs == 0) return;
  if (reduced == 0) {
    // args.check() has rejected the ops without an identity, and indices.
    const std::optional<Scalar> value = empty_result(kop);
    if (!value || indices) throw Error("reduce " + name + ": the reduction has no elements");
    device_.kernels().get<MemoryKernels>().fill(stream, {*out, *value});
    return;
  }
  if (reduced > kMaxCount) {
    throw UnsupportedError("reduce " + name + ": more than 2^32 - 2^25 elements per output");
  }
  {
    int64_t out_stride = outputs;
    for (int d = 0; d < in.ndim; ++d) {
      if (reduce_mask & (1u << d)) continue;
      out_stride /= in.sizes[d];
      outer.push_dim(in.sizes[d], {in.strides[d], out_stride, 0});
    }
    // Dims in stride order read memory in order; the arg-ops keep the input's order, which their
    // indices count in.
    std::vector<int> reduced_dims;
    for (int d = 0; d < in.ndim; ++d) {
      if (reduce_mask & (1u << d)) reduced_dims.push_back(d);
    }
    if (!index_op) {
      std::stable_sort(reduced_dims.begin(), reduced_dims.end(),
                       [&](int a, int b) { return in.strides[a] > in.strides[b]; });
    }
    for (int d : reduced_dims) inner.push_dim(in.sizes[d], {in.strides[d], 0, 0});
  }
  if (inner.ndim > kReduceMaxDims - 1) {
    throw UnsupportedError("reduce " + name + ": more than " + std::to_string(kReduceMaxDims - 1) +
                           " reduced dims that cannot merge; make the input contiguous first");
  }

  const Context& context = device_.context();
  const uint64_t max_window = max_window_bytes(context);
  const uint32_t in_size = static_cast<uint32_t>(element_size(in.dtype));
  const uint32_t out_size = out ? static_cast<uint32_t>(element_size(out->dtype)) : 0;
  const int64_t inner_reach = inner.reach(0) - 1;  // beyond the outer position's first element
  const ReduceJob job{
      device_,
      vulkan_stream(stream),
      "reduce_" + std::string(compute_suffix(compute)) + (merges_in_subgroups() ? "_subgroup" : ""),
      static_cast<uint32_t>(in.dtype),
      // Argmax and Argmin share Max's and Min's pipelines, whose values would have the input's dtype.
      static_cast<uint32_t>(out ? out->dtype : in.dtype),
      kop,
      // Max and Min read their parameter as the first reduction index (nonzero only in split pieces).
      kop == KernelOp::Max || kop == KernelOp::Min
          ? uint64_t{0}
          : Scalar(kop == KernelOp::Mean ? static_cast<double>(reduced) : param).bits_as(compute_storage(compute)),
      state_bytes(compute),
      in.dtype == DType::Float32 && compute == DType::Float32 && merges_in_subgroups(),
      merges_in_subgroups() ? std::min<uint32_t>(8, ceil_log2(device_.info().subgroup_size)) : 0,
  };

  // The reductions run in pieces of their reduced dims when one output's slice of the input is wider
  // than a binding: each piece (a run of reduction indices) writes one partial state per output, and a
  // last pass merges every output's states.
  std::vector<InnerPiece> pieces;
  const uint64_t piece_limit = max_window / 2 / in_size;
  if (static_cast<uint64_t>(inner_reach + 1) <= piece_limit) {
    pieces.push_back({inner, 0});
  } else {
    split_inner(inner, 0, static_cast<int64_t>(piece_limit), pieces);
  }
  int64_t piece_reach = 0;  // elements from a piece's first to one past its furthest
  int64_t piece_reduced = 0;
  for (const InnerPiece& piece : pieces) {
    piece_reach = std::max(piece_reach, piece.box.reach(0) - piece.box.base[0]);
    piece_reduced = std::max(piece_reduced, piece.box.count());
  }
  const auto piece_count = static_cast<int64_t>(pieces.size());
  // The pieces' states, piece by piece, each the outputs in order.
  std::shared_ptr<Allocation> piece_states;
  std::optional<Window> piece_states_window;
  if (piece_count > 1) {
    const int64_t states = piece_count * outputs;
    if (static_cast<uint64_t>(states) * job.state_size > max_window) {
      throw UnsupportedError("reduce " + name + ": the partial states of " + std::to_string(outputs) +
                             " outputs over " + std::to_string(piece_count) +
                             " pieces are larger than a buffer binding of this device can reach");
    }
    piece_states = device_.allocator().allocate(states * job.state_size, job.stream.shared_from_this());
    piece_states_window = element_window(context, piece_states.get(), 0, job.state_size, states, true);
    if (piece_states_window->first_element != 0) throw Error("reduce: scratch states are not aligned");
  }

  auto fits = [&](const Box& block) {
    const int64_t count = block.count();
    if (count > kMaxCount) return false;
    const uint64_t in_bytes = static_cast<uint64_t>(block.reach(0) + piece_reach - 1 - block.base[0]) * in_size;
    // The first pass's states, when there are several chunks, outnumber the outputs.
    const int64_t states = count * ceil_div(piece_reduced, kWorkgroupSize * kChain);
    return in_bytes <= max_window &&
           static_cast<uint64_t>(count) * std::max<uint32_t>(out_size, 8) <= max_window &&
           static_cast<uint64_t>(states) * job.state_size <= max_window;
  };

  // Where a block's results go, for `block_outputs` outputs from output `first`.
  auto result_target = [&](int64_t first, int64_t block_outputs) {
    FinalTarget target;
    if (out) {
      target.out = element_window(context, out->allocation, out->byte_offset + first * out_size, out_size,
                                  block_outputs, true);
    }
    if (indices) {
      target.indices = element_window(context, indices->allocation, indices->byte_offset + first * 8, 8,
                                      block_outputs, true);
    }
    return target;
  };

  auto launch = [&](const Box& block) {
    const int64_t block_outputs = block.count();
    for (int64_t k = 0; k < piece_count; ++k) {
      const InnerPiece& piece = pieces[k];
      const int64_t first = block.base[0] + piece.box.base[0];
      const Window in_window = element_window(context, in.allocation, in.byte_offset + first * in_size, in_size,
                                              block.reach(0) - block.base[0] + piece.box.reach(0) - piece.box.base[0] - 1,
                                              false);
      PassInput input;
      input.binding = in_window.binding;
      input.offset = in_window.first_element;
      input.outer_ndim = block.ndim;
      input.inner_ndim = piece.box.ndim;
      for (int d = 0; d < block.ndim; ++d) {
        input.sizes[d] = block.sizes[d];
        input.strides[d] = block.strides[0][d];
      }
      for (int d = 0; d < piece.box.ndim; ++d) {
        input.sizes[block.ndim + d] = piece.box.sizes[d];
        input.strides[block.ndim + d] = piece.box.strides[0][d];
      }
      input.reduced = piece.box.count();
      if (piece_count == 1) {
        record_passes(job, input, block_outputs, in_window.binding, result_target(block.base[1], block_outputs));
        continue;
      }
      // Max and Min ignore the parameter: it carries the piece's first reduction index instead.
      ReduceJob piece_job = job;
      if (kop == KernelOp::Max || kop == KernelOp::Min) piece_job.param_bits = static_cast<uint64_t>(piece.first_index);
      FinalTarget target;
      target.states = piece_states_window->binding;
      target.first_state = static_cast<uint32_t>(k * outputs + block.base[1]);
      record_passes(piece_job, input, block_outputs, in_window.binding, target);
    }
  };

  split_box(outer, kReduceMaxDims - inner.ndim, fits, launch, "reduce " + name);
  if (piece_count == 1) return;

  // The last pass: each output merges its states of every piece (piece-major, so `outputs` apart).
  PassInput merge;
  merge.states = true;
  merge.binding = piece_states_window->binding;
  merge.binding.write = false;
  merge.outer_ndim = 1;
  merge.inner_ndim = 1;
  merge.sizes = {outputs, piece_count};
  merge.strides = {1, outputs};
  merge.reduced = piece_count;
  record_passes(job, merge, outputs, merge.binding, result_target(0, outputs));
}

void VulkanReduce::scan(Stream& stream, const ScanArgs& args) {
  const ScanOp op = args.op;
  const TensorRef& out = args.out;
  const TensorRef* indices = args.indices ? &*args.indices : nullptr;
  const TensorRef& in = args.in;
  const int dim = args.dim;
  const DType compute = args.compute;
  const std::string name(scan_op_name(op));
  const bool index_op = op == ScanOp::CumMax || op == ScanOp::CumMin;
  args.check();
  if (!index_op) indices = nullptr;
  for (const TensorRef* ref : {&in, &out, indices}) {
    if (!ref) continue;
    for (int d = 0; d < ref->ndim; ++d) {
      if (ref->strides[d] < 0) throw UnsupportedError("scan: negative strides");
    }
  }
  require_dtype(device_, in.dtype, "scan " + name);
  require_dtype(device_, out.dtype, "scan " + name);
  require_dtype(device_, compute, "scan " + name);
  require_float64_compute({&in, &out}, compute, "scan " + name);

  // Rows are the positions of the other dims; operands 0 input, 1 out, 2 indices.
  Box rows;
  for (int d = 0; d < in.ndim; ++d) {
    if (d == dim) continue;
    rows.push_dim(in.sizes[d], {in.strides[d], out.strides[d], indices ? indices->strides[d] : 0});
  }
  const int64_t length = in.ndim == 0 ? 1 : in.sizes[dim];
  const std::array<int64_t, kBoxOperands> steps = {in.ndim == 0 ? 0 : in.strides[dim],
                                                   in.ndim == 0 ? 0 : out.strides[dim],
                                                   indices && in.ndim > 0 ? indices->strides[dim] : 0};
  if (length == 0 || rows.count() == 0) return;
  if (length > kMaxCount) {
    throw UnsupportedError("scan " + name + ": rows of more than 2^32 - 2^25 elements");
  }

  VulkanStream& vs = vulkan_stream(stream);
  const Context& context = device_.context();
  const VkPhysicalDeviceLimits& limits = context.properties.limits;
  const uint64_t max_window = max_window_bytes(context);
  const std::array<const TensorRef*, kBoxOperands> operands = {&in, &out, indices};
  const std::string shader = "scan_" + std::string(compute_suffix(compute));
  auto pipeline = [&](uint32_t stage) -> const Pipeline& {
    return device_.pipelines().get(shader, {static_cast<uint32_t>(in.dtype), static_cast<uint32_t>(out.dtype),
                                            static_cast<uint32_t>(op), stage});
  };
  const DType storage = compute_storage(compute);
  const uint32_t total_bytes = (storage == DType::Float64 || storage == DType::Int64 ? 2 : 1) * 4 + 4;

  // Elements of operand i that a piece reaches, from its first.
  auto reach = [&](const Box& piece, int i) {
    return piece.reach(i) - piece.base[i] + (length - 1) * steps[i];
  };
  auto fits = [&](const Box& piece) {
    if (piece.count() > kMaxCount) return false;
    for (int i = 0; i < kBoxOperands; ++i) {
      if (operands[i] &&
          static_cast<uint64_t>(reach(piece, i)) * element_size(operands[i]->dtype) > max_window) {
        return false;
      }
    }
    return true;
  };
  auto launch = [&](const Box& piece) {
    ScanParams params{};
    // Bindings: 0 out, 1 indices, 2 in, 3 chunk totals. Absent ones see the input window, read-only.
    Binding bindings[4];
    uint32_t* offsets[3] = {&params.in_offset, &params.out_offset, &params.idx_offset};
    for (int i = 0; i < kBoxOperands; ++i) {
      const TensorRef& ref = operands[i] ? *operands[i] : in;
      const int operand = operands[i] ? i : 0;
      const uint32_t size = static_cast<uint32_t>(element_size(ref.dtype));
      const Window window =
          element_window(context, ref.allocation, ref.byte_offset + piece.base[operand] * size, size,
                         reach(piece, operand), operands[i] && i > 0);
      bindings[i == 0 ? 2 : i - 1] = window.binding;
      *offsets[i] = window.first_element;
    }
    bindings[3] = bindings[2];
    const int64_t row_count = piece.count();
    params.rows = static_cast<uint32_t>(row_count);
    params.row_length = static_cast<uint32_t>(length);
    params.shape = (static_cast<uint32_t>(piece.ndim) << 8) | (indices ? 1u << 16 : 0u);
    params.in_step = static_cast<uint32_t>(steps[0]);
    params.out_step = static_cast<uint32_t>(steps[1]);
    params.idx_step = static_cast<uint32_t>(steps[2]);
    for (int d = 0; d < piece.ndim; ++d) {
      params.sizes[d] = static_cast<uint32_t>(piece.sizes[d]);
      params.in_strides[d] = static_cast<uint32_t>(piece.strides[0][d]);
      params.out_strides[d] = static_cast<uint32_t>(piece.strides[1][d]);
      params.idx_strides[d] = static_cast<uint32_t>(piece.strides[2][d]);
    }
    const uint32_t max_y = limits.maxComputeWorkGroupCount[1];

    if (length <= kLongRow || row_count >= kFewRows) {
      const uint32_t group_log2 = std::min<uint32_t>(8, ceil_log2(ceil_div(length, kScanChain)));
      params.shape |= group_log2;
      const int64_t row_groups = ceil_div(row_count, kWorkgroupSize >> group_log2);
      vs.dispatch(pipeline(kScanWholeRows), bindings, &params, sizeof params, 1,
                  static_cast<uint32_t>(std::min<int64_t>(row_groups, max_y)));
      return;
    }
    // Few long rows: one pass totals each chunk, the next scans each chunk after the totals before it.
    const int64_t chunk = std::max(kScanChunk, ceil_div(length, limits.maxComputeWorkGroupCount[0]));
    const int64_t chunks = ceil_div(length, chunk);
    params.chunk = static_cast<uint32_t>(chunk);
    std::shared_ptr<Allocation> totals =
        device_.allocator().allocate(row_count * chunks * total_bytes, stream.shared_from_this());
    const Window totals_window =
        element_window(context, totals.get(), 0, total_bytes, row_count * chunks, true);
    if (totals_window.first_element != 0) throw Error("scan: scratch totals are not aligned");
    const uint32_t groups_y = static_cast<uint32_t>(std::min<int64_t>(row_count, max_y));
    bindings[3] = totals_window.binding;
    vs.dispatch(pipeline(kScanChunkTotals), bindings, &params, sizeof params, static_cast<uint32_t>(chunks),
                groups_y);
    bindings[3].write = false;
    vs.dispatch(pipeline(kScanChunksFromTotals), bindings, &params, sizeof params,
                static_cast<uint32_t>(chunks), groups_y);
  };
  split_box(rows, kScanMaxDims, fits, launch, "scan " + name);
}

}  // namespace

EMBER_VULKAN_KERNELS(ReduceKernels, VulkanReduce);

}  // namespace ember::vulkan
