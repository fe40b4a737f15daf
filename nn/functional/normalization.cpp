// layer_norm and group_norm: PyTorch's checks and messages (ATen's layer_norm and group_norm), one
// norm-kernel launch forward, and NativeLayerNormBackward0 / NativeGroupNormBackward0 with their
// formula. Layer norm is the kernels' group norm with one group of N channels of one element each.
#include "nn/functional/normalization.h"

#include <sstream>
#include <string>

#include "autograd/record.h"
#include "nn/functional/norm_support.h"
#include "nn/functional/padding.h"
#include "nn/functional/pooling.h"
#include "runtime/kernels/norm.h"
#include "tensor/autocast.h"
#include "tensor/ops_support.h"

namespace ember::nn::functional {

namespace {

using namespace norm_detail;

// The gradients through the kernels: grad_in (wants[0]), then the weight's and bias's, shaped as they are.
autograd::tensor_list backward_kernels(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& mean,
                                       const Tensor& rstd, const Tensor& grad, const NormShape& shape, int64_t groups,
                                       const bool (&wants)[3]) {
  const Tensor x = input.contiguous();
  const Tensor g = grad.contiguous();
  const auto& device = x.device();
  GroupNormBackwardArgs args{.grad_out = g.ref(), .in = x.ref(), .shape = shape, .groups = groups,
                             .mean = mean.ref(), .rstd = rstd.ref()};
  const Tensor w = weight.defined() ? flat_contiguous(weight) : Tensor();
  if (w.defined()) args.weight = w.ref();
  autograd::tensor_list result(3);
  if (wants[0]) {
    result[0] = ember::detail::empty_on(x.sizes(), x.dtype(), device);
    args.grad_in = result[0].ref();
  }
  const DType param_dtype = weight.defined() ? weight.dtype() : bias.defined() ? bias.dtype() : x.dtype();
  Tensor grad_weight, grad_bias;
  if (wants[1]) {
    grad_weight = ember::detail::empty_on({shape.channels}, param_dtype, device);
    args.grad_weight = grad_weight.ref();
  }
  if (wants[2]) {
    grad_bias = ember::detail::empty_on({shape.channels}, param_dtype, device);
    args.grad_bias = grad_bias.ref();
  }
  ember::detail::kernels_for<NormKernels>(*device).group_norm_backward(*ember::detail::stream_for(*device), args);
  if (wants[1]) result[1] = grad_weight.view(weight.sizes());
  if (wants[2]) result[2] = grad_bias.to(bias.dtype()).view(bias.sizes());
  return result;
}

// The same gradients from public ops, which record under create_graph; the rows' statistics are
// recomputed from the input, so their gradient takes part in second order.
autograd::tensor_list backward_composed(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                        const Tensor& grad, const NormShape& shape, int64_t groups, double eps,
                                        const bool (&wants)[3]) {
  const std::vector<int64_t> rows = {shape.outer, groups, shape.channels / groups * shape.inner};
  const std::vector<int64_t> channels = {shape.outer, shape.channels, shape.inner};
  const Tensor x = input.reshape(rows);
  const Tensor x_mu = x - x.mean({2}, true);
  const Tensor rstd = ((x_mu * x_mu).mean({2}, true) + eps).rsqrt();
  const Tensor x_hat = x_mu * rstd;
  const Tensor g = grad.reshape(channels);
  autograd::tensor_list result(3);
  if (wants[0]) {
    const Tensor gw = (weight.defined() ? g * per_channel(weight) : g).reshape(rows);
    const Tensor gx = rstd * (gw - gw.mean({2}, true) - x_hat * (gw * x_hat).mean({2}, true));
    result[0] = gx.to(input.dtype()).reshape(input.sizes());
  }
  if (wants[1]) result[1] = (g * x_hat.reshape(channels)).sum({0, 2}).to(weight.dtype()).reshape(weight.sizes());
  if (wants[2]) result[2] = attached(g.sum({0, 2}), {&input, &weight}).to(bias.dtype()).reshape(bias.sizes());
  return result;
}

// input seen as [outer, channels, inner] (contiguous), rows of channels / groups channels; weight and
// bias hold one value per channel (any shape).
Tensor row_norm(const char* node_name, const Tensor& input, const NormShape& shape, int64_t groups,
                const Tensor& weight, const Tensor& bias, double eps) {
  autograd::Record rec(node_name, {&input, &weight, &bias});
  const Tensor x = input.contiguous();
  const auto& device = x.device();
  const Tensor out = ember::detail::empty_on(x.sizes(), x.dtype(), device);
  const Tensor mean = ember::detail::empty_on({shape.outer * groups}, stat_dtype(x.dtype()), device);
  const Tensor rstd = ember::detail::empty_on({shape.outer * groups}, stat_dtype(x.dtype()), device);
  GroupNormArgs args{.out = out.ref(), .in = x.ref(), .shape = shape, .groups = groups, .mean = mean.ref(),
                     .rstd = rstd.ref(), .eps = eps};
  const Tensor w = weight.defined() ? flat_contiguous(weight) : Tensor();
  const Tensor b = bias.defined() ? flat_contiguous(bias) : Tensor();
  if (w.defined()) args.weight = w.ref();
  if (b.defined()) args.bias = b.ref();
  ember::detail::kernels_for<NormKernels>(*device).group_norm(*ember::detail::stream_for(*device), args);
  if (!rec) return out;
  rec.save(input);
  rec.save(weight);
  rec.save(bias);
  rec.save(mean);
  rec.save(rstd);
  return rec.finish(out, [shape, groups, eps](autograd::FunctionNode& node, const autograd::tensor_list& grads) {
    const bool wants[3] = {node.needs_input_grad(0), node.needs_input_grad(1), node.needs_input_grad(2)};
    const Tensor input = node.saved(0), weight = node.saved(1), bias = node.saved(2);
    if (autograd::GradMode::is_enabled()) return backward_composed(input, weight, bias, grads[0], shape, groups, eps, wants);
    return backward_kernels(input, weight, bias, node.saved(3), node.saved(4), grads[0], shape, groups, wants);
  });
}

void check_params(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  ember::detail::check_same_device({&input, &weight, &bias});
  check_param_dtype(weight, input.dtype());
  check_param_dtype(bias, input.dtype());
}

}  // namespace

namespace detail {

Tensor layer_norm(const Tensor& input, const std::vector<int64_t>& normalized_shape, const Tensor& weight,
                  const Tensor& bias, double eps) {
  if (autocast::is_active()) {
    return autocast::in_float32([&](const Tensor& x, const Tensor& w, const Tensor& b) {
      return layer_norm(x, normalized_shape, w, b, eps);
    }, input, weight, bias);
  }
  const IntArrayRef normalized(normalized_shape);
  if (normalized_shape.empty()) {
    throw Error("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, "
                "but got normalized_shape = " + to_string(normalized));
  }
  for (const auto& [param, name] : {std::pair{&weight, "weight"}, std::pair{&bias, "bias"}}) {
    if (param->defined() && !(param->sizes() == normalized)) {
      throw Error(std::string("Expected ") + name + " to be of same shape as normalized_shape, but got " + name +
                  " of shape " + to_string(param->sizes()) + " and normalized_shape = " + to_string(normalized));
    }
  }
  const int64_t ndim = input.dim();
  const int64_t normalized_ndim = static_cast<int64_t>(normalized_shape.size());
  bool matches = ndim >= normalized_ndim;
  for (int64_t i = 0; matches && i < normalized_ndim; ++i) {
    matches = input.size(ndim - normalized_ndim + i) == normalized_shape[i];
  }
  if (!matches) {
    std::ostringstream message;
    message << "Given normalized_shape=" << to_string(normalized) << ", expected input with shape [*";
    for (int64_t size : normalized_shape) message << ", " << size;
    message << "], but got input of size" << to_string(input.sizes());
    throw Error(message.str());
  }
  check_floating_input(input, "LayerNormKernelImpl");
  check_params(input, weight, bias);
  NormShape shape;
  shape.channels = 1;
  for (int64_t size : normalized_shape) shape.channels *= size;
  shape.outer = 1;
  for (int64_t d = 0; d < ndim - normalized_ndim; ++d) shape.outer *= input.size(d);
  shape.inner = 1;
  return row_norm("NativeLayerNormBackward0", input, shape, 1, weight, bias, eps);
}

Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps) {
  if (autocast::is_active()) {
    return autocast::in_float32([&](const Tensor& x, const Tensor& w, const Tensor& b) {
      return group_norm(x, num_groups, w, b, eps);
    }, input, weight, bias);
  }
  const int64_t channels = input.size(ember::detail::wrap_dim(1, input.dim()));
  if (num_groups <= 0 || channels % num_groups != 0) {
    throw Error("Expected number of channels in input to be divisible by num_groups, but got input of shape " +
                to_string(input.sizes()) + " and num_groups=" + std::to_string(num_groups));
  }
  for (const auto& [param, name] : {std::pair{&weight, "weight"}, std::pair{&bias, "bias"}}) {
    if (param->defined() && (param->dim() != 1 || param->numel() != channels)) {
      throw Error(std::string("Expected ") + name + " to be a vector of size equal to the number of channels in "
                  "input, but got " + name + " of shape " + to_string(param->sizes()) + " and input of shape " +
                  to_string(input.sizes()));
    }
  }
  check_floating_input(input, "GroupNormKernelImpl");
  check_params(input, weight, bias);
  return row_norm("NativeGroupNormBackward0", input, channel_shape(input), num_groups, weight, bias, eps);
}

}  // namespace detail

Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options) {
  return detail::layer_norm(input, options.normalized_shape(), options.weight(), options.bias(), options.eps());
}

Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options) {
  return detail::group_norm(input, options.num_groups(), options.weight(), options.bias(), options.eps());
}

Tensor local_response_norm(const Tensor& input, const LocalResponseNormFuncOptions& options) {
  if (input.dim() < 3) {
    throw Error("Expected 3D or higher dimensionality input (got " + std::to_string(input.dim()) + " dimensions)");
  }
  if (input.numel() == 0) return input;
  const int64_t size = options.size();
  // (N, 1, C, rest): a window of `size` channels, zero-padded as PyTorch pads them, one column at a time.
  Tensor squares = input.mul(input).reshape({input.size(0), 1, input.size(1), -1});
  squares = pad(squares, PadFuncOptions({0, 0, size / 2, (size - 1) / 2}));
  const Tensor mean = avg_pool2d(squares, AvgPool2dFuncOptions({size, 1}).stride(1)).reshape(input.sizes());
  return input / mean.mul(options.alpha()).add(options.k()).pow(options.beta());
}

}  // namespace ember::nn::functional
