#include "nn/modules/conv.h"

#include <cmath>

#include "nn/functional/conv.h"
#include "nn/functional/padding.h"
#include "nn/init.h"
#include "nn/repr.h"

namespace ember::nn {

namespace {

template <size_t D>
detail::ConvNdOptions<D> conv_nd_options(const ConvOptions<D>& o) {
  return detail::ConvNdOptions<D>(o.in_channels(), o.out_channels(), o.kernel_size())
      .stride(o.stride())
      .padding(o.padding())
      .dilation(o.dilation())
      .groups(o.groups())
      .bias(o.bias())
      .padding_mode(o.padding_mode());
}

template <size_t D>
detail::ConvNdOptions<D> conv_nd_options(const ConvTransposeOptions<D>& o) {
  return detail::ConvNdOptions<D>(o.in_channels(), o.out_channels(), o.kernel_size())
      .stride(o.stride())
      .padding(o.padding())
      .dilation(o.dilation())
      .transposed(true)
      .output_padding(o.output_padding())
      .groups(o.groups())
      .bias(o.bias())
      .padding_mode(o.padding_mode());
}

template <size_t D>
std::vector<int64_t> as_vector(const ExpandingArray<D>& values) {
  return values.vec();
}

// F::conv1d, conv2d or conv3d by the number of spatial dims, or with relu after it.
template <size_t D>
Tensor convolve(const Tensor& input, const Tensor& weight, const functional::ConvFuncOptions<D>& options, bool relu) {
  if (relu) return functional::detail::conv_relu<D>(input, weight, options);
  if constexpr (D == 1) {
    return functional::conv1d(input, weight, options);
  } else if constexpr (D == 2) {
    return functional::conv2d(input, weight, options);
  } else {
    return functional::conv3d(input, weight, options);
  }
}

template <size_t D>
bool all_equal(const ExpandingArray<D>& values, int64_t x) {
  for (size_t i = 0; i < D; ++i) {
    if (values[i] != x) return false;
  }
  return true;
}

}  // namespace

template <size_t D, class Derived>
void ConvNdImpl<D, Derived>::reset() {
  const auto& o = options;
  if (o.groups() <= 0) throw Error("groups must be a positive integer");
  if (o.in_channels() % o.groups() != 0) throw Error("in_channels must be divisible by groups");
  if (o.out_channels() % o.groups() != 0) throw Error("out_channels must be divisible by groups");
  reversed_padding_repeated_twice_.assign(2 * D, 0);
  if (const auto* sizes = std::get_if<ExpandingArray<D>>(&o.padding())) {
    for (size_t i = 0; i < D; ++i) {
      reversed_padding_repeated_twice_[2 * i] = reversed_padding_repeated_twice_[2 * i + 1] = (*sizes)[D - 1 - i];
    }
  } else if (std::holds_alternative<enumtype::kSame>(o.padding())) {
    if (!all_equal(o.stride(), 1)) throw Error("padding='same' is not supported for strided convolutions");
    for (size_t i = 0; i < D; ++i) {
      const int64_t total = o.dilation()[i] * (o.kernel_size()[i] - 1);
      const int64_t left = total / 2;
      reversed_padding_repeated_twice_[2 * (D - 1 - i)] = left;
      reversed_padding_repeated_twice_[2 * (D - 1 - i) + 1] = total - left;
    }
  }
  std::vector<int64_t> weight_shape = o.transposed()
                                          ? std::vector<int64_t>{o.in_channels(), o.out_channels() / o.groups()}
                                          : std::vector<int64_t>{o.out_channels(), o.in_channels() / o.groups()};
  for (size_t i = 0; i < D; ++i) weight_shape.push_back(o.kernel_size()[i]);
  weight = this->register_parameter("weight", ember::empty(weight_shape));
  bias = this->register_parameter("bias", o.bias() ? empty({o.out_channels()}) : Tensor(), o.bias());
  reset_parameters();
}

template <size_t D, class Derived>
void ConvNdImpl<D, Derived>::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const auto [fan_in, fan_out] = init::_calculate_fan_in_and_fan_out(weight);
    if (fan_in != 0) {
      const double bound = 1 / std::sqrt(double(fan_in));
      init::uniform_(bias, -bound, bound);
    }
  }
}

template <size_t D, class Derived>
std::string ConvNdImpl<D, Derived>::extra_repr() const {
  const auto& o = options;
  std::string text = std::to_string(o.in_channels()) + ", " + std::to_string(o.out_channels()) +
                     ", kernel_size=" + repr_tuple(as_vector(o.kernel_size())) +
                     ", stride=" + repr_tuple(as_vector(o.stride()));
  if (const auto* sizes = std::get_if<ExpandingArray<D>>(&o.padding())) {
    if (!all_equal(*sizes, 0)) text += ", padding=" + repr_tuple(as_vector(*sizes));
  } else {
    text += ", padding=" + std::string(std::visit([](const auto& tag) -> std::string_view {
              if constexpr (requires { std::decay_t<decltype(tag)>::name; }) {
                return std::decay_t<decltype(tag)>::name;
              } else {
                return "";
              }
            }, o.padding()));
  }
  if (!all_equal(o.dilation(), 1)) text += ", dilation=" + repr_tuple(as_vector(o.dilation()));
  if (!all_equal(o.output_padding(), 0)) text += ", output_padding=" + repr_tuple(as_vector(o.output_padding()));
  if (o.groups() != 1) text += ", groups=" + std::to_string(o.groups());
  if (!o.bias()) text += ", bias=False";
  if (!std::holds_alternative<enumtype::kZeros>(o.padding_mode())) {
    text += ", padding_mode=" + std::string(enum_name(o.padding_mode()));
  }
  return text;
}

template <size_t D>
ConvImpl<D>::ConvImpl(ConvOptions<D> options)
    : ConvNdImpl<D, ConvImpl<D>>(conv_nd_options(options), name_with_dims("Conv", D)) {
  this->reset();
}

template <size_t D>
Tensor ConvImpl<D>::run(const Tensor& input, bool relu) {
  const auto& o = this->options;
  functional::ConvFuncOptions<D> call;
  call.bias(this->bias).stride(o.stride()).dilation(o.dilation()).groups(o.groups());
  if (std::holds_alternative<enumtype::kZeros>(o.padding_mode())) {
    call.padding(o.padding());
    return convolve(input, this->weight, call, relu);
  }
  functional::PadFuncOptions pad(this->reversed_padding_repeated_twice_);
  std::visit(
      [&](const auto& mode) {
        using Mode = std::decay_t<decltype(mode)>;
        if constexpr (!std::is_same_v<Mode, enumtype::kZeros>) pad.mode(mode);
      },
      o.padding_mode());
  const Tensor padded = functional::pad(input, pad);
  call.padding(ExpandingArray<D>(0));
  return convolve(padded, this->weight, call, relu);
}

template <size_t D>
ConvTransposeImpl<D>::ConvTransposeImpl(ConvTransposeOptions<D> options)
    : ConvNdImpl<D, ConvTransposeImpl<D>>(conv_nd_options(options), name_with_dims("ConvTranspose", D)) {
  if (!std::holds_alternative<enumtype::kZeros>(this->options.padding_mode())) {
    throw Error("Only \"zeros\" padding mode is supported for ConvTranspose" + std::to_string(D) + "d");
  }
  this->reset();
}

template <size_t D>
Tensor ConvTransposeImpl<D>::forward(const Tensor& input, const std::optional<std::vector<int64_t>>& output_size) {
  const auto& o = this->options;
  const ExpandingArray<D> padding = std::get<ExpandingArray<D>>(o.padding());
  std::optional<IntArrayRef> size;
  if (output_size) size = IntArrayRef(*output_size);
  const std::vector<int64_t> output_padding = functional::conv_transpose_output_padding<D>(
      input, size, o.output_padding(), o.stride(), padding, o.kernel_size(), o.dilation());
  functional::ConvTransposeFuncOptions<D> call;
  call.bias(this->bias)
      .stride(o.stride())
      .padding(padding)
      .output_padding(ExpandingArray<D>(output_padding))
      .groups(o.groups())
      .dilation(o.dilation());
  if constexpr (D == 1) {
    return functional::conv_transpose1d(input, this->weight, call);
  } else if constexpr (D == 2) {
    return functional::conv_transpose2d(input, this->weight, call);
  } else {
    return functional::conv_transpose3d(input, this->weight, call);
  }
}

template class ConvNdImpl<1, ConvImpl<1>>;
template class ConvNdImpl<2, ConvImpl<2>>;
template class ConvNdImpl<3, ConvImpl<3>>;
template class ConvNdImpl<1, ConvTransposeImpl<1>>;
template class ConvNdImpl<2, ConvTransposeImpl<2>>;
template class ConvNdImpl<3, ConvTransposeImpl<3>>;
template class ConvImpl<1>;
template class ConvImpl<2>;
template class ConvImpl<3>;
template class ConvTransposeImpl<1>;
template class ConvTransposeImpl<2>;
template class ConvTransposeImpl<3>;

}  // namespace ember::nn
