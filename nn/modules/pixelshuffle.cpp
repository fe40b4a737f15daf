#include "nn/modules/pixelshuffle.h"

#include "nn/functional/pixelshuffle.h"

namespace ember::nn {

PixelShuffleImpl::PixelShuffleImpl(const PixelShuffleOptions& options) : options(options) {}
std::string PixelShuffleImpl::extra_repr() const { return "upscale_factor=" + std::to_string(options.upscale_factor()); }
Tensor PixelShuffleImpl::forward(const Tensor& input) { return functional::pixel_shuffle(input, options); }

ChannelShuffleImpl::ChannelShuffleImpl(const ChannelShuffleOptions& options) : options(options) {}
std::string ChannelShuffleImpl::extra_repr() const { return "groups=" + std::to_string(options.groups()); }
Tensor ChannelShuffleImpl::forward(const Tensor& input) { return functional::channel_shuffle(input, options); }

PixelUnshuffleImpl::PixelUnshuffleImpl(const PixelUnshuffleOptions& options) : options(options) {}
std::string PixelUnshuffleImpl::extra_repr() const {
  return "downscale_factor=" + std::to_string(options.downscale_factor());
}
Tensor PixelUnshuffleImpl::forward(const Tensor& input) { return functional::pixel_unshuffle(input, options); }

}  // namespace ember::nn
