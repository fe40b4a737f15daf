#include "nn/modules/pooling.h"

#include "nn/functional/pooling.h"
#include "nn/repr.h"

namespace ember::nn {

namespace {

// A size as Python's pooling modules print what they were given: one number when every dim has it.
template <size_t D>
std::string size_repr(const ExpandingArray<D>& values) {
  for (size_t i = 1; i < D; ++i) {
    if (values[i] != values[0]) return repr_tuple(values.vec());
  }
  return std::to_string(values[0]);
}

template <size_t D>
std::string size_repr(const ExpandingArrayWithOptionalElem<D>& values) {
  bool same = true;
  for (size_t i = 1; i < D; ++i) same = same && values[i] == values[0];
  auto one = [](const std::optional<int64_t>& v) { return v ? std::to_string(*v) : std::string("None"); };
  if (same) return one(values[0]);
  std::string text = "(";
  for (size_t i = 0; i < D; ++i) text += (i ? ", " : "") + one(values[i]);
  return text + ")";
}

}  // namespace

template <size_t D>
std::string MaxPoolImpl<D>::extra_repr() const {
  return "kernel_size=" + size_repr(options.kernel_size()) + ", stride=" + size_repr(options.stride()) +
         ", padding=" + size_repr(options.padding()) + ", dilation=" + size_repr(options.dilation()) +
         ", ceil_mode=" + repr_bool(options.ceil_mode());
}

template <size_t D>
Tensor MaxPoolImpl<D>::forward(const Tensor& input) {
  if constexpr (D == 1) {
    return functional::max_pool1d(input, options);
  } else if constexpr (D == 2) {
    return functional::max_pool2d(input, options);
  } else {
    return functional::max_pool3d(input, options);
  }
}

template <size_t D>
std::tuple<Tensor, Tensor> MaxPoolImpl<D>::forward_with_indices(const Tensor& input) {
  if constexpr (D == 1) {
    return functional::max_pool1d_with_indices(input, options);
  } else if constexpr (D == 2) {
    return functional::max_pool2d_with_indices(input, options);
  } else {
    return functional::max_pool3d_with_indices(input, options);
  }
}

template <size_t D>
std::string AvgPoolImpl<D>::extra_repr() const {
  return "kernel_size=" + size_repr(options.kernel_size()) + ", stride=" + size_repr(options.stride()) +
         ", padding=" + size_repr(options.padding());
}

template <size_t D>
Tensor AvgPoolImpl<D>::forward(const Tensor& input) {
  if constexpr (D == 1) {
    return functional::avg_pool1d(input, options);
  } else if constexpr (D == 2) {
    return functional::avg_pool2d(input, options);
  } else {
    return functional::avg_pool3d(input, options);
  }
}

template <size_t D, class OutputSize>
std::string AdaptiveMaxPoolImpl<D, OutputSize>::extra_repr() const {
  return "output_size=" + size_repr(options.output_size());
}

template <size_t D, class OutputSize>
Tensor AdaptiveMaxPoolImpl<D, OutputSize>::forward(const Tensor& input) {
  if constexpr (D == 1) {
    return functional::adaptive_max_pool1d(input, options);
  } else if constexpr (D == 2) {
    return functional::adaptive_max_pool2d(input, options);
  } else {
    return functional::adaptive_max_pool3d(input, options);
  }
}

template <size_t D, class OutputSize>
std::tuple<Tensor, Tensor> AdaptiveMaxPoolImpl<D, OutputSize>::forward_with_indices(const Tensor& input) {
  if constexpr (D == 1) {
    return functional::adaptive_max_pool1d_with_indices(input, options);
  } else if constexpr (D == 2) {
    return functional::adaptive_max_pool2d_with_indices(input, options);
  } else {
    return functional::adaptive_max_pool3d_with_indices(input, options);
  }
}

template <size_t D, class OutputSize>
std::string AdaptiveAvgPoolImpl<D, OutputSize>::extra_repr() const {
  return "output_size=" + size_repr(options.output_size());
}

template <size_t D, class OutputSize>
Tensor AdaptiveAvgPoolImpl<D, OutputSize>::forward(const Tensor& input) {
  if constexpr (D == 1) {
    return functional::adaptive_avg_pool1d(input, options);
  } else if constexpr (D == 2) {
    return functional::adaptive_avg_pool2d(input, options);
  } else {
    return functional::adaptive_avg_pool3d(input, options);
  }
}

template <size_t D>
std::string MaxUnpoolImpl<D>::extra_repr() const {
  // Python's MaxUnpool stores its sizes as tuples.
  return "kernel_size=" + repr_tuple(options.kernel_size().vec()) + ", stride=" + repr_tuple(options.stride().vec()) +
         ", padding=" + repr_tuple(options.padding().vec());
}

template <size_t D>
Tensor MaxUnpoolImpl<D>::forward(const Tensor& input, const Tensor& indices,
                                 const std::optional<std::vector<int64_t>>& output_size) {
  functional::MaxUnpoolFuncOptions<D> call(options.kernel_size());
  call.stride(options.stride()).padding(options.padding()).output_size(output_size);
  if constexpr (D == 1) {
    return functional::max_unpool1d(input, indices, call);
  } else if constexpr (D == 2) {
    return functional::max_unpool2d(input, indices, call);
  } else {
    return functional::max_unpool3d(input, indices, call);
  }
}

template <size_t D>
std::string LPPoolImpl<D>::extra_repr() const {
  return "norm_type=" + repr_float(options.norm_type()) + ", kernel_size=" + size_repr(options.kernel_size()) +
         ", stride=" + size_repr(options.stride()) + ", ceil_mode=" + repr_bool(options.ceil_mode());
}

template <size_t D>
Tensor LPPoolImpl<D>::forward(const Tensor& input) {
  if constexpr (D == 1) {
    return functional::lp_pool1d(input, options);
  } else {
    return functional::lp_pool2d(input, options);
  }
}

template class MaxPoolImpl<1>;
template class MaxPoolImpl<2>;
template class MaxPoolImpl<3>;
template class AvgPoolImpl<1>;
template class AvgPoolImpl<2>;
template class AvgPoolImpl<3>;
template class AdaptiveMaxPoolImpl<1, ExpandingArray<1>>;
template class AdaptiveMaxPoolImpl<2, ExpandingArrayWithOptionalElem<2>>;
template class AdaptiveMaxPoolImpl<3, ExpandingArrayWithOptionalElem<3>>;
template class AdaptiveAvgPoolImpl<1, ExpandingArray<1>>;
template class AdaptiveAvgPoolImpl<2, ExpandingArrayWithOptionalElem<2>>;
template class AdaptiveAvgPoolImpl<3, ExpandingArrayWithOptionalElem<3>>;
template class MaxUnpoolImpl<1>;
template class MaxUnpoolImpl<2>;
template class MaxUnpoolImpl<3>;
template class LPPoolImpl<1>;
template class LPPoolImpl<2>;

}  // namespace ember::nn
