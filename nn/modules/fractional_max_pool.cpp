#include "nn/modules/fractional_max_pool.h"

#include <sstream>
#include <string>

#include "nn/functional/fractional_max_pool.h"
#include "nn/repr.h"

namespace ember::nn {

template <size_t D>
FractionalMaxPoolImpl<D>::FractionalMaxPoolImpl(const FractionalMaxPoolOptions<D>& options)
    : Cloneable<FractionalMaxPoolImpl<D>>(name_with_dims("FractionalMaxPool", D)), options(options) {
  reset();
}

template <size_t D>
void FractionalMaxPoolImpl<D>::reset() {
  _random_samples = this->register_buffer("_random_samples", options._random_samples());
  const std::string module = name_with_dims("FractionalMaxPool", D);
  if (!options.output_size() && !options.output_ratio()) {
    throw Error(module + " requires specifying either an output size, or a pooling ratio");
  }
  if (options.output_size() && options.output_ratio()) {
    throw Error("only one of output_size and output_ratio may be specified");
  }
  if (options.output_ratio()) {
    for (const double ratio : *options.output_ratio()) {
      if (!(0 < ratio && ratio < 1)) {
        std::ostringstream message;  // the ratios as LibTorch streams them
        message << "output_ratio must be between 0 and 1 (got [";
        for (size_t d = 0; d < D; ++d) message << (d == 0 ? "" : ", ") << (*options.output_ratio())[d];
        message << "])";
        throw Error(message.str());
      }
    }
  }
}

template <size_t D>
std::tuple<Tensor, Tensor> FractionalMaxPoolImpl<D>::forward_with_indices(const Tensor& input) {
  FractionalMaxPoolOptions<D> call = options;
  call._random_samples(_random_samples);
  if constexpr (D == 2) {
    return functional::fractional_max_pool2d_with_indices(input, call);
  } else {
    return functional::fractional_max_pool3d_with_indices(input, call);
  }
}

template <size_t D>
Tensor FractionalMaxPoolImpl<D>::forward(const Tensor& input) {
  return std::get<0>(forward_with_indices(input));
}

template class FractionalMaxPoolImpl<2>;
template class FractionalMaxPoolImpl<3>;

}  // namespace ember::nn
