#pragma once
// The upsample kernel family: resampling the last two dims (height, width) of a stack of planes to a new
// size, forward and backward, with PyTorch's CPU rules (interpolate's nearest, nearest-exact, linear and
// bilinear; a 1-d signal is a plane of height 1). The ops come from upsample_ops.def.
//
// Per spatial dim, an output position o of n over an input of m reads:
//   Nearest:       min(floor(o * s), m - 1) with s = 1 / scale, or m / n without a scale, in float32; and
//                  with nearest_shortcuts, o itself when n == m and o / 2 when n == 2m whatever the scale
//                  (PyTorch's CPU backward has these shortcuts, its forward only on channels-last inputs);
//   NearestExact:  min(floor((o + 0.5) * s), m - 1);
//   Linear:        x = s * o with align_corners (s = (m - 1) / (n - 1), 0 when n == 1), else
//                  max(s * (o + 0.5) - 0.5, 0); positions i = min(floor(x), m - 1) and i + 1 (i alone at
//                  the last), weighted 1 - (x - i) and x - i. s is computed in the compute dtype. When
//                  n == m, o itself (PyTorch's shortcut, which ignores the scale).
// Backward writes every element of grad_in once: the sum of grad_out over the outputs that read it,
// times the weights they read it with. It gathers over outputs, so it needs no atomics.
#include <array>
#include <optional>

#include "runtime/kernels/kernels.h"
#include "runtime/kernels/op_list.h"

namespace ember {

enum class UpsampleOp : uint8_t {
#define EMBER_UPSAMPLE_OP(Enum, name) Enum,
#include "runtime/kernels/upsample_ops.def"
#undef EMBER_UPSAMPLE_OP
};
inline constexpr std::string_view kUpsampleOpNames[] = {
#define EMBER_UPSAMPLE_OP(Enum, name) #name,
#include "runtime/kernels/upsample_ops.def"
#undef EMBER_UPSAMPLE_OP
};
inline constexpr size_t kUpsampleOpCount = std::size(kUpsampleOpNames);
constexpr std::string_view upsample_op_name(UpsampleOp op) { return op_name(op, kUpsampleOpNames); }

// How outputs find their sources, shared by forward and backward.
struct UpsampleGeometry {
  UpsampleOp op = UpsampleOp::Nearest;
  bool align_corners = false;                      // Linear
  std::array<std::optional<double>, 2> scales;     // PyTorch's scales_h, scales_w: the scale factors, if used
  bool nearest_shortcuts = true;                   // Nearest: equal and doubled sizes ignore the scale
};

// out = `in` resampled. in and out have at least two dims and the same planes (the dims before the last
// two), and the same dtype: floating, or uint8 for the nearest ops.
struct UpsampleArgs {
  UpsampleGeometry geometry;
  TensorRef out;
  TensorRef in;
  // Throws Error unless the fields are as described above. Both backends check with it.
  void check() const;
};

// grad_in (the input's sizes, written whole, not overlapping grad_out) = the gradient of the forward
// given grad_out (the output's sizes). Floating dtypes.
struct UpsampleBackwardArgs {
  UpsampleGeometry geometry;
  TensorRef grad_in;
  TensorRef grad_out;
  void check() const;
};

// The scale the kernels use along one dim (see above): float32 for the nearest ops, the compute dtype
// (float32 or float64) for Linear. Both backends compute it here.
double upsample_scale(const UpsampleGeometry& geometry, int dim, int64_t in_size, int64_t out_size, bool float64);

class UpsampleKernels : public KernelFamily {
 public:
  static constexpr std::string_view kName = "upsample";
  virtual void upsample(Stream& stream, const UpsampleArgs& args) = 0;
  virtual void upsample_backward(Stream& stream, const UpsampleBackwardArgs& args) = 0;
};

}  // namespace ember
