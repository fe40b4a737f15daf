#pragma once
// Normalization layers (https://pytorch.org/docs/1.13/nn.html#normalization-layers).
#include <string>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options/batchnorm.h"
#include "nn/options/instancenorm.h"
#include "nn/options/normalization.h"

namespace ember::nn {

// Normalises each channel over the batch (and spatial dims) with batch statistics in training and
// running ones in eval (https://pytorch.org/docs/1.13/generated/torch.nn.BatchNorm2d.html).
//   nn::BatchNorm2d bn(32);  bn(x)  // x: (N, 32, H, W)
template <size_t D>
class BatchNormImpl : public Cloneable<BatchNormImpl<D>> {
 public:
  explicit BatchNormImpl(int64_t num_features) : BatchNormImpl(BatchNormOptions(num_features)) {}
  explicit BatchNormImpl(const BatchNormOptions& options);
  void reset() override;
  void reset_running_stats();
  // weight ones, bias zeros, and the running statistics reset.
  void reset_parameters();
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  BatchNormOptions options;
  Tensor weight, bias;                                      // (num_features), when affine
  Tensor running_mean, running_var, num_batches_tracked;  // when track_running_stats
};
using BatchNorm1dImpl = BatchNormImpl<1>;
using BatchNorm2dImpl = BatchNormImpl<2>;
using BatchNorm3dImpl = BatchNormImpl<3>;
EMBER_MODULE(BatchNorm1d);
EMBER_MODULE(BatchNorm2d);
EMBER_MODULE(BatchNorm3d);

// Normalises each sample and channel over its spatial dims
// (https://pytorch.org/docs/1.13/generated/torch.nn.InstanceNorm2d.html).
//   nn::InstanceNorm2d norm(nn::InstanceNorm2dOptions(3).affine(true));  norm(x)
template <size_t D>
class InstanceNormImpl : public Cloneable<InstanceNormImpl<D>> {
 public:
  explicit InstanceNormImpl(int64_t num_features) : InstanceNormImpl(InstanceNormOptions(num_features)) {}
  explicit InstanceNormImpl(const InstanceNormOptions& options);
  void reset() override;
  void reset_parameters();
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  InstanceNormOptions options;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;
};
using InstanceNorm1dImpl = InstanceNormImpl<1>;
using InstanceNorm2dImpl = InstanceNormImpl<2>;
using InstanceNorm3dImpl = InstanceNormImpl<3>;
EMBER_MODULE(InstanceNorm1d);
EMBER_MODULE(InstanceNorm2d);
EMBER_MODULE(InstanceNorm3d);

// Normalises over the last dims, normalized_shape (https://pytorch.org/docs/1.13/generated/torch.nn.LayerNorm.html).
//   nn::LayerNorm norm(nn::LayerNormOptions({128}));  norm(x)  // x: (*, 128)
class LayerNormImpl : public Cloneable<LayerNormImpl> {
 public:
  LayerNormImpl(std::vector<int64_t> normalized_shape) : LayerNormImpl(LayerNormOptions(std::move(normalized_shape))) {}
  explicit LayerNormImpl(LayerNormOptions options);
  void reset() override;
  void reset_parameters();
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  LayerNormOptions options;
  Tensor weight, bias;  // normalized_shape, when elementwise_affine
};
EMBER_MODULE(LayerNorm);

// Normalises each sample over groups of channels (https://pytorch.org/docs/1.13/generated/torch.nn.GroupNorm.html).
//   nn::GroupNorm norm(8, 32);  norm(x)  // x: (N, 32, *)
class GroupNormImpl : public Cloneable<GroupNormImpl> {
 public:
  GroupNormImpl(int64_t num_groups, int64_t num_channels) : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}
  explicit GroupNormImpl(const GroupNormOptions& options);
  void reset() override;
  void reset_parameters();
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  GroupNormOptions options;
  Tensor weight, bias;  // (num_channels), when affine
};
EMBER_MODULE(GroupNorm);

// Divides each element by a power of its neighbouring channels' mean square
// (https://pytorch.org/docs/1.13/generated/torch.nn.LocalResponseNorm.html).
//   nn::LocalResponseNorm norm(5);  norm(x)  // x: (N, C, *)
class LocalResponseNormImpl : public Cloneable<LocalResponseNormImpl> {
 public:
  LocalResponseNormImpl(int64_t size) : LocalResponseNormImpl(LocalResponseNormOptions(size)) {}
  explicit LocalResponseNormImpl(const LocalResponseNormOptions& options);
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  LocalResponseNormOptions options;
};
EMBER_MODULE(LocalResponseNorm);

}  // namespace ember::nn
