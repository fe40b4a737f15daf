#pragma once
// The pool kernel family: max, average and adaptive pooling over the last two dims, forward and
// backward. The ops come from pool_ops.def.
//
// A tensor is a stack of planes (every dim but the last two) of height x width. Output (oh, ow) of a
// plane pools a window of the same plane of the input, per spatial dim:
//   Max, Avg:  positions o * stride - padding + k * dilation for k in [0, kernel), those inside the input
//              (Avg has dilation 1);
//   Adaptive:  [floor(o * in / out), ceil((o + 1) * in / out)).
// Max writes the window's largest element and its position h * width + w in the input plane: the first
// largest one, except that a NaN wins over any number and a later NaN over an earlier one (PyTorch's CPU
// rule); a window of -inf only gives its first position. Avg divides the window's sum by
// divisor_override when it is nonzero, else by the window's size clipped to the input and its padding
// (count_include_pad) or to the input alone. AdaptiveAvg divides by the window's size.
//
// Backward writes every element of grad_in once: the sum of grad_out over the windows that hold it
// (divided as the forward divides), for the max ops over the outputs whose index names it. It gathers
// over output windows, so it needs no atomics and gives the same sums on every backend.
#include <array>
#include <optional>

#include "runtime/kernels/kernels.h"
#include "runtime/kernels/op_list.h"

namespace ember {

enum class PoolOp : uint8_t {
#define EMBER_POOL_OP(Enum, name) Enum,
#include "runtime/kernels/pool_ops.def"
#undef EMBER_POOL_OP
};
inline constexpr std::string_view kPoolOpNames[] = {
#define EMBER_POOL_OP(Enum, name) #name,
#include "runtime/kernels/pool_ops.def"
#undef EMBER_POOL_OP
};
inline constexpr size_t kPoolOpCount = std::size(kPoolOpNames);
constexpr std::string_view pool_op_name(PoolOp op) { return op_name(op, kPoolOpNames); }
constexpr bool is_max_pool(PoolOp op) { return op == PoolOp::Max || op == PoolOp::AdaptiveMax; }
constexpr bool is_adaptive_pool(PoolOp op) { return op == PoolOp::AdaptiveMax || op == PoolOp::AdaptiveAvg; }

// One spatial dim of a Max or Avg window (adaptive windows ignore it).
struct PoolWindow {
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t padding = 0;
  int64_t dilation = 1;
};

// What the windows are, shared by forward and backward.
struct PoolGeometry {
  PoolOp op = PoolOp::Max;
  std::array<PoolWindow, 2> window;  // height, width
  bool count_include_pad = true;     // Avg
  int64_t divisor_override = 0;      // Avg: 0 for none, else divides every window (negative too)
};

// out (and indices) = the windows of `in`. in and out have at least two dims and the same planes (the
// dims before the last two); out's last two dims are the output's height and width. Floating dtypes:
// out has in's dtype, indices (the max ops only, required there) are int64 with out's sizes.
struct PoolArgs {
  PoolGeometry geometry;
  TensorRef out;
  std::optional<TensorRef> indices;
  TensorRef in;
  // Throws Error unless the fields are as described above. Both backends check with it.
  void check() const;
};

// grad_in = the gradient of the forward with respect to its input, given grad_out (out's sizes) and,
// for the max ops, the forward's indices. grad_in (in's sizes) is written whole; it must not overlap the
// other operands.
struct PoolBackwardArgs {
  PoolGeometry geometry;
  TensorRef grad_in;
  TensorRef grad_out;
  std::optional<TensorRef> indices;
  void check() const;
};

class PoolKernels : public KernelFamily {
 public:
  static constexpr std::string_view kName = "pool";
  virtual void pool(Stream& stream, const PoolArgs& args) = 0;
  virtual void pool_backward(Stream& stream, const PoolBackwardArgs& args) = 0;
};

}  // namespace ember
