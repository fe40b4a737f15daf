#pragma once
// Convolution layers (https://pytorch.org/docs/1.13/nn.html#convolution-layers).
#include <optional>
#include <string>
#include <vector>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options/conv.h"
#include "nn/repr.h"

namespace ember::nn {

// What every convolution module shares: the weight and bias, PyTorch's default init, padding modes
// other than zeros (applied with F::pad before the convolution) and the repr.
template <size_t D, class Derived>
class ConvNdImpl : public Cloneable<Derived> {
 public:
  ConvNdImpl(detail::ConvNdOptions<D> options, std::string name)
      : Cloneable<Derived>(std::move(name)), options(std::move(options)) {}
  void reset() override;
  // PyTorch's default: weight kaiming_uniform_(a=sqrt(5)), bias uniform(±1/sqrt(fan_in)).
  void reset_parameters();
  std::string extra_repr() const override;

  detail::ConvNdOptions<D> options;
  Tensor weight;  // (out, in / groups, *kernel), transposed: (in, out / groups, *kernel)
  Tensor bias;    // (out), undefined without bias

 protected:
  // F::pad's sizes for a padding mode other than zeros: last dim first, each side.
  std::vector<int64_t> reversed_padding_repeated_twice_;
};

// Convolution over D spatial dims (https://pytorch.org/docs/1.13/generated/torch.nn.Conv2d.html).
//   nn::Conv2d conv(nn::Conv2dOptions(1, 32, 3).padding(1));  conv(x)  // (64, 1, 28, 28) -> (64, 32, 28, 28)
template <size_t D>
class ConvImpl : public ConvNdImpl<D, ConvImpl<D>> {
 public:
  ConvImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : ConvImpl(ConvOptions<D>(in_channels, out_channels, kernel_size)) {}
  explicit ConvImpl(ConvOptions<D> options);
  Tensor forward(const Tensor& input) { return run(input, false); }
  // relu(forward(input)), the relu applied as the convolution stores its result (a launch fewer);
  // nn::Sequential runs a Conv followed by a ReLU so.
  Tensor forward_relu(const Tensor& input) { return run(input, true); }

 private:
  Tensor run(const Tensor& input, bool relu);
};
using Conv1dImpl = ConvImpl<1>;
using Conv2dImpl = ConvImpl<2>;
using Conv3dImpl = ConvImpl<3>;
EMBER_MODULE(Conv1d);
EMBER_MODULE(Conv2d);
EMBER_MODULE(Conv3d);

// Transposed convolution (https://pytorch.org/docs/1.13/generated/torch.nn.ConvTranspose2d.html).
//   nn::ConvTranspose2d up(nn::ConvTranspose2dOptions(32, 16, 2).stride(2));  up(x)  // doubles H and W
template <size_t D>
class ConvTransposeImpl : public ConvNdImpl<D, ConvTransposeImpl<D>> {
 public:
  ConvTransposeImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : ConvTransposeImpl(ConvTransposeOptions<D>(in_channels, out_channels, kernel_size)) {}
  explicit ConvTransposeImpl(ConvTransposeOptions<D> options);
  Tensor forward(const Tensor& input) { return forward(input, std::nullopt); }
  // output_size picks the output padding that gives exactly that size, as PyTorch's.
  Tensor forward(const Tensor& input, const std::optional<std::vector<int64_t>>& output_size);
};
using ConvTranspose1dImpl = ConvTransposeImpl<1>;
using ConvTranspose2dImpl = ConvTransposeImpl<2>;
using ConvTranspose3dImpl = ConvTransposeImpl<3>;
EMBER_MODULE(ConvTranspose1d);
EMBER_MODULE(ConvTranspose2d);
EMBER_MODULE(ConvTranspose3d);

}  // namespace ember::nn
