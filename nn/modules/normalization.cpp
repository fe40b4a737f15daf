#include "nn/modules/normalization.h"

#include "autograd/grad_mode.h"
#include "nn/functional/batchnorm.h"
#include "nn/functional/instancenorm.h"
#include "nn/functional/normalization.h"
#include "nn/init.h"
#include "nn/repr.h"

namespace ember::nn {

namespace {

// PyTorch's check of the input's dims: BatchNorm1d takes 2-d or 3-d input, BatchNorm2d 4-d, ...
void check_batch_norm_dims(size_t spatial, const Tensor& input) {
  const int64_t dims = input.dim();
  if (spatial == 1 && dims != 2 && dims != 3) {
    throw Error("expected 2D or 3D input (got " + std::to_string(dims) + "D input)");
  }
  if (spatial > 1 && dims != int64_t(spatial) + 2) {
    throw Error("expected " + std::to_string(spatial + 2) + "D input (got " + std::to_string(dims) + "D input)");
  }
}

// weight and bias (when affine) and the running statistics (when tracked), registered as Python's
// _NormBase registers them; undefined ones stay out of the state dict.
template <class Norm>
void register_norm_state(Norm& norm, int64_t features, bool affine, bool track) {
  norm.weight = norm.register_parameter("weight", affine ? ember::empty({features}) : Tensor(), affine);
  norm.bias = norm.register_parameter("bias", affine ? ember::empty({features}) : Tensor(), affine);
  norm.running_mean = norm.register_buffer("running_mean", track ? zeros({features}) : Tensor());
  norm.running_var = norm.register_buffer("running_var", track ? ones({features}) : Tensor());
  norm.num_batches_tracked = norm.register_buffer("num_batches_tracked", track ? zeros({}, kInt64) : Tensor());
}

std::string stats_repr(int64_t features, double eps, const std::string& momentum, bool affine, bool track) {
  return std::to_string(features) + ", eps=" + repr_float(eps) + ", momentum=" + momentum +
         ", affine=" + repr_bool(affine) + ", track_running_stats=" + repr_bool(track);
}

}  // namespace

template <size_t D>
BatchNormImpl<D>::BatchNormImpl(const BatchNormOptions& options)
    : Cloneable<BatchNormImpl<D>>(name_with_dims("BatchNorm", D)), options(options) {
  reset();
}

template <size_t D>
void BatchNormImpl<D>::reset() {
  register_norm_state(*this, options.num_features(), options.affine(), options.track_running_stats());
  reset_parameters();
}

template <size_t D>
void BatchNormImpl<D>::reset_running_stats() {
  if (!options.track_running_stats()) return;
  NoGradGuard no_grad;
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}

template <size_t D>
void BatchNormImpl<D>::reset_parameters() {
  reset_running_stats();
  if (options.affine()) {
    init::ones_(weight);
    init::zeros_(bias);
  }
}

template <size_t D>
std::string BatchNormImpl<D>::extra_repr() const {
  return stats_repr(options.num_features(), options.eps(),
                    options.momentum() ? repr_float(*options.momentum()) : std::string("None"), options.affine(),
                    options.track_running_stats());
}

template <size_t D>
Tensor BatchNormImpl<D>::forward(const Tensor& input) {
  check_batch_norm_dims(D, input);
  double factor = options.momentum().value_or(0.0);
  const bool training = this->is_training();
  if (training && options.track_running_stats()) {
    {
      NoGradGuard no_grad;
      num_batches_tracked.add_(1);
    }
    // A cumulative average needs the count on the host, as PyTorch reads it.
    if (!options.momentum()) factor = 1.0 / double(num_batches_tracked.item<int64_t>());
  }
  // Batch statistics in training, or in eval without running statistics.
  const bool use_batch_stats = training || !running_mean.defined();
  const bool update_running = !training || options.track_running_stats();
  return functional::detail::batch_norm(input, update_running ? running_mean : Tensor(),
                                        update_running ? running_var : Tensor(), weight, bias, use_batch_stats, factor,
                                        options.eps());
}

template <size_t D>
InstanceNormImpl<D>::InstanceNormImpl(const InstanceNormOptions& options)
    : Cloneable<InstanceNormImpl<D>>(name_with_dims("InstanceNorm", D)), options(options) {
  reset();
}

template <size_t D>
void InstanceNormImpl<D>::reset() {
  register_norm_state(*this, options.num_features(), options.affine(), options.track_running_stats());
  reset_parameters();
}

template <size_t D>
void InstanceNormImpl<D>::reset_parameters() {
  if (options.affine()) {
    init::ones_(weight);
    init::zeros_(bias);
  }
}

template <size_t D>
std::string InstanceNormImpl<D>::extra_repr() const {
  return stats_repr(options.num_features(), options.eps(), repr_float(options.momentum()), options.affine(),
                    options.track_running_stats());
}

template <size_t D>
Tensor InstanceNormImpl<D>::forward(const Tensor& input) {
  const int64_t dims = input.dim();
  if (dims != int64_t(D) + 1 && dims != int64_t(D) + 2) {
    throw Error("expected " + std::to_string(D + 1) + "D or " + std::to_string(D + 2) + "D input (got " +
                std::to_string(dims) + "D input)");
  }
  // An unbatched input is a batch of one.
  const bool unbatched = dims == int64_t(D) + 1;
  const Tensor batched = unbatched ? input.unsqueeze(0) : input;
  const Tensor out = functional::detail::instance_norm(batched, running_mean, running_var, weight, bias,
                                                       this->is_training() || !options.track_running_stats(),
                                                       options.momentum(), options.eps());
  return unbatched ? out.squeeze(0) : out;
}

LayerNormImpl::LayerNormImpl(LayerNormOptions options) : options(std::move(options)) { reset(); }

void LayerNormImpl::reset() {
  const bool affine = options.elementwise_affine();
  weight = register_parameter("weight", affine ? ember::empty(options.normalized_shape()) : Tensor(), affine);
  bias = register_parameter("bias", affine ? ember::empty(options.normalized_shape()) : Tensor(), affine);
  reset_parameters();
}

void LayerNormImpl::reset_parameters() {
  if (options.elementwise_affine()) {
    init::ones_(weight);
    init::zeros_(bias);
  }
}

std::string LayerNormImpl::extra_repr() const {
  return repr_tuple(options.normalized_shape()) + ", eps=" + repr_float(options.eps()) +
         ", elementwise_affine=" + repr_bool(options.elementwise_affine());
}

Tensor LayerNormImpl::forward(const Tensor& input) {
  return functional::detail::layer_norm(input, options.normalized_shape(), weight, bias, options.eps());
}

GroupNormImpl::GroupNormImpl(const GroupNormOptions& options) : options(options) { reset(); }

void GroupNormImpl::reset() {
  if (options.num_groups() <= 0 || options.num_channels() % options.num_groups() != 0) {
    throw Error("num_channels must be divisible by num_groups");
  }
  const int64_t n = options.num_channels();
  weight = register_parameter("weight", options.affine() ? ember::empty({n}) : Tensor(), options.affine());
  bias = register_parameter("bias", options.affine() ? ember::empty({n}) : Tensor(), options.affine());
  reset_parameters();
}

void GroupNormImpl::reset_parameters() {
  if (options.affine()) {
    init::ones_(weight);
    init::zeros_(bias);
  }
}

std::string GroupNormImpl::extra_repr() const {
  return std::to_string(options.num_groups()) + ", " + std::to_string(options.num_channels()) +
         ", eps=" + repr_float(options.eps()) + ", affine=" + repr_bool(options.affine());
}

Tensor GroupNormImpl::forward(const Tensor& input) {
  return functional::detail::group_norm(input, options.num_groups(), weight, bias, options.eps());
}

LocalResponseNormImpl::LocalResponseNormImpl(const LocalResponseNormOptions& options) : options(options) {}

std::string LocalResponseNormImpl::extra_repr() const {
  return std::to_string(options.size()) + ", alpha=" + repr_float(options.alpha()) +
         ", beta=" + repr_float(options.beta()) + ", k=" + repr_float(options.k());
}

Tensor LocalResponseNormImpl::forward(const Tensor& input) { return functional::local_response_norm(input, options); }

template class BatchNormImpl<1>;
template class BatchNormImpl<2>;
template class BatchNormImpl<3>;
template class InstanceNormImpl<1>;
template class InstanceNormImpl<2>;
template class InstanceNormImpl<3>;

}  // namespace ember::nn
