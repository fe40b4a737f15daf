// batch_norm: PyTorch's checks and messages (LibTorch's functional and ATen's batch_norm), the norm
// kernels forward (statistics and running-stat update in one pass, then the fused normalise and
// affine), and NativeBatchNormBackward0 with its formula.
#include "nn/functional/batchnorm.h"

#include <string>

#include "autograd/record.h"
#include "nn/functional/norm_support.h"
#include "runtime/kernels/norm.h"
#include "tensor/ops_support.h"

namespace ember::nn::functional {

namespace {

using namespace norm_detail;

void check_features(const char* name, const Tensor& t, int64_t features) {
  if (t.defined() && t.numel() != features) {
    throw Error(std::string(name) + " should contain " + std::to_string(features) + " elements not " +
                std::to_string(t.numel()));
  }
}

void check_inputs(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training) {
  const int64_t features = input.size(ember::detail::wrap_dim(1, input.dim()));
  check_floating_input(input, "batch_norm");
  if (training) {
    // LibTorch's functional: one value per channel gives a variance of zero and no gradient.
    int64_t values = input.size(0);
    for (int64_t d = 2; d < input.dim(); ++d) values *= input.size(d);
    if (values == 1) {
      throw Error("Expected more than 1 value per channel when training, got input size " + to_string(input.sizes()));
    }
  }
  // PyTorch's order: each running statistic's presence and size, then the weight's and the bias's.
  for (const auto& [name, stat] : {std::pair<const char*, const Tensor*>{"running_mean", &running_mean},
                                   std::pair<const char*, const Tensor*>{"running_var", &running_var}}) {
    if (!stat->defined() && !training) throw Error(std::string(name) + " must be defined in evaluation mode");
    check_features(name, *stat, features);
  }
  check_features("weight", weight, features);
  check_features("bias", bias, features);
  ember::detail::check_same_device({&input, &weight, &bias, &running_mean, &running_var});
  for (const Tensor* param : {&weight, &bias, &running_mean, &running_var}) check_param_dtype(*param, input.dtype());
}

// A running statistic the kernel updates in place: the tensor itself when contiguous, else a copy
// written back by `write_back`.
struct RunningStat {
  Tensor target;
  Tensor kernel_view;
  void write_back() const {
    if (target.defined() && !kernel_view.is_same(target)) Tensor(target).copy_(kernel_view.view(target.sizes()));
    if (target.defined()) ember::detail::bump_version(target);
  }
};

RunningStat running_stat(const Tensor& stat) {
  if (!stat.defined()) return {};
  return {stat, stat.is_contiguous() ? stat : stat.contiguous()};
}

struct Forward {
  Tensor out;
  Tensor mean;
  Tensor invstd;  // training; eval: the running variances
};

Forward forward_kernels(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                        const Tensor& bias, bool training, double momentum, double eps) {
  const NormShape shape = channel_shape(x);
  const auto& device = x.device();
  NormKernels& kernels = ember::detail::kernels_for<NormKernels>(*device);
  const std::shared_ptr<Stream> stream = ember::detail::stream_for(*device);
  Forward f;
  f.out = ember::detail::empty_on(x.sizes(), x.dtype(), device);
  if (training) {
    f.mean = ember::detail::empty_on({shape.channels}, stat_dtype(x.dtype()), device);
    f.invstd = ember::detail::empty_on({shape.channels}, stat_dtype(x.dtype()), device);
    BatchNormStatsArgs args{.in = x.ref(), .shape = shape, .mean = f.mean.ref(), .invstd = f.invstd.ref(),
                            .momentum = momentum, .eps = eps};
    RunningStat rm = running_stat(running_mean), rv = running_stat(running_var);
    // The kernel updates both or neither: a missing one is a scratch tensor.
    if (rm.target.defined() || rv.target.defined()) {
      const DType dtype = rm.target.defined() ? rm.target.dtype() : rv.target.dtype();
      if (!rm.target.defined()) rm.kernel_view = zeros({shape.channels}, TensorOptions(dtype).device(device));
      if (!rv.target.defined()) rv.kernel_view = ones({shape.channels}, TensorOptions(rm.kernel_view.dtype()).device(device));
      args.running_mean = rm.kernel_view.ref();
      args.running_var = rv.kernel_view.ref();
    }
    kernels.batch_norm_stats(*stream, args);
    rm.write_back();
    rv.write_back();
  } else {
    f.mean = flat_contiguous(running_mean);
    f.invstd = flat_contiguous(running_var);
  }
  BatchNormApplyArgs apply{.out = f.out.ref(), .in = x.ref(), .shape = shape, .mean = f.mean.ref(),
                           .invstd = f.invstd.ref(), .invstd_from_var = !training, .eps = eps};
  const Tensor w = weight.defined() ? flat_contiguous(weight) : Tensor();
  const Tensor b = bias.defined() ? flat_contiguous(bias) : Tensor();
  if (w.defined()) apply.weight = w.ref();
  if (b.defined()) apply.bias = b.ref();
  kernels.batch_norm_apply(*stream, apply);
  return f;
}

// The gradients through the kernels: grad_in (when `wants[0]`), grad_weight, grad_bias.
autograd::tensor_list backward_kernels(const Tensor& input, const Tensor& weight, const Tensor& mean,
                                       const Tensor& invstd, const Tensor& grad, bool training, double eps,
                                       const bool (&wants)[3]) {
  const Tensor x = input.contiguous();
  const Tensor g = grad.contiguous();
  const NormShape shape = channel_shape(x);
  const auto& device = x.device();
  autograd::tensor_list result(3);
  BatchNormBackwardArgs args{.grad_out = g.ref(), .in = x.ref(), .shape = shape, .mean = mean.ref(),
                             .invstd = invstd.ref(), .invstd_from_var = !training, .eps = eps, .training = training};
  const Tensor w = weight.defined() ? flat_contiguous(weight) : Tensor();
  if (w.defined()) args.weight = w.ref();
  if (wants[0]) {
    result[0] = ember::detail::empty_on(x.sizes(), x.dtype(), device);
    args.grad_in = result[0].ref();
  }
  // Parameter gradients come in the parameters' dtype (float32 beside a float16 input), shaped as they are.
  const DType param_dtype = weight.defined() ? weight.dtype() : x.dtype();
  Tensor grad_weight, grad_bias;
  if (wants[1]) {
    grad_weight = ember::detail::empty_on({shape.channels}, param_dtype, device);
    args.grad_weight = grad_weight.ref();
  }
  if (wants[2]) {
    grad_bias = ember::detail::empty_on({shape.channels}, param_dtype, device);
    args.grad_bias = grad_bias.ref();
  }
  ember::detail::kernels_for<NormKernels>(*device).batch_norm_backward(*ember::detail::stream_for(*device), args);
  if (wants[1]) result[1] = grad_weight;
  if (wants[2]) result[2] = grad_bias;
  return result;
}

// The same gradients from public ops, which record under create_graph: the batch statistics are
// recomputed from the input, so their own gradient takes part in second order.
autograd::tensor_list backward_composed(const Tensor& input, const Tensor& weight, const Tensor& mean,
                                        const Tensor& invstd_or_var, const Tensor& grad, bool training, double eps,
                                        const bool (&wants)[3]) {
  const NormShape shape = channel_shape(input);
  const std::vector<int64_t> view = {shape.outer, shape.channels, shape.inner};
  const Tensor x = input.reshape(view);
  const Tensor g = grad.reshape(view);
  Tensor x_mu, invstd;
  if (training) {
    x_mu = x - x.mean({0, 2}, true);
    invstd = ((x_mu * x_mu).mean({0, 2}, true) + eps).rsqrt();
  } else {
    x_mu = x - per_channel(mean);
    invstd = per_channel((invstd_or_var + eps).rsqrt());
  }
  const Tensor x_hat = x_mu * invstd;
  autograd::tensor_list result(3);
  if (wants[0]) {
    Tensor scale = weight.defined() ? invstd * per_channel(weight) : invstd;
    Tensor gx = training ? (g - g.mean({0, 2}, true) - x_hat * (g * x_hat).mean({0, 2}, true)) * scale : g * scale;
    result[0] = gx.to(input.dtype()).reshape(input.sizes());
  }
  const DType param_dtype = weight.defined() ? weight.dtype() : input.dtype();
  if (wants[1]) result[1] = (g * x_hat).sum({0, 2}).to(param_dtype);
  if (wants[2]) result[2] = attached(g.sum({0, 2}), {&input, &weight}).to(param_dtype);
  return result;
}

Tensor batch_norm_impl(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                       const Tensor& bias, bool training, double momentum, double eps) {
  check_inputs(input, running_mean, running_var, weight, bias, training);
  if (input.numel() == 0) {
    // As ATen: no statistics, running ones untouched, and an output still connected to the parameters.
    Tensor out = input.clone();
    if (weight.defined()) out = out * weight[0];
    if (bias.defined()) out = out + bias[0];
    return out;
  }
  autograd::Record rec("NativeBatchNormBackward0", {&input, &weight, &bias});
  const Tensor x = input.contiguous();
  Forward f = forward_kernels(x, running_mean, running_var, weight, bias, training, momentum, eps);
  if (!rec) return f.out;
  rec.save(input);
  rec.save(weight);
  rec.save(f.mean);
  rec.save(f.invstd);
  return rec.finish(f.out, [training, eps](autograd::FunctionNode& node, const autograd::tensor_list& grads) {
    const bool wants[3] = {node.needs_input_grad(0), node.needs_input_grad(1), node.needs_input_grad(2)};
    const Tensor input = node.saved(0), weight = node.saved(1), mean = node.saved(2), invstd = node.saved(3);
    if (autograd::GradMode::is_enabled()) return backward_composed(input, weight, mean, invstd, grads[0], training, eps, wants);
    return backward_kernels(input, weight, mean, invstd, grads[0], training, eps, wants);
  });
}

}  // namespace

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options) {
  if (!options.momentum()) {
    throw Error("batch_norm: momentum must be given; a cumulative average (momentum None) is the BatchNorm "
                "module's, which passes 1 / num_batches_tracked");
  }
  return batch_norm_impl(input, running_mean, running_var, options.weight(), options.bias(), options.training(),
                         *options.momentum(), options.eps());
}

namespace detail {

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps) {
  return batch_norm_impl(input, running_mean, running_var, weight, bias, training, momentum, eps);
}

}  // namespace detail

}  // namespace ember::nn::functional
