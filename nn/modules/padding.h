#pragma once
// Padding layers (https://pytorch.org/docs/1.13/nn.html#padding-layers): each pads the last D dims of
// (N, C, ...) or (C, ...) input, the last dim's (left, right) pair first, as F::pad does.
#include <string>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options/padding.h"
#include "nn/repr.h"

namespace ember::nn {

// Pads with the input's mirror image, the edge not repeated (https://pytorch.org/docs/1.13/generated/torch.nn.ReflectionPad2d.html).
//   nn::ReflectionPad2d pad({1, 1, 2, 0});  pad(x)  // (N, C, H, W) -> (N, C, H + 2, W + 2)
template <size_t D>
class ReflectionPadImpl : public Cloneable<ReflectionPadImpl<D>> {
 public:
  ReflectionPadImpl(ExpandingArray<D * 2> padding) : ReflectionPadImpl(ReflectionPadOptions<D>(padding)) {}
  explicit ReflectionPadImpl(const ReflectionPadOptions<D>& options)
      : Cloneable<ReflectionPadImpl<D>>(name_with_dims("ReflectionPad", D)), options(options) {}
  void reset() override {}
  std::string extra_repr() const override { return repr_tuple(options.padding().vec()); }
  Tensor forward(const Tensor& input);

  ReflectionPadOptions<D> options;
};
using ReflectionPad1dImpl = ReflectionPadImpl<1>;
using ReflectionPad2dImpl = ReflectionPadImpl<2>;
using ReflectionPad3dImpl = ReflectionPadImpl<3>;
EMBER_MODULE(ReflectionPad1d);
EMBER_MODULE(ReflectionPad2d);
EMBER_MODULE(ReflectionPad3d);

// Pads by repeating the edge value (https://pytorch.org/docs/1.13/generated/torch.nn.ReplicationPad2d.html).
//   nn::ReplicationPad1d pad(3);  pad(x)  // (N, C, L) -> (N, C, L + 6)
template <size_t D>
class ReplicationPadImpl : public Cloneable<ReplicationPadImpl<D>> {
 public:
  ReplicationPadImpl(ExpandingArray<D * 2> padding) : ReplicationPadImpl(ReplicationPadOptions<D>(padding)) {}
  explicit ReplicationPadImpl(const ReplicationPadOptions<D>& options)
      : Cloneable<ReplicationPadImpl<D>>(name_with_dims("ReplicationPad", D)), options(options) {}
  void reset() override {}
  std::string extra_repr() const override { return repr_tuple(options.padding().vec()); }
  Tensor forward(const Tensor& input);

  ReplicationPadOptions<D> options;
};
using ReplicationPad1dImpl = ReplicationPadImpl<1>;
using ReplicationPad2dImpl = ReplicationPadImpl<2>;
using ReplicationPad3dImpl = ReplicationPadImpl<3>;
EMBER_MODULE(ReplicationPad1d);
EMBER_MODULE(ReplicationPad2d);
EMBER_MODULE(ReplicationPad3d);

// Pads with a constant value (https://pytorch.org/docs/1.13/generated/torch.nn.ConstantPad2d.html).
//   nn::ConstantPad2d pad({1, 1, 2, 0}, 3.5);  pad(x)
template <size_t D>
class ConstantPadImpl : public Cloneable<ConstantPadImpl<D>> {
 public:
  ConstantPadImpl(ExpandingArray<D * 2> padding, double value) : ConstantPadImpl(ConstantPadOptions<D>(padding, value)) {}
  explicit ConstantPadImpl(const ConstantPadOptions<D>& options)
      : Cloneable<ConstantPadImpl<D>>(name_with_dims("ConstantPad", D)), options(options) {}
  void reset() override {}
  std::string extra_repr() const override {
    return "padding=" + repr_tuple(options.padding().vec()) + ", value=" + repr_float(options.value());
  }
  Tensor forward(const Tensor& input);

  ConstantPadOptions<D> options;
};
using ConstantPad1dImpl = ConstantPadImpl<1>;
using ConstantPad2dImpl = ConstantPadImpl<2>;
using ConstantPad3dImpl = ConstantPadImpl<3>;
EMBER_MODULE(ConstantPad1d);
EMBER_MODULE(ConstantPad2d);
EMBER_MODULE(ConstantPad3d);

// Pads the last two dims with zeros (https://pytorch.org/docs/1.13/generated/torch.nn.ZeroPad2d.html).
//   nn::ZeroPad2d pad(2);  pad(x)  // (N, C, H, W) -> (N, C, H + 4, W + 4)
class ZeroPad2dImpl : public Cloneable<ZeroPad2dImpl> {
 public:
  ZeroPad2dImpl(ExpandingArray<4> padding) : ZeroPad2dImpl(ZeroPad2dOptions(padding)) {}
  explicit ZeroPad2dImpl(const ZeroPad2dOptions& options) : options(options) {}
  void reset() override {}
  std::string extra_repr() const override { return repr_tuple(options.padding().vec()); }
  Tensor forward(const Tensor& input);

  ZeroPad2dOptions options;
};
EMBER_MODULE(ZeroPad2d);

}  // namespace ember::nn
