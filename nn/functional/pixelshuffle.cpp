// pixel_shuffle and pixel_unshuffle: PyTorch's checks, then a reshape, a permute and one copy, recorded as
// one node each; their gradients are each other.
#include "nn/functional/pixelshuffle.h"

#include <string>
#include <vector>

#include "autograd/record.h"
#include "runtime/error.h"

namespace ember::nn::functional {

namespace {

// The dims before the last three, then `tail`.
std::vector<int64_t> with_tail(const Tensor& x, std::initializer_list<int64_t> tail) {
  std::vector<int64_t> sizes(x.sizes().begin(), x.sizes().end() - 3);
  sizes.insert(sizes.end(), tail);
  return sizes;
}

// The permutation that moves the last five dims from `from` order; the leading dims stay.
std::vector<int64_t> permuted(const Tensor& x5, std::initializer_list<int64_t> last_five) {
  const int64_t lead = x5.dim() - 5;
  std::vector<int64_t> order;
  for (int64_t d = 0; d < lead; ++d) order.push_back(d);
  for (int64_t d : last_five) order.push_back(lead + d);
  return order;
}

Tensor shuffle(const Tensor& x, int64_t r) {
  const int64_t c = x.size(-3) / (r * r), h = x.size(-2), w = x.size(-1);
  const Tensor split = x.reshape(with_tail(x, {c, r, r, h, w}));
  return split.permute(permuted(split, {0, 3, 1, 4, 2})).reshape(with_tail(x, {c, h * r, w * r}));
}

Tensor unshuffle(const Tensor& x, int64_t r) {
  const int64_t c = x.size(-3), h = x.size(-2) / r, w = x.size(-1) / r;
  const Tensor split = x.reshape(with_tail(x, {c, h, r, w, r}));
  return split.permute(permuted(split, {0, 2, 4, 1, 3})).reshape(with_tail(x, {c * r * r, h, w}));
}

Tensor pixel_unshuffle_of(const Tensor& input, int64_t r);

Tensor pixel_shuffle_of(const Tensor& input, int64_t r) {
  if (input.dim() < 3) {
    throw Error("pixel_shuffle expects input to have at least 3 dimensions, but got input with " +
                std::to_string(input.dim()) + " dimension(s)");
  }
  if (r <= 0) throw Error("pixel_shuffle expects a positive upscale_factor, but got " + std::to_string(r));
  if (input.size(-3) % (r * r) != 0) {
    throw Error("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                "upscale_factor, but input.size(-3)=" + std::to_string(input.size(-3)) + " is not divisible by " +
                std::to_string(r * r));
  }
  autograd::Record rec("PixelShuffleBackward0", {&input});
  // A factor of 1 moves nothing; the result is still a new tensor, as PyTorch's is.
  const Tensor out = r == 1 ? input.clone() : shuffle(input, r).contiguous();
  if (!rec) return out;
  return rec.finish(out, [r](autograd::FunctionNode&, const autograd::tensor_list& g) {
    return autograd::tensor_list{pixel_unshuffle_of(g[0], r)};
  });
}

Tensor pixel_unshuffle_of(const Tensor& input, int64_t r) {
  if (input.dim() < 3) {
    throw Error("pixel_unshuffle expects input to have at least 3 dimensions, but got input with " +
                std::to_string(input.dim()) + " dimension(s)");
  }
  if (r <= 0) throw Error("pixel_unshuffle expects a positive downscale_factor, but got " + std::to_string(r));
  if (input.size(-2) % r != 0) {
    throw Error("pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=" +
                std::to_string(input.size(-2)) + " is not divisible by " + std::to_string(r));
  }
  if (input.size(-1) % r != 0) {
    throw Error("pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=" +
                std::to_string(input.size(-1)) + " is not divisible by " + std::to_string(r));
  }
  autograd::Record rec("PixelUnshuffleBackward0", {&input});
  // PyTorch 1.13 returns an empty input unchanged in shape (a copy).
  const Tensor out = r == 1 || input.numel() == 0 ? input.clone() : unshuffle(input, r).contiguous();
  if (!rec) return out;
  return rec.finish(out, [r](autograd::FunctionNode&, const autograd::tensor_list& g) {
    return autograd::tensor_list{pixel_shuffle_of(g[0], r)};
  });
}

}  // namespace

Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& options) {
  return pixel_shuffle_of(input, options.upscale_factor());
}

Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& options) {
  return pixel_unshuffle_of(input, options.downscale_factor());
}

Tensor channel_shuffle(const Tensor& input, const ChannelShuffleFuncOptions& options) {
  if (input.dim() <= 2) {
    throw Error("channel_shuffle expects input with > 2 dims, but got input with sizes " + to_string(input.sizes()));
  }
  const int64_t groups = options.groups(), channels = input.size(1);
  if (groups <= 0) {
    throw Error("Number of groups to divide channels in must be positive. Value of groups:" + std::to_string(groups));
  }
  if (channels % groups != 0) {
    throw Error("Number of channels must be divisible by groups. Got " + std::to_string(channels) + " channels and " +
                std::to_string(groups) + " groups.");
  }
  std::vector<int64_t> grouped = input.sizes().vec();
  grouped[1] = channels / groups;
  grouped.insert(grouped.begin() + 1, groups);
  return input.reshape(grouped).transpose(1, 2).reshape(input.sizes());
}

}  // namespace ember::nn::functional
