// Launchers of the reductions (reduce.comp) and scans (scan.comp).
//
// A reduction is planned as outer dims (the kept dims, one result each, in output order) and inner dims
// (the reduced ones), each merged where memory allows. Groups of 2^k invocations share an output, with
// k chosen so that each invocation merges at most kChain elements in sequence; a reduction longer than
// one workgroup's share is cut into chunks whose partial states go to a scratch buffer, and passes over
// the states follow until one state per output is left.
//
// Limits, each an UnsupportedError: a reduction of 2^32 - 1 elements or more per output; one output's
// slice of the input (or one scan row) wider than a buffer binding (128 MiB on lavapipe: other launches
// split along outer dims to fit); more than 11 reduced dims that cannot merge (make the input contiguous).
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "runtime/allocator.h"
#include "runtime/error.h"
#include "shaders/reduce_plan.h"
#include "shaders/vulkan_kernels.h"

namespace ember::vulkan {

namespace {

// The shader's ops (reduce_ops.glsl); Argmax and Argmin run as Max and Min without values.
enum class KernelOp : uint32_t {
  Sum, Prod, Mean, NanSum, NanMean, Max, Min, Amax, Amin, Var, Std,
  Norm0, Norm1, Norm2, NormInf, NormNegInf, NormP, LogSumExp, All, Any, CountNonzero,
};

constexpr int kReduceMaxDims = 11;     // MAX_DIMS in reduce.comp
constexpr int64_t kChain = 32;         // elements one invocation merges in sequence, at most, per pass
constexpr uint32_t kStageReadsStates = 1;
constexpr uint32_t kStageWritesStates = 2;

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

const KernelAbi kAbis[] = {
    {"reduce_f32", 5, sizeof(ReduceParams)},
    {"reduce_f64", 5, sizeof(ReduceParams)},
    {"reduce_i32", 5, sizeof(ReduceParams)},
    {"reduce_i64", 5, sizeof(ReduceParams)},
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

bool needs_floating_compute(KernelOp op) {
  switch (op) {
    case KernelOp::Mean: case KernelOp::NanMean: case KernelOp::Var: case KernelOp::Std:
    case KernelOp::Norm0: case KernelOp::Norm1: case KernelOp::Norm2: case KernelOp::NormInf:
    case KernelOp::NormNegInf: case KernelOp::NormP: case KernelOp::LogSumExp: return true;
    default: return false;
  }
}

// What a reduction of no elements gives; nothing for the ops that have no identity.
std::optional<Scalar> empty_result(KernelOp op) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  switch (op) {
    case KernelOp::Prod: case KernelOp::All: return Scalar(1.0);
    case KernelOp::Mean: case KernelOp::NanMean: case KernelOp::Var: case KernelOp::Std:
      return Scalar(nan);
    case KernelOp::LogSumExp: return Scalar(-std::numeric_limits<double>::infinity());
    case KernelOp::Max: case KernelOp::Min: case KernelOp::Amax: case KernelOp::Amin:
    case KernelOp::NormInf: case KernelOp::NormNegInf: return std::nullopt;
    default: return Scalar(0.0);
  }
}

uint32_t state_bytes(DType compute) {
  const DType storage = compute_storage(compute);
  const uint32_t value_words = storage == DType::Float64 || storage == DType::Int64 ? 2 : 1;
  return (2 * value_words + 1) * 4;
}

void require_contiguous_result(const TensorRef& ref, int64_t outputs, const char* what) {
  if (!ref.is_contiguous() || ref.numel() != outputs) {
    throw Error(std::string("reduce: ") + what + " must be contiguous with " + std::to_string(outputs) +
                " elements (the kept dims), got " + std::to_string(ref.numel()));
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

}  // namespace

std::span<const KernelAbi> reduce_kernel_abis() { return kAbis; }

void VulkanKernels::reduce(Stream& stream, ReduceOp op, const TensorRef* out, const TensorRef* indices,
                           const TensorRef& in, uint32_t reduce_mask, DType compute, double param) {
  const std::string name(reduce_op_name(op));
  if (in.ndim < 0 || in.ndim > kMaxDims) throw Error("reduce: at most 16 dims");
  if (in.ndim < 32 && (reduce_mask >> in.ndim) != 0) {
    throw Error("reduce: the mask names dims that the input does not have");
  }
  for (int d = 0; d < in.ndim; ++d) {
    if (in.strides[d] < 0) throw UnsupportedError("reduce: negative strides");
  }
  const KernelOp kop = kernel_op(op, param);
  const bool index_op = writes_indices(op);
  if (op == ReduceOp::Argmax || op == ReduceOp::Argmin) out = nullptr;
  if (!index_op) indices = nullptr;
  if (!out && !indices) throw Error("reduce " + name + ": no output given");
  if (!index_op && !out) throw Error("reduce " + name + ": needs an output");
  if ((op == ReduceOp::Argmax || op == ReduceOp::Argmin) && !indices) {
    throw Error("reduce " + name + ": needs an indices output");
  }
  if (indices && indices->dtype != DType::Int64) throw Error("reduce: indices must be int64");
  // These ops only compare with zero, which the input's own dtype does exactly.
  if (kop == KernelOp::All || kop == KernelOp::Any || kop == KernelOp::CountNonzero) compute = in.dtype;
  if (needs_floating_compute(kop) && !is_floating_point(compute)) {
    throw Error("reduce " + name + ": needs a floating-point compute dtype, got " +
                std::string(dtype_name(compute)));
  }
  require_dtype(device_, in.dtype, "reduce " + name);
  require_dtype(device_, compute, "reduce " + name);
  if (out) require_dtype(device_, out->dtype, "reduce " + name);

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
  if (out) require_contiguous_result(*out, outputs, "out");
  if (indices) require_contiguous_result(*indices, outputs, "indices");
  if (outputs == 0) return;
  if (reduced == 0) {
    const std::optional<Scalar> value = empty_result(kop);
    if (!value || indices) throw Error("reduce " + name + ": the reduction has no elements");
    fill(stream, *out, *value);
    return;
  }
  if (reduced >= std::numeric_limits<uint32_t>::max()) {
    throw UnsupportedError("reduce " + name + ": more than 2^32 - 2 elements per output");
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

  VulkanStream& vs = vulkan_stream(stream);
  const Context& context = device_.context();
  const VkPhysicalDeviceLimits& limits = context.properties.limits;
  const uint64_t max_window = max_window_bytes(context);
  const uint32_t in_size = static_cast<uint32_t>(element_size(in.dtype));
  const uint32_t out_size = out ? static_cast<uint32_t>(element_size(out->dtype)) : 0;
  const uint32_t state_size = state_bytes(compute);
  const int64_t inner_reach = inner.reach(0) - 1;  // beyond the outer position's first element
  const std::string shader = "reduce_" + std::string(compute_suffix(compute));
  const uint32_t out_dt = static_cast<uint32_t>(out ? out->dtype : compute_storage(compute));

  double param_value = param;
  if (kop == KernelOp::Mean) param_value = static_cast<double>(reduced);
  const uint64_t param_bits = Scalar(param_value).bits_as(compute_storage(compute));

  auto fits = [&](const Box& piece) {
    const int64_t count = piece.count();
    if (count > std::numeric_limits<uint32_t>::max()) return false;
    const uint64_t in_bytes = static_cast<uint64_t>(piece.reach(0) + inner_reach - piece.base[0]) * in_size;
    return in_bytes <= max_window && static_cast<uint64_t>(count) * std::max<uint32_t>(out_size, 8) <= max_window &&
           static_cast<uint64_t>(count) * state_size <= max_window;
  };

  auto launch = [&](const Box& piece) {
    const int64_t piece_outputs = piece.count();
    const Window in_window =
        element_window(context, in.allocation, in.byte_offset + piece.base[0] * in_size, in_size,
                       piece.reach(0) + inner_reach - piece.base[0], false);
    std::optional<Window> out_window, idx_window;
    if (out) {
      out_window = element_window(context, out->allocation, out->byte_offset + piece.base[1] * out_size,
                                  out_size, piece_outputs, true);
    }
    if (indices) {
      idx_window = element_window(context, indices->allocation, indices->byte_offset + piece.base[1] * 8,
                                  8, piece_outputs, true);
    }

    PassInput input;
    input.binding = in_window.binding;
    input.offset = in_window.first_element;
    input.outer_ndim = piece.ndim;
    input.inner_ndim = inner.ndim;
    for (int d = 0; d < piece.ndim; ++d) {
      input.sizes[d] = piece.sizes[d];
      input.strides[d] = piece.strides[0][d];
    }
    for (int d = 0; d < inner.ndim; ++d) {
      input.sizes[piece.ndim + d] = inner.sizes[d];
      input.strides[piece.ndim + d] = inner.strides[0][d];
    }
    input.reduced = reduced;

    // Scratch states stay alive until the pass that reads them is recorded; after that, stream order
    // keeps later work behind it.
    std::shared_ptr<Allocation> states_read;
    while (true) {
      const uint32_t group_log2 = std::min<uint32_t>(8, ceil_log2(ceil_div(input.reduced, kChain)));
      int64_t chunk = input.reduced;
      int64_t chunks = 1;
      if (input.reduced > kWorkgroupSize * kChain) {
        chunk = kWorkgroupSize * kChain;
        const int64_t max_chunks = limits.maxComputeWorkGroupCount[0];
        if (ceil_div(input.reduced, chunk) > max_chunks) {
          chunk = ceil_div(ceil_div(input.reduced, max_chunks), kWorkgroupSize) * kWorkgroupSize;
        }
        chunks = ceil_div(input.reduced, chunk);
      }
      const bool final_pass = chunks == 1;

      ReduceParams params{};
      params.param[0] = static_cast<uint32_t>(param_bits);
      params.param[1] = static_cast<uint32_t>(param_bits >> 32);
      params.in_offset = input.offset;
      params.outputs = static_cast<uint32_t>(piece_outputs);
      params.reduced = static_cast<uint32_t>(input.reduced);
      params.chunk = static_cast<uint32_t>(chunk);
      params.shape = group_log2 | (static_cast<uint32_t>(input.outer_ndim) << 8) |
                     (static_cast<uint32_t>(input.inner_ndim) << 16);
      for (int d = 0; d < input.outer_ndim + input.inner_ndim; ++d) {
        params.sizes[d] = static_cast<uint32_t>(input.sizes[d]);
        params.strides[d] = static_cast<uint32_t>(input.strides[d]);
      }

      // Bindings: 0 values, 1 indices, 2 input elements, 3 input states, 4 output states. Those a pass
      // does not use see the input window, read-only.
      Binding bindings[5];
      std::fill(std::begin(bindings), std::end(bindings), in_window.binding);
      uint32_t stage = input.states ? kStageReadsStates : 0;
      if (input.states) bindings[3] = input.binding;
      std::shared_ptr<Allocation> states_written;
      if (final_pass) {
        if (out_window) {
          bindings[0] = out_window->binding;
          params.out_offset = out_window->first_element;
          params.shape |= 1u << 24;
        }
        if (idx_window) {
          bindings[1] = idx_window->binding;
          params.idx_offset = idx_window->first_element;
          params.shape |= 1u << 25;
        }
      } else {
        stage |= kStageWritesStates;
        const int64_t count = piece_outputs * chunks;
        states_written = device_.allocator().allocate(count * state_size, stream.shared_from_this());
        const Window window = element_window(context, states_written.get(), 0, state_size, count, true);
        if (window.first_element != 0) throw Error("reduce: scratch states are not aligned");
        bindings[4] = window.binding;
      }

      const Pipeline& pipeline = device_.pipelines().get(
          shader, {static_cast<uint32_t>(in.dtype), out_dt, static_cast<uint32_t>(kop), stage});
      const int64_t output_groups = ceil_div(piece_outputs, kWorkgroupSize >> group_log2);
      const uint32_t groups_y =
          static_cast<uint32_t>(std::min<int64_t>(output_groups, limits.maxComputeWorkGroupCount[1]));
      vs.dispatch(pipeline, bindings, &params, sizeof params, static_cast<uint32_t>(chunks), groups_y);
      if (final_pass) break;

      // The next pass reduces the states: outputs × chunks, contiguous.
      states_read = states_written;
      input.states = true;
      input.binding = bindings[4];
      input.binding.write = false;
      input.offset = 0;
      input.outer_ndim = 1;
      input.inner_ndim = 1;
      input.sizes = {piece_outputs, chunks};
      input.strides = {chunks, 1};
      input.reduced = chunks;
    }
  };

  split_box(outer, kReduceMaxDims - inner.ndim, fits, launch, "reduce " + name);
}

void VulkanKernels::scan(Stream&, ScanOp, const TensorRef&, const TensorRef*, const TensorRef&, int,
                         DType) {
  missing("scan");
}

}  // namespace ember::vulkan
