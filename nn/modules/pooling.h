#pragma once
// Pooling layers (https://pytorch.org/docs/1.13/nn.html#pooling-layers).
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options/pooling.h"
#include "nn/repr.h"

namespace ember::nn {

// The maximum of each window, optionally with where it was (https://pytorch.org/docs/1.13/generated/torch.nn.MaxPool2d.html).
//   nn::MaxPool2d pool(2);  pool(x)  // (64, 32, 28, 28) -> (64, 32, 14, 14)
template <size_t D>
class MaxPoolImpl : public Cloneable<MaxPoolImpl<D>> {
 public:
  MaxPoolImpl(ExpandingArray<D> kernel_size) : MaxPoolImpl(MaxPoolOptions<D>(kernel_size)) {}
  explicit MaxPoolImpl(const MaxPoolOptions<D>& options)
      : Cloneable<MaxPoolImpl<D>>(name_with_dims("MaxPool", D)), options(options) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);

  MaxPoolOptions<D> options;
};
using MaxPool1dImpl = MaxPoolImpl<1>;
using MaxPool2dImpl = MaxPoolImpl<2>;
using MaxPool3dImpl = MaxPoolImpl<3>;
EMBER_MODULE(MaxPool1d);
EMBER_MODULE(MaxPool2d);
EMBER_MODULE(MaxPool3d);

// The mean of each window (https://pytorch.org/docs/1.13/generated/torch.nn.AvgPool2d.html).
//   nn::AvgPool2d pool(nn::AvgPool2dOptions(3).stride(2).padding(1));  pool(x)
template <size_t D>
class AvgPoolImpl : public Cloneable<AvgPoolImpl<D>> {
 public:
  AvgPoolImpl(ExpandingArray<D> kernel_size) : AvgPoolImpl(AvgPoolOptions<D>(kernel_size)) {}
  explicit AvgPoolImpl(const AvgPoolOptions<D>& options)
      : Cloneable<AvgPoolImpl<D>>(name_with_dims("AvgPool", D)), options(options) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  AvgPoolOptions<D> options;
};
using AvgPool1dImpl = AvgPoolImpl<1>;
using AvgPool2dImpl = AvgPoolImpl<2>;
using AvgPool3dImpl = AvgPoolImpl<3>;
EMBER_MODULE(AvgPool1d);
EMBER_MODULE(AvgPool2d);
EMBER_MODULE(AvgPool3d);

// Max pooling to a fixed output size (https://pytorch.org/docs/1.13/generated/torch.nn.AdaptiveMaxPool2d.html).
//   nn::AdaptiveMaxPool2d pool(nn::AdaptiveMaxPool2dOptions({std::nullopt, 7}));  // keeps H, W -> 7
template <size_t D, class OutputSize>
class AdaptiveMaxPoolImpl : public Cloneable<AdaptiveMaxPoolImpl<D, OutputSize>> {
 public:
  AdaptiveMaxPoolImpl(const AdaptiveMaxPoolOptions<OutputSize>& options)
      : Cloneable<AdaptiveMaxPoolImpl<D, OutputSize>>(name_with_dims("AdaptiveMaxPool", D)), options(options) {}
  AdaptiveMaxPoolImpl(int64_t size) : AdaptiveMaxPoolImpl(AdaptiveMaxPoolOptions<OutputSize>(size)) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);

  AdaptiveMaxPoolOptions<OutputSize> options;
};
using AdaptiveMaxPool1dImpl = AdaptiveMaxPoolImpl<1, ExpandingArray<1>>;
using AdaptiveMaxPool2dImpl = AdaptiveMaxPoolImpl<2, ExpandingArrayWithOptionalElem<2>>;
using AdaptiveMaxPool3dImpl = AdaptiveMaxPoolImpl<3, ExpandingArrayWithOptionalElem<3>>;
EMBER_MODULE(AdaptiveMaxPool1d);
EMBER_MODULE(AdaptiveMaxPool2d);
EMBER_MODULE(AdaptiveMaxPool3d);

// Average pooling to a fixed output size (https://pytorch.org/docs/1.13/generated/torch.nn.AdaptiveAvgPool2d.html).
//   nn::AdaptiveAvgPool2d pool(1);  pool(x)  // (N, C, H, W) -> (N, C, 1, 1)
template <size_t D, class OutputSize>
class AdaptiveAvgPoolImpl : public Cloneable<AdaptiveAvgPoolImpl<D, OutputSize>> {
 public:
  AdaptiveAvgPoolImpl(const AdaptiveAvgPoolOptions<OutputSize>& options)
      : Cloneable<AdaptiveAvgPoolImpl<D, OutputSize>>(name_with_dims("AdaptiveAvgPool", D)), options(options) {}
  AdaptiveAvgPoolImpl(int64_t size) : AdaptiveAvgPoolImpl(AdaptiveAvgPoolOptions<OutputSize>(size)) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  AdaptiveAvgPoolOptions<OutputSize> options;
};
using AdaptiveAvgPool1dImpl = AdaptiveAvgPoolImpl<1, ExpandingArray<1>>;
using AdaptiveAvgPool2dImpl = AdaptiveAvgPoolImpl<2, ExpandingArrayWithOptionalElem<2>>;
using AdaptiveAvgPool3dImpl = AdaptiveAvgPoolImpl<3, ExpandingArrayWithOptionalElem<3>>;
EMBER_MODULE(AdaptiveAvgPool1d);
EMBER_MODULE(AdaptiveAvgPool2d);
EMBER_MODULE(AdaptiveAvgPool3d);

// Max pooling undone: values back where their indices say (https://pytorch.org/docs/1.13/generated/torch.nn.MaxUnpool2d.html).
//   auto [y, where] = pool->forward_with_indices(x);  nn::MaxUnpool2d(2)(y, where)
template <size_t D>
class MaxUnpoolImpl : public Cloneable<MaxUnpoolImpl<D>> {
 public:
  MaxUnpoolImpl(ExpandingArray<D> kernel_size) : MaxUnpoolImpl(MaxUnpoolOptions<D>(kernel_size)) {}
  explicit MaxUnpoolImpl(const MaxUnpoolOptions<D>& options)
      : Cloneable<MaxUnpoolImpl<D>>(name_with_dims("MaxUnpool", D)), options(options) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input, const Tensor& indices,
                 const std::optional<std::vector<int64_t>>& output_size = std::nullopt);

  MaxUnpoolOptions<D> options;
};
using MaxUnpool1dImpl = MaxUnpoolImpl<1>;
using MaxUnpool2dImpl = MaxUnpoolImpl<2>;
using MaxUnpool3dImpl = MaxUnpoolImpl<3>;
EMBER_MODULE(MaxUnpool1d);
EMBER_MODULE(MaxUnpool2d);
EMBER_MODULE(MaxUnpool3d);

// The p-norm of each window, (sum of x^p)^(1/p) (https://pytorch.org/docs/1.13/generated/torch.nn.LPPool2d.html).
//   nn::LPPool2d pool(nn::LPPool2dOptions(2, 3).stride(2));  pool(x)
template <size_t D>
class LPPoolImpl : public Cloneable<LPPoolImpl<D>> {
 public:
  LPPoolImpl(double norm_type, ExpandingArray<D> kernel_size) : LPPoolImpl(LPPoolOptions<D>(norm_type, kernel_size)) {}
  explicit LPPoolImpl(const LPPoolOptions<D>& options)
      : Cloneable<LPPoolImpl<D>>(name_with_dims("LPPool", D)), options(options) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  LPPoolOptions<D> options;
};
using LPPool1dImpl = LPPoolImpl<1>;
using LPPool2dImpl = LPPoolImpl<2>;
EMBER_MODULE(LPPool1d);
EMBER_MODULE(LPPool2d);

}  // namespace ember::nn
