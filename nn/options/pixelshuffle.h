#pragma once
// Options of PixelShuffle, PixelUnshuffle and ChannelShuffle and their functionals, as LibTorch 1.13 has them:
// `F::pixel_shuffle(x, F::PixelShuffleFuncOptions(2))`.
#include <cstdint>

#include "nn/arg.h"

namespace ember::nn {

// PixelShuffle: https://pytorch.org/docs/1.13/generated/torch.nn.PixelShuffle.html
struct PixelShuffleOptions {
  PixelShuffleOptions(int64_t upscale_factor) : upscale_factor_(upscale_factor) {}
  EMBER_ARG(int64_t, upscale_factor);
};

// PixelUnshuffle: https://pytorch.org/docs/1.13/generated/torch.nn.PixelUnshuffle.html
struct PixelUnshuffleOptions {
  PixelUnshuffleOptions(int64_t downscale_factor) : downscale_factor_(downscale_factor) {}
  EMBER_ARG(int64_t, downscale_factor);
};

// ChannelShuffle: https://pytorch.org/docs/1.13/generated/torch.nn.ChannelShuffle.html
struct ChannelShuffleOptions {
  ChannelShuffleOptions(int64_t groups) : groups_(groups) {}
  EMBER_ARG(int64_t, groups);
};

namespace functional {
using ChannelShuffleFuncOptions = ChannelShuffleOptions;
using PixelShuffleFuncOptions = PixelShuffleOptions;
using PixelUnshuffleFuncOptions = PixelUnshuffleOptions;
}  // namespace functional

}  // namespace ember::nn
