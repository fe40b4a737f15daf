#pragma once
// PixelShuffle and PixelUnshuffle (https://pytorch.org/docs/1.13/generated/torch.nn.PixelShuffle.html):
// move channels into space and back, (*, C r², H, W) <-> (*, C, H r, W r).
#include <string>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options/pixelshuffle.h"

namespace ember::nn {

// (*, C r², H, W) -> (*, C, H r, W r).
//   nn::PixelShuffle shuffle(2);  shuffle(x)  // (1, 8, 3, 3) -> (1, 2, 6, 6)
class PixelShuffleImpl : public Cloneable<PixelShuffleImpl> {
 public:
  explicit PixelShuffleImpl(const PixelShuffleOptions& options);
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  PixelShuffleOptions options;
};
EMBER_MODULE(PixelShuffle);

// (N, g·k, *) -> (N, k·g, *) (https://pytorch.org/docs/1.13/generated/torch.nn.ChannelShuffle.html).
//   nn::ChannelShuffle shuffle(2);  shuffle(x)  // channels 0 1 2 3 -> 0 2 1 3
class ChannelShuffleImpl : public Cloneable<ChannelShuffleImpl> {
 public:
  explicit ChannelShuffleImpl(const ChannelShuffleOptions& options);
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  ChannelShuffleOptions options;
};
EMBER_MODULE(ChannelShuffle);

// (*, C, H r, W r) -> (*, C r², H, W) (https://pytorch.org/docs/1.13/generated/torch.nn.PixelUnshuffle.html).
//   nn::PixelUnshuffle unshuffle(2);  unshuffle(x)  // (1, 2, 6, 6) -> (1, 8, 3, 3)
class PixelUnshuffleImpl : public Cloneable<PixelUnshuffleImpl> {
 public:
  explicit PixelUnshuffleImpl(const PixelUnshuffleOptions& options);
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  PixelUnshuffleOptions options;
};
EMBER_MODULE(PixelUnshuffle);

}  // namespace ember::nn
