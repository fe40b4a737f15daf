// Pooling over three dims (ATen's max_pool3d_with_indices, avg_pool3d, adaptive_max_pool3d and
// _adaptive_avg_pool3d), as two passes of the 2-d pool kernels: every window is a box, so pooling each
// time step over (H, W), then the (T, OH * OW) planes over time with (kT x 1) windows, gives the box's
// result.
// - Max: the first pass keeps each (H, W) window's first largest element, the second the first largest
//   over time: PyTorch's element in (t, h, w) order, and likewise the last NaN when there are NaNs. The
//   index returned is t * H * W plus the first pass's position at that time step.
// - Average: a box's divisor is the product of its per-dim counts (clipped to the input, or to the input
//   and padding), so dividing in each pass divides by it; divisor_override divides the second pass's sum
//   of the first's sums.
// Each op records PyTorch's 3-d node, whose backward runs the two passes' backward in reverse.
#include <array>
#include <initializer_list>
#include <string>
#include <tuple>
#include <vector>

#include "autograd/record.h"
#include "nn/functional/detail/pool_passes.h"
#include "nn/functional/pooling.h"
#include "tensor/ops_support.h"

namespace ember::nn::functional {

namespace {

std::string text(int64_t value) { return std::to_string(value); }

// The two passes of one 3-d pooling: over (H, W), then over time.
struct Passes {
  PoolGeometry planes;
  PoolGeometry time;
  std::array<int64_t, 3> out{};  // OT, OH, OW
};

// Sizes of `input` with its last n dims replaced by `last`.
std::vector<int64_t> with_last(const Tensor& input, size_t n, std::initializer_list<int64_t> last) {
  std::vector<int64_t> sizes(input.sizes().begin(), input.sizes().end() - static_cast<int64_t>(n));
  sizes.insert(sizes.end(), last.begin(), last.end());
  return sizes;
}

// The forward, unrecorded. The max ops' passes' indices are what their backward takes; the indices in
// the (T, H, W) box are made only when asked for.
struct Pooled3d {
  Tensor out;
  Tensor plane_indices;  // the max ops: (..., T, OH, OW), positions in an (H, W) plane
  Tensor time_indices;   // the max ops: (..., OT, OH * OW), positions t * OH * OW + j in the by-plane result
  Tensor indices;        // on request: (..., OT, OH, OW), positions in the box
};

Pooled3d pool_box(const Tensor& input, const Passes& p, bool box_indices) {
  const auto [ot, oh, ow] = p.out;
  Pooled3d r;
  Tensor by_plane;
  std::tie(by_plane, r.plane_indices) = detail::pool_planes(input, p.planes, oh, ow);
  std::tie(r.out, r.time_indices) = detail::pool_planes(by_plane.flatten(-2), p.time, ot, oh * ow);
  const std::vector<int64_t> out_sizes = with_last(input, 3, {ot, oh, ow});
  r.out = r.out.view(out_sizes);
  if (box_indices) {
    // The time step t * OH * OW + j names, and where plane_indices has its plane position.
    ember::detail::TrustedIndices trusted;
    const Tensor in_plane = r.plane_indices.flatten(-3).gather(-1, r.time_indices.flatten(-2));
    const Tensor step = r.time_indices.flatten(-2).floor_divide(oh * ow);
    r.indices = step.mul(input.size(-2) * input.size(-1)).add(in_plane).view(out_sizes);
  }
  return r;
}

// Records PyTorch's node over the forward. Its backward is the two passes' backward in reverse, each
// through its own indices for the max ops: the pool backward kernels gather per input element, and the
// box indices are not needed (a third of the time of scattering at them on lavapipe, with the gather
// that makes them; docs/PERFORMANCE.md).
std::tuple<Tensor, Tensor> pool_box_recorded(const Tensor& input, const Passes& p, const char* node,
                                             bool box_indices = false) {
  autograd::Record rec(node, {&input});
  Pooled3d r = pool_box(input, p, box_indices);
  if (!rec) return {r.out, r.indices};
  rec.save(input);
  if (r.plane_indices.defined()) {
    rec.save(r.plane_indices);
    rec.save(r.time_indices);
  }
  autograd::tensor_list outs = rec.finish(
      {r.out, r.indices}, [p](autograd::FunctionNode& node, const autograd::tensor_list& grads) {
        const Tensor& input = node.saved(0);
        const bool max = is_max_pool(p.planes.op);
        const auto [ot, oh, ow] = p.out;
        const int64_t steps = input.size(-3);
        const Tensor by_time =
            detail::pool_planes_backward(grads[0].flatten(-2), max ? node.saved(2) : Tensor(), Tensor(),
                                         with_last(input, 3, {steps, oh * ow}), p.time);
        const Tensor by_plane = by_time.view(with_last(input, 3, {steps, oh, ow}));
        return autograd::tensor_list{
            detail::pool_planes_backward(by_plane, max ? node.saved(1) : Tensor(), input, input.sizes(), p.planes)};
      });
  return {outs[0], r.indices.defined() ? outs[1] : Tensor()};
}

// ATen's pool3d_shape_check: the message for an empty non-batch dim names the dim's size, as PyTorch's does.
void pool3d_shape_check(const Tensor& input, const std::array<PoolWindow, 3>& win, const std::array<int64_t, 3>& out,
                        const char* op, bool check_input_size) {
  const PoolWindow &t = win[0], &h = win[1], &w = win[2];
  if (t.kernel <= 0 || h.kernel <= 0 || w.kernel <= 0) {
    throw Error("kernel size should be greater than zero, but got kT: " + text(t.kernel) + " kH: " + text(h.kernel) +
                " kW: " + text(w.kernel));
  }
  if (t.stride <= 0 || h.stride <= 0 || w.stride <= 0) {
    throw Error("stride should be greater than zero, but got dT: " + text(t.stride) + " dH: " + text(h.stride) +
                " dW: " + text(w.stride));
  }
  if (t.dilation <= 0 || h.dilation <= 0 || w.dilation <= 0) {
    throw Error("dilation should be greater than zero, but got dilationT: " + text(t.dilation) +
                " dilationH: " + text(h.dilation) + " dilationW: " + text(w.dilation));
  }
  for (int64_t d = input.dim() - 4; d < input.dim(); ++d) {
    if (input.size(d) <= 0) {
      throw Error(std::string(op) + "(): Expected input's non-batch dimensions to have positive length, but input " +
                  "has a shape of " + to_string(input.sizes()) + " and non-batch dimension " + text(input.size(d)) +
                  " has length zero!");
    }
  }
  const int64_t in_t = input.size(-3), in_h = input.size(-2), in_w = input.size(-1);
  if (check_input_size && (in_t < t.kernel || in_h < h.kernel || in_w < w.kernel)) {
    throw Error("input image (T: " + text(in_t) + " H: " + text(in_h) + " W: " + text(in_w) +
                ") smaller than kernel size (kT: " + text(t.kernel) + " kH: " + text(h.kernel) + " kW: " +
                text(w.kernel) + ")");
  }
  if (out[0] < 1 || out[1] < 1 || out[2] < 1) {
    const std::string planes = text(input.size(-4));
    throw Error("Given input size: (" + planes + "x" + text(in_t) + "x" + text(in_h) + "x" + text(in_w) +
                "). Calculated output size: (" + planes + "x" + text(out[0]) + "x" + text(out[1]) + "x" +
                text(out[2]) + "). Output size is too small");
  }
}

void check_4_or_5_dims(const Tensor& input) {
  if (input.dim() != 4 && input.dim() != 5) throw Error("non-empty 4D or 5D (batch mode) tensor expected for input");
}

// The windows of max or average pooling, their output sizes, and PyTorch's checks of both.
Passes windowed(const Tensor& input, PoolOp op, const std::array<PoolWindow, 3>& win, bool ceil_mode,
                const char* op_name, bool check_input_size) {
  Passes p;
  for (int d = 0; d < 3; ++d) {
    p.out[d] = detail::pooling_output_shape(input.size(d - 3), win[d].kernel, win[d].padding, win[d].stride,
                                            win[d].dilation, ceil_mode);
  }
  pool3d_shape_check(input, win, p.out, op_name, check_input_size);
  p.planes.op = p.time.op = op;
  p.planes.window = {win[1], win[2]};
  p.time.window = {win[0], PoolWindow{}};
  return p;
}

Passes adaptive(PoolOp op, IntArrayRef output_size) {
  Passes p;
  p.planes.op = p.time.op = op;
  p.out = {output_size[0], output_size[1], output_size[2]};
  return p;
}

// Non-batch dims must not be empty: the adaptive ops' message.
void check_adaptive_sizes(const Tensor& input, const char* op) {
  for (int64_t d = 1; d < input.dim(); ++d) {
    if (input.size(d) <= 0) {
      throw Error(std::string(op) + "(): Expected input to have non-zero size for non-batch dimensions, but input " +
                  "has sizes " + to_string(input.sizes()) + " with dimension " + text(d) + " being empty");
    }
  }
}

// ATen's max_pool3d_with_indices; the box indices only when `box_indices`.
std::tuple<Tensor, Tensor> max_pool3d_of(const Tensor& input, const MaxPool3dFuncOptions& o, bool box_indices) {
  check_4_or_5_dims(input);
  std::array<PoolWindow, 3> win;
  for (int d = 0; d < 3; ++d) win[d] = {o.kernel_size()[d], o.stride()[d], o.padding()[d], o.dilation()[d]};
  const Passes p = windowed(input, PoolOp::Max, win, o.ceil_mode(), "max_pool3d_with_indices_out_cpu_template", false);
  detail::check_floating(input, "max_pool3d_with_indices_cpu");
  return pool_box_recorded(input, p, "MaxPool3DWithIndicesBackward0", box_indices);
}

// ATen's adaptive_max_pool3d, the box indices only when `box_indices`.
std::tuple<Tensor, Tensor> adaptive_max_pool3d_of(const Tensor& input, const AdaptiveMaxPool3dFuncOptions& options,
                                                  bool box_indices) {
  const std::vector<int64_t> size = detail::sizes_with_default(options.output_size(), input);
  if (input.dim() != 4 && input.dim() != 5) {
    throw Error("adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: " + to_string(input.sizes()));
  }
  check_adaptive_sizes(input, "adaptive_max_pool3d");
  const std::vector<int64_t> out_sizes = with_last(input, 3, {size[0], size[1], size[2]});
  for (const int64_t s : out_sizes) {
    if (s < 0) throw Error("Trying to create tensor with negative dimension " + text(s) + ": " + to_string(out_sizes));
  }
  detail::check_floating(input, "adaptive_max_pool3d_cpu");
  return pool_box_recorded(input, adaptive(PoolOp::AdaptiveMax, size), "AdaptiveMaxPool3DBackward0", box_indices);
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, const MaxPool3dFuncOptions& o) {
  return max_pool3d_of(input, o, true);
}

Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& options) {
  return std::get<0>(max_pool3d_of(input, options, false));
}

Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& o) {
  if (o.divisor_override() && *o.divisor_override() == 0) throw Error("divisor must be not zero");
  check_4_or_5_dims(input);
  std::array<PoolWindow, 3> win;
  for (int d = 0; d < 3; ++d) win[d] = {o.kernel_size()[d], o.stride()[d], o.padding()[d], 1};
  Passes p = windowed(input, PoolOp::Avg, win, o.ceil_mode(), "avg_pool3d", true);
  detail::check_floating(input, "avg_pool3d_out_frame");  // LibTorch's message for int32 (it pools int64)
  p.planes.count_include_pad = p.time.count_include_pad = o.count_include_pad();
  if (o.divisor_override()) {
    p.planes.divisor_override = 1;  // the first pass sums
    p.time.divisor_override = *o.divisor_override();
  }
  return std::get<0>(pool_box_recorded(input, p, "AvgPool3DBackward0"));
}

std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool3dFuncOptions& options) {
  return adaptive_max_pool3d_of(input, options, true);
}

Tensor adaptive_max_pool3d(const Tensor& input, const AdaptiveMaxPool3dFuncOptions& options) {
  return std::get<0>(adaptive_max_pool3d_of(input, options, false));
}

Tensor adaptive_avg_pool3d(const Tensor& input, const AdaptiveAvgPool3dFuncOptions& options) {
  const std::vector<int64_t> size = detail::sizes_with_default(options.output_size(), input);
  if (size[0] < 0 || size[1] < 0 || size[2] < 0) {
    throw Error("adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {" +
                text(size[0]) + ", " + text(size[1]) + "," + text(size[2]) + "}");
  }
  // PyTorch's shortcut: a 1 x 1 x 1 output is the mean over the box (MeanBackward1).
  if (size[0] == 1 && size[1] == 1 && size[2] == 1) return input.mean({-1, -2, -3}, true);
  check_adaptive_sizes(input, "adaptive_avg_pool3d");
  if (input.dim() != 4 && input.dim() != 5) {
    throw Error("adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got " + to_string(input.sizes()));
  }
  detail::check_floating(input, "adaptive_avg_pool3d_cpu");
  return std::get<0>(pool_box_recorded(input, adaptive(PoolOp::AdaptiveAvg, size), "AdaptiveAvgPool3DBackward0"));
}

}  // namespace ember::nn::functional
