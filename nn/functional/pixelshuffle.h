#pragma once
// pixel_shuffle and pixel_unshuffle as LibTorch 1.13 has them: (*, C r^2, H, W) <-> (*, C, H r, W r),
// each a reshape, a permute and a copy under one node (PixelShuffleBackward0, PixelUnshuffleBackward0)
// whose gradient is the other. https://pytorch.org/docs/1.13/generated/torch.nn.PixelShuffle.html
//
//   Tensor y = F::pixel_shuffle(x, F::PixelShuffleFuncOptions(2));
#include "nn/options/pixelshuffle.h"
#include "tensor/tensor.h"

namespace ember::nn::functional {

Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& options);
Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& options);
// (N, g·k, *) -> (N, k·g, *): channel c·k + j moves to j·g + c, as torch.nn.functional.channel_shuffle.
// Unlike PyTorch 1.13's (whose node is NotImplemented), it is differentiable: a reshape, a transpose and
// a copy, as PyTorch 2 composes it.
Tensor channel_shuffle(const Tensor& input, const ChannelShuffleFuncOptions& options);

}  // namespace ember::nn::functional
