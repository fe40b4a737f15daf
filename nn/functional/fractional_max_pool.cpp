// Fractional max pooling, composed from existing ops: the windows' flat positions from the samples
// (elementwise ops on an (N, C, out) table per spatial dim), one gather of every window element, a max
// pooling that keeps the element PyTorch's rule keeps, and a gather of its position. Every index is
// built in range (the window starts are clamped into the input), so the gathers trust them instead of
// reading their bounds back. The backward adds the gradient at the indices (scatter_add).
#include "nn/functional/fractional_max_pool.h"

#include <array>
#include <numeric>
#include <string>
#include <vector>

#include "autograd/record.h"
#include "nn/functional/detail/host_positions.h"
#include "nn/functional/loss.h"
#include "nn/functional/pooling.h"
#include "tensor/functions.h"
#include "tensor/ops_support.h"

namespace ember::nn::functional {

namespace {

// What differs between the 2-d and 3-d op: the names PyTorch's messages and nodes use.
struct Variant {
  const char* op;             // the function, for the samples' messages
  const char* checks;         // the prefix of the shape checks' messages
  const char* frame;          // the kernel a non-floating input is refused by
  const char* node;           // the forward's grad_fn
  const char* backward_node;  // the grad_fn of its backward, under create_graph
  bool window_may_reach_end;  // 2-d allows out + kernel - 1 == in; PyTorch's 3-d check refuses it
};
constexpr Variant k2d{"fractional_max_pool2d", "fractional_max_pool2d(): ", "fractional_max_pool2d_out_frame",
                      "FractionalMaxPool2DBackward0", "FractionalMaxPool2DBackwardBackward0", true};
constexpr Variant k3d{"fractional_max_pool3d", "fractional_max_pool3d_out(): ", "fractional_max_pool3d_out_frame",
                      "FractionalMaxPool3DBackward0", "FractionalMaxPool3DBackwardBackward0", false};

const char* dim_name(size_t spatial_dims, size_t dim) {
  static constexpr std::array<const char*, 3> kNames = {"time", "height", "width"};
  return kNames[3 - spatial_dims + dim];
}

// Which sample drives a spatial dim: PyTorch's 2-d kernel reads the width's first, its 3-d one the time's.
int64_t sample_column(size_t spatial_dims, size_t dim) {
  return spatial_dims == 2 ? static_cast<int64_t>(1 - dim) : static_cast<int64_t>(dim);
}

template <size_t D>
struct Geometry {
  std::array<int64_t, D> in{}, out{}, kernel{};
  int64_t plane() const { return ember::detail::product(IntArrayRef(in.data(), D)); }
  int64_t outputs() const { return ember::detail::product(IntArrayRef(out.data(), D)); }
  int64_t window() const { return ember::detail::product(IntArrayRef(kernel.data(), D)); }
};

// PyTorch's checks, in its order, and the output size.
template <size_t D>
Geometry<D> checked_geometry(const Tensor& input, const FractionalMaxPoolOptions<D>& o, const Variant& v) {
  if (!o.output_size() && !o.output_ratio()) {
    throw Error(std::string(v.op) + " requires specifying either an output_size or an output_ratio");
  }
  const int64_t ndim = input.dim();
  if (ndim != static_cast<int64_t>(D) + 1 && ndim != static_cast<int64_t>(D) + 2) {
    throw Error(std::string(v.checks) + "Expected " + std::to_string(D + 1) + "D or " + std::to_string(D + 2) +
                "D tensor, but got: " + to_string(input.sizes()));
  }
  for (int64_t d = 1; d < ndim; ++d) {
    if (input.size(d) == 0) {
      throw Error(std::string(v.checks) +
                  "Expected input to have non-zero size for non-batch dimensions, but got" +
                  to_string(input.sizes()) + " with dimension " + std::to_string(d) + " being empty.");
    }
  }
  Geometry<D> g;
  for (size_t d = 0; d < D; ++d) {
    g.in[d] = input.size(ndim - static_cast<int64_t>(D) + static_cast<int64_t>(d));
    g.kernel[d] = o.kernel_size()[d];
    g.out[d] = o.output_size() ? (*o.output_size())[d]
                               : static_cast<int64_t>(static_cast<double>(g.in[d]) * (*o.output_ratio())[d]);
  }
  for (size_t d = 0; d < D; ++d) {
    if (g.kernel[d] <= 0) {
      throw Error(std::string(v.checks) + "kernel_size must be greater than zero, but got " +
                  to_string(o.kernel_size()));
    }
  }
  for (size_t d = 0; d < D; ++d) {
    const int64_t reach = g.out[d] + g.kernel[d] - 1;
    if (reach > g.in[d] || (reach == g.in[d] && !v.window_may_reach_end)) {
      throw Error(std::string(v.checks) + "pool " + dim_name(D, d) + " " + std::to_string(g.kernel[d]) +
                  " too large relative to input " + dim_name(D, d) + " " + std::to_string(g.in[d]));
    }
  }
  std::vector<int64_t> out_sizes = input.sizes().vec();
  std::copy(g.out.begin(), g.out.end(), out_sizes.end() - static_cast<int64_t>(D));
  for (size_t d = 0; d < D; ++d) {
    if (g.out[d] < 0) {
      throw Error("Trying to create tensor with negative dimension " + std::to_string(g.out[d]) + ": " +
                  to_string(out_sizes));
    }
  }
  if (!input.is_floating_point()) {
    throw Error(std::string("\"") + v.frame + "\" not implemented for '" + scalar_type_name(input.dtype()) + "'");
  }
  return g;
}

// The samples given, checked, or one draw per plane and spatial dim.
Tensor samples_for(const Tensor& batched, const Tensor& given, size_t spatial_dims, const Variant& v) {
  const std::vector<int64_t> expected = {batched.size(0), batched.size(1), static_cast<int64_t>(spatial_dims)};
  if (!given.defined()) return rand(expected, TensorOptions().dtype(batched.dtype()).device(batched.device()));
  if (given.dtype() != batched.dtype()) {
    throw Error("expected scalar type " + scalar_type_name(batched.dtype()) + " but found " +
                scalar_type_name(given.dtype()));
  }
  if (!(given.sizes() == IntArrayRef(expected))) {
    throw Error(std::string(v.op) + "(): expected _random_samples of size " + to_string(expected) +
                " (batch, channels, one per spatial dim), but got " + to_string(given.sizes()));
  }
  return given;
}

// Where each plane's windows start along one dim, (N, C, out), from that dim's samples (N, C).
Tensor window_starts(const Tensor& samples, int64_t in, int64_t out, int64_t kernel) {
  const int64_t last = in - kernel;
  // Reduced-precision samples step in float32, as PyTorch's CUDA kernel does.
  const Tensor u = (samples.dtype() == kFloat64 ? samples : samples.to(kFloat32)).unsqueeze(-1);
  // alpha in the samples' precision, as PyTorch computes it on the host.
  const double alpha = u.dtype() == kFloat64
                           ? static_cast<double>(last) / static_cast<double>(std::max<int64_t>(out - 1, 1))
                           : static_cast<double>(static_cast<float>(last) /
                                                 static_cast<float>(std::max<int64_t>(out - 1, 1)));
  // The last window ends at the input's end. Its step is put far past the others (3 * out * alpha is
  // at least 3 * last), so the formula overshoots there and the clamp to [0, last] sets it. The clamp
  // also keeps the windows of negative samples inside the input, which PyTorch's kernel does not.
  std::vector<int64_t> steps(static_cast<size_t>(out));
  std::iota(steps.begin(), steps.end(), int64_t{0});
  steps.back() = 3 * out;
  const Tensor step = detail::host_positions(steps, samples);
  return ((step + u) * alpha).to(kInt64).sub((u * alpha).to(kInt64)).clamp(0, last);
}

// The flat positions in the input plane of every window element: (N, C, outputs, window).
template <size_t D>
Tensor window_positions(const Tensor& samples, const Geometry<D>& g) {
  const int64_t n = samples.size(0), c = samples.size(1);
  Tensor positions;
  int64_t stride = 1;
  for (size_t d = D; d-- > 0;) {
    const Tensor starts = window_starts(samples.select(2, sample_column(D, d)), g.in[d], g.out[d], g.kernel[d]);
    std::vector<int64_t> offsets(static_cast<size_t>(g.kernel[d]));
    for (size_t e = 0; e < offsets.size(); ++e) offsets[e] = static_cast<int64_t>(e) * stride;
    // (N, C, out, kernel), viewed with unit dims at the other spatial dims' outputs and kernels.
    const Tensor along = (starts * stride).unsqueeze(-1) + detail::host_positions(offsets, samples);
    std::vector<int64_t> shape = {n, c};
    for (size_t e = 0; e < D; ++e) shape.push_back(e == d ? g.out[d] : 1);
    for (size_t e = 0; e < D; ++e) shape.push_back(e == d ? g.kernel[d] : 1);
    positions = positions.defined() ? positions + along.view(shape) : along.view(shape);
    stride *= g.in[d];
  }
  return positions.reshape({n, c, g.outputs(), g.window()});
}

// PyTorch's fractional_max_pool backward: grad added into a zero input at each output's index, recorded as
// `node`. Its own gradient gathers through the same indices; like PyTorch's node it also takes the forward's
// input, whose gradient is zero, so that under create_graph the result requires grad where the input does.
Tensor fractional_backward(const Tensor& grad, const Tensor& input, const Tensor& indices, size_t spatial_dims,
                           const char* node) {
  const std::vector<int64_t> input_sizes = input.sizes().vec();
  const size_t plane_dims = input_sizes.size() - spatial_dims;
  const int64_t planes = ember::detail::product(IntArrayRef(input_sizes.data(), plane_dims));
  const int64_t plane = ember::detail::product(IntArrayRef(input_sizes.data() + plane_dims, spatial_dims));
  const int64_t outputs = ember::detail::product(IntArrayRef(indices.sizes().data() + plane_dims, spatial_dims));
  autograd::Record rec(node, {&grad, &input});
  ember::detail::TrustedIndices trusted;  // the forward's own
  const Tensor flat_indices = indices.reshape({planes, outputs});
  Tensor grad_input = grad.new_zeros({planes, plane})
                          .scatter_add(1, flat_indices, grad.reshape({planes, outputs}))
                          .reshape(input_sizes);
  if (rec) {
    rec.save(flat_indices);
    grad_input = rec.finish(grad_input, [output_sizes = indices.sizes().vec(), input_sizes, planes, plane](
                                            autograd::FunctionNode& node, const autograd::tensor_list& g) {
      ember::detail::TrustedIndices trusted;
      return autograd::tensor_list{g[0].reshape({planes, plane}).gather(1, node.saved(0)).reshape(output_sizes),
                                   g[0].new_zeros(input_sizes)};
    });
  }
  return grad_input;
}

template <size_t D>
std::tuple<Tensor, Tensor> fractional_max_pool(const Tensor& input, const FractionalMaxPoolOptions<D>& o,
                                               const Variant& v) {
  check_not_differentiable(o._random_samples(), "random_samples", v.op);
  const Geometry<D> g = checked_geometry(input, o, v);
  const bool batched = input.dim() == static_cast<int64_t>(D) + 2;
  const Tensor x = batched ? input : input.unsqueeze(0);
  const Tensor samples = samples_for(x, o._random_samples(), D, v);
  const int64_t n = x.size(0), c = x.size(1);
  std::vector<int64_t> out_sizes = {n, c};
  out_sizes.insert(out_sizes.end(), g.out.begin(), g.out.end());

  autograd::Record rec(v.node, {&input});
  Tensor output;
  Tensor indices;
  if (ember::detail::product(out_sizes) == 0) {
    output = x.new_empty(out_sizes);
    indices = x.new_empty(out_sizes, TensorOptions().dtype(kInt64));
  } else {
    ember::detail::TrustedIndices trusted;
    const Tensor windows = window_positions(samples, g);
    const Tensor values = x.reshape({n, c, g.plane()}).gather(2, windows.reshape({n, c, -1})).view(windows.sizes());
    // The element PyTorch keeps (the first largest; a NaN over any number, a later NaN over an earlier
    // one) is the max pool kernel's choice too: one (1, window) max pooling over the windows gives its
    // value, and its place in the flattened (outputs, window) grid.
    const auto [largest, kept] =
        max_pool2d_with_indices(values, MaxPool2dFuncOptions(ExpandingArray<2>({1, g.window()})));
    output = largest.view(out_sizes);
    indices = windows.reshape({n, c, -1}).gather(2, kept.reshape({n, c, -1})).view(out_sizes);
  }
  if (!batched) {
    output = output.squeeze(0);
    indices = indices.squeeze(0);
  }
  if (rec) {
    rec.save(indices);
    rec.save(input);
    output = rec.finish(output, [&v](autograd::FunctionNode& node, const autograd::tensor_list& grads) {
      return autograd::tensor_list{
          fractional_backward(grads[0], node.saved(1), node.saved(0), D, v.backward_node)};
    });
  }
  return {output, indices};
}

}  // namespace

std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(const Tensor& input,
                                                              const FractionalMaxPool2dFuncOptions& options) {
  return fractional_max_pool(input, options, k2d);
}

Tensor fractional_max_pool2d(const Tensor& input, const FractionalMaxPool2dFuncOptions& options) {
  return std::get<0>(fractional_max_pool2d_with_indices(input, options));
}

std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(const Tensor& input,
                                                              const FractionalMaxPool3dFuncOptions& options) {
  return fractional_max_pool(input, options, k3d);
}

Tensor fractional_max_pool3d(const Tensor& input, const FractionalMaxPool3dFuncOptions& options) {
  return std::get<0>(fractional_max_pool3d_with_indices(input, options));
}

}  // namespace ember::nn::functional
