// conv1d/2d/3d and conv_transpose1d/2d/3d: PyTorch's checks and messages (aten's batchify,
// _convolution_mode, convolution_same and check_shape_forward, in their order), the output sizes, then
// one of the differentiable convolutions of detail/convolution.h.
//
// padding="same" pads by dilation·(kernel − 1) in total, the odd unit after the positions; PyTorch pads a
// copy of the input for that unit, the kernels need no copy: positions past the input read as zero.
#include "nn/functional/conv.h"

#include <string>

#include "nn/functional/detail/convolution.h"
#include "tensor/autocast.h"
#include "tensor/ops_support.h"

namespace ember::nn::functional {

namespace {

template <size_t D>
std::string join(const std::array<int64_t, D>& values, const char* separator) {
  std::string text;
  for (size_t i = 0; i < D; ++i) text += (i ? separator : "") + std::to_string(values[i]);
  return text;
}

// The input with a batch dim, and whether it had one (aten's batchify).
std::pair<Tensor, bool> batchify(const Tensor& input, int64_t spatial, const char* name) {
  const int64_t unbatched = spatial + 1;
  const bool batched = input.dim() == unbatched + 1;
  if (input.dim() != unbatched && !batched) {
    throw Error("Expected " + std::to_string(unbatched) + "D (unbatched) or " + std::to_string(unbatched + 1) +
                "D (batched) input to " + name + ", but got input of size: " + to_string(input.sizes()));
  }
  return {batched ? input : input.unsqueeze(0), batched};
}

// What every convolution checks before its shapes: the weight's rank, groups, floating matching dtypes
// and one device.
template <size_t D>
void check_common(const Tensor& input, const Tensor& weight, const Tensor& bias, const ExpandingArray<D>& stride,
                  int64_t groups) {
  if (weight.dim() < 3) throw Error("weight should have at least three dimensions");
  if (weight.dim() != static_cast<int64_t>(D) + 2) {
    throw Error("expected stride to be a single integer value or a list of " + std::to_string(weight.dim() - 2) +
                " values to match the convolution dimensions, but got stride=" + to_string(IntArrayRef(stride)));
  }
  if (groups <= 0) throw Error("non-positive groups is not supported");
  ember::detail::check_same_device({&input, &weight, &bias});
  for (const Tensor* other : {&weight, &bias}) {
    if (other->defined() && other->dtype() != input.dtype()) {
      throw Error("expected scalar type " + scalar_type_name(input.dtype()) + " but found " +
                  scalar_type_name(other->dtype()));
    }
  }
  if (!input.is_floating_point()) {
    throw UnsupportedError("convolution of " + scalar_type_name(input.dtype()) +
                           " tensors: ember's convolution kernels take floating dtypes only");
  }
}

// check_shape_forward's checks of padding, stride, dilation and the weight's leading dim against groups.
template <size_t D>
void check_params(const Tensor& weight, const std::array<int64_t, D>& padding, const ExpandingArray<D>& stride,
                  const ExpandingArray<D>& dilation, const ExpandingArray<D>* output_padding, int64_t groups,
                  bool transposed) {
  for (int64_t p : padding) {
    if (p < 0) throw Error("negative padding is not supported");
  }
  if (output_padding) {
    for (int64_t p : **output_padding) {
      if (p < 0) throw Error("negative output_padding is not supported");
    }
  }
  for (int64_t s : *stride) {
    if (s <= 0) throw Error("non-positive stride is not supported");
  }
  if (!transposed) {
    for (int64_t d : *dilation) {
      if (d <= 0) throw Error("non-positive dilation is not supported");
    }
  }
  const std::string weight_sizes = to_string(weight.sizes());
  const std::string g = std::to_string(groups);
  if (weight.size(0) < groups) {
    throw Error("Given groups=" + g + ", expected weight to be at least " + g +
                " at dimension 0, but got weight of size " + weight_sizes + " instead");
  }
  if (weight.size(0) % groups != 0) {
    throw Error("Given groups=" + g + ", expected weight to be divisible by " + g +
                " at dimension 0, but got weight of size [" + weight_sizes + "] instead");
  }
}

// PyTorch's names of the spatial dims in the transposed convolution's messages: a 1-d convolution runs
// as a 2-d one there, with a height of 1.
template <size_t D>
std::vector<const char*> dim_names() {
  if (D == 3) return {"depth", "height", "width"};
  return {"height", "width"};
}

template <size_t D>
ConvGeometry geometry_of(const ExpandingArray<D>& stride, const std::array<int64_t, D>& padding,
                         const ExpandingArray<D>& dilation, int64_t groups) {
  ConvGeometry g;
  g.spatial = static_cast<int>(D);
  g.groups = groups;
  for (size_t d = 0; d < D; ++d) {
    g.stride[d] = stride[d];
    g.padding[d] = padding[d];
    g.dilation[d] = dilation[d];
  }
  return g;
}

template <size_t D>
Tensor conv_nd(const char* name, const Tensor& input_in, const Tensor& weight, const ConvFuncOptions<D>& options,
               bool relu = false) {
  if (autocast::is_active()) {
    return autocast::in_lower_precision([&](const Tensor& x, const Tensor& w, const Tensor& b) {
      return conv_nd<D>(name, x, w, ConvFuncOptions<D>(options).bias(b), relu);
    }, input_in, weight, options.bias());
  }
  auto [input, batched] = batchify(input_in, D, name);
  const Tensor& bias = options.bias();
  const int64_t groups = options.groups();
  const ExpandingArray<D>& stride = options.stride();
  const ExpandingArray<D>& dilation = options.dilation();

  // Padding before each dim, and the output's sizes ("same": the input's).
  std::array<int64_t, D> padding{};
  const bool same = std::holds_alternative<enumtype::kSame>(options.padding());
  if (const auto* sizes = std::get_if<ExpandingArray<D>>(&options.padding())) padding = **sizes;
  if (same) {
    if (weight.dim() < 3) throw Error("weight should have at least three dimensions");
    if (weight.dim() != input.dim()) {
      throw Error("Expected " + std::to_string(weight.dim()) + "-dimensional input for " +
                  std::to_string(weight.dim()) + "-dimensional weight" + to_string(weight.sizes()) + ", but got " +
                  std::to_string(input.dim()) + "-dimensional input of size " + to_string(input.sizes()) +
                  " instead");
    }
    for (int64_t s : *stride) {
      if (s != 1) throw Error("padding='same' is not supported for strided convolutions");
    }
    for (size_t d = 0; d < D; ++d) padding[d] = dilation[d] * (weight.size(2 + d) - 1) / 2;
  }
  check_common(input, weight, bias, stride, groups);
  check_params<D>(weight, padding, stride, dilation, nullptr, groups, false);
  const int64_t channels = weight.size(1) * groups;
  if (input.size(1) != channels) {
    throw Error("Given groups=" + std::to_string(groups) + ", weight of size " + to_string(weight.sizes()) +
                ", expected input" + to_string(input.sizes()) + " to have " + std::to_string(channels) +
                " channels, but got " + std::to_string(input.size(1)) + " channels instead");
  }
  if (bias.defined() && (bias.dim() != 1 || bias.size(0) != weight.size(0))) {
    throw Error("Given weight of size " + to_string(weight.sizes()) + ", expected bias to be 1-dimensional with " +
                std::to_string(weight.size(0)) + " elements, but got bias of size " + to_string(bias.sizes()) +
                " instead");
  }
  std::array<int64_t, D> padded{}, kernel{};
  bool fits = true;
  for (size_t d = 0; d < D; ++d) {
    // "same" checks with its symmetric padding, as PyTorch does with the unit-padded copy.
    const int64_t extra = same ? dilation[d] * (weight.size(2 + d) - 1) % 2 : 0;
    padded[d] = input.size(2 + d) + 2 * padding[d] + extra;
    kernel[d] = dilation[d] * (weight.size(2 + d) - 1) + 1;
    fits = fits && padded[d] >= kernel[d];
  }
  if (!fits) {
    throw Error("Calculated padded input size per channel: (" + join(padded, " x ") + "). Kernel size: (" +
                join(kernel, " x ") + "). Kernel size can't be greater than actual input size");
  }
  std::vector<int64_t> out_size(D);
  for (size_t d = 0; d < D; ++d) out_size[d] = (padded[d] - kernel[d]) / stride[d] + 1;
  Tensor out =
      detail::convolution(input, weight, bias, geometry_of(stride, padding, dilation, groups), out_size, relu);
  return batched ? out : out.squeeze(0);
}

template <size_t D>
Tensor conv_transpose_nd(const char* name, const Tensor& input_in, const Tensor& weight,
                         const ConvTransposeFuncOptions<D>& options) {
  if (autocast::is_active()) {
    return autocast::in_lower_precision([&](const Tensor& x, const Tensor& w, const Tensor& b) {
      return conv_transpose_nd<D>(name, x, w, ConvTransposeFuncOptions<D>(options).bias(b));
    }, input_in, weight, options.bias());
  }
  auto [input, batched] = batchify(input_in, D, name);
  const Tensor& bias = options.bias();
  const int64_t groups = options.groups();
  const ExpandingArray<D>& stride = options.stride();
  const ExpandingArray<D>& dilation = options.dilation();
  const ExpandingArray<D>& output_padding = options.output_padding();
  check_common(input, weight, bias, stride, groups);
  check_params<D>(weight, *options.padding(), stride, dilation, &output_padding, groups, true);
  if (input.size(1) != weight.size(0)) {
    throw Error("Given transposed=1, weight of size " + to_string(weight.sizes()) + ", expected input" +
                to_string(input.sizes()) + " to have " + std::to_string(weight.size(0)) + " channels, but got " +
                std::to_string(input.size(1)) + " channels instead");
  }
  const int64_t out_channels = weight.size(1) * groups;
  if (bias.defined() && (bias.dim() != 1 || bias.size(0) != out_channels)) {
    throw Error("Given transposed=1, weight of size " + to_string(weight.sizes()) +
                ", expected bias to be 1-dimensional with " + std::to_string(out_channels) +
                " elements, but got bias of size " + to_string(bias.sizes()) + " instead");
  }
  // The transposed kernels' own checks (PyTorch's slow_conv_transpose shape check), where a 1-d
  // convolution shows as a 2-d one of height 1.
  const std::vector<const char*> names = dim_names<D>();
  const size_t shown = names.size();
  auto listing = [&](const char* what, const ExpandingArray<D>& values, const char* separator) {
    std::string text;
    for (size_t i = 0; i < shown; ++i) {
      const int64_t value = i + D < shown ? (std::string(what) == "output_padding" ? 0 : 1) : values[i + D - shown];
      text += std::string(i ? separator : "") + what + "_" + names[i] + ": " + std::to_string(value);
    }
    return text;
  };
  for (int64_t d : *dilation) {
    if (d <= 0) throw Error("dilation should be greater than zero, but got " + listing("dilation", dilation, ", "));
  }
  for (size_t d = 0; d < D; ++d) {
    if (output_padding[d] >= stride[d] && output_padding[d] >= dilation[d]) {
      throw Error("output padding must be smaller than either stride or dilation, but got " +
                  listing("output_padding", output_padding, " ") + " " + listing("stride", stride, " ") + " " +
                  listing("dilation", dilation, " "));
    }
  }
  std::vector<int64_t> out_size(D);
  bool positive = true;
  for (size_t d = 0; d < D; ++d) {
    out_size[d] = (input.size(2 + d) - 1) * stride[d] - 2 * options.padding()[d] +
                  dilation[d] * (weight.size(2 + d) - 1) + output_padding[d] + 1;
    positive = positive && out_size[d] >= 1;
  }
  if (!positive) {
    std::string in_text, out_text;
    for (size_t i = 0; i < shown; ++i) {
      const bool padded_dim = i + D < shown;
      in_text += std::string(i ? " x " : "") + std::to_string(padded_dim ? 1 : input.size(2 + i + D - shown));
      out_text += std::string(i ? " x " : "") + std::to_string(padded_dim ? 1 : out_size[i + D - shown]);
    }
    throw Error("Given input size per channel: (" + in_text + "). Calculated output size per channel: (" + out_text +
                "). Output size is too small");
  }
  Tensor out = detail::convolution_transpose(input, weight, bias,
                                             geometry_of(stride, *options.padding(), dilation, groups), out_size);
  return batched ? out : out.squeeze(0);
}

}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options) {
  return conv_nd<1>("conv1d", input, weight, options);
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options) {
  return conv_nd<2>("conv2d", input, weight, options);
}
Tensor conv3d(const Tensor& input, const Tensor& weight, const Conv3dFuncOptions& options) {
  return conv_nd<3>("conv3d", input, weight, options);
}

namespace detail {

template <size_t D>
Tensor conv_relu(const Tensor& input, const Tensor& weight, const ConvFuncOptions<D>& options) {
  static const char* const names[] = {"conv1d", "conv2d", "conv3d"};
  return conv_nd<D>(names[D - 1], input, weight, options, true);
}
template Tensor conv_relu<1>(const Tensor&, const Tensor&, const ConvFuncOptions<1>&);
template Tensor conv_relu<2>(const Tensor&, const Tensor&, const ConvFuncOptions<2>&);
template Tensor conv_relu<3>(const Tensor&, const Tensor&, const ConvFuncOptions<3>&);

}  // namespace detail

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const ConvTranspose1dFuncOptions& options) {
  return conv_transpose_nd<1>("conv_transpose1d", input, weight, options);
}
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const ConvTranspose2dFuncOptions& options) {
  return conv_transpose_nd<2>("conv_transpose2d", input, weight, options);
}
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const ConvTranspose3dFuncOptions& options) {
  return conv_transpose_nd<3>("conv_transpose3d", input, weight, options);
}

template <size_t D>
std::vector<int64_t> conv_transpose_output_padding(const Tensor& input, std::optional<IntArrayRef> output_size,
                                                   const ExpandingArray<D>& output_padding,
                                                   const ExpandingArray<D>& stride, const ExpandingArray<D>& padding,
                                                   const ExpandingArray<D>& kernel_size,
                                                   const ExpandingArray<D>& dilation) {
  if (!output_size) return output_padding.vec();
  std::vector<int64_t> requested = output_size->vec();
  const size_t k = D;
  if (requested.size() == k + 2) requested.erase(requested.begin(), requested.begin() + 2);
  if (requested.size() != k) {
    throw Error("output_size must have " + std::to_string(k) + " or " + std::to_string(k + 2) + " elements (got " +
                std::to_string(output_size->size()) + ")");
  }
  const int64_t first_spatial = input.dim() - static_cast<int64_t>(D);
  std::vector<int64_t> min_sizes(k), max_sizes(k), result(k);
  for (size_t d = 0; d < k; ++d) {
    min_sizes[d] = (input.size(first_spatial + d) - 1) * stride[d] - 2 * padding[d] +
                   dilation[d] * (kernel_size[d] - 1) + 1;
    max_sizes[d] = min_sizes[d] + stride[d] - 1;
  }
  for (size_t d = 0; d < k; ++d) {
    if (requested[d] < min_sizes[d] || requested[d] > max_sizes[d]) {
      const IntArrayRef in_sizes = input.sizes();
      throw Error("requested an output size of " + to_string(requested) + ", but valid sizes range from " +
                  to_string(min_sizes) + " to " + to_string(max_sizes) + " (for an input of " +
                  to_string(std::vector<int64_t>(in_sizes.begin() + first_spatial, in_sizes.end())) + ")");
    }
    result[d] = requested[d] - min_sizes[d];
  }
  return result;
}

#define EMBER_CONV_OUTPUT_PADDING(D)                                                                        \
  template std::vector<int64_t> conv_transpose_output_padding<D>(                                          \
      const Tensor&, std::optional<IntArrayRef>, const ExpandingArray<D>&, const ExpandingArray<D>&,        \
      const ExpandingArray<D>&, const ExpandingArray<D>&, const ExpandingArray<D>&);
EMBER_CONV_OUTPUT_PADDING(1)
EMBER_CONV_OUTPUT_PADDING(2)
EMBER_CONV_OUTPUT_PADDING(3)
#undef EMBER_CONV_OUTPUT_PADDING

}  // namespace ember::nn::functional
