// instance_norm as ATen composes it: the input viewed as [1, N * C, ...], a batch norm with the
// parameters and running statistics repeated N times, the running statistics averaged back, and a
// view to the input's shape (PyTorch's grad_fn is that view's, ViewBackward0).
#include "nn/functional/instancenorm.h"

#include "nn/functional/batchnorm.h"
#include "tensor/ops_support.h"

namespace ember::nn::functional {

namespace {

Tensor repeated(const Tensor& t, int64_t times) { return t.defined() ? t.repeat({times}) : Tensor(); }

}  // namespace

namespace detail {

Tensor instance_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                     const Tensor& bias, bool use_input_stats, double momentum, double eps) {
  if (!use_input_stats && (!running_mean.defined() || !running_var.defined())) {
    throw Error("Expected running_mean and running_var to be defined when use_input_stats is false");
  }
  // ATen writes the averaged statistics back whether or not it used them.
  for (const Tensor* stat : {&running_mean, &running_var}) {
    if (stat->defined()) ember::detail::check_no_internal_overlap(*stat);
  }
  const int64_t batch = input.size(0);
  const int64_t channels = input.size(ember::detail::wrap_dim(1, input.dim()));
  if (use_input_stats) {
    // PyTorch's functional: one element per instance has no variance.
    int64_t spatial = 1;
    for (int64_t d = 2; d < input.dim(); ++d) spatial *= input.size(d);
    if (spatial == 1) {
      throw Error("Expected more than 1 spatial element when training, got input size " + to_string(input.sizes()));
    }
  }
  std::vector<int64_t> shape = input.sizes().vec();
  shape[1] = batch * channels;
  shape[0] = 1;
  const Tensor running_mean_ = repeated(running_mean, batch);
  const Tensor running_var_ = repeated(running_var, batch);
  const Tensor out = detail::batch_norm(input.contiguous().view(shape), running_mean_, running_var_,
                                        repeated(weight, batch), repeated(bias, batch), use_input_stats, momentum,
                                        eps);
  {
    autograd::NoGradGuard no_grad;
    if (running_mean.defined()) Tensor(running_mean).copy_(running_mean_.view({batch, channels}).mean(0));
    if (running_var.defined()) Tensor(running_var).copy_(running_var_.view({batch, channels}).mean(0));
  }
  return out.view(input.sizes());
}

}  // namespace detail

Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options) {
  return detail::instance_norm(input, options.running_mean(), options.running_var(), options.weight(),
                               options.bias(), options.use_input_stats(), options.momentum(), options.eps());
}

}  // namespace ember::nn::functional
