#pragma once
// nn::init: in-place initialisers with PyTorch's rules (https://pytorch.org/docs/1.13/nn.init.html).
// Each runs without recording autograd and returns its tensor.
//   nn::init::kaiming_uniform_(conv->weight, std::sqrt(5.0));
#include <cstdint>
#include <tuple>
#include <variant>

#include "nn/enums.h"
#include "tensor/tensor_api.h"

namespace ember::nn::init {

using NonlinearityType =
    std::variant<enumtype::kLinear, enumtype::kConv1D, enumtype::kConv2D, enumtype::kConv3D,
                 enumtype::kConvTranspose1D, enumtype::kConvTranspose2D, enumtype::kConvTranspose3D,
                 enumtype::kSigmoid, enumtype::kTanh, enumtype::kReLU, enumtype::kLeakyReLU, enumtype::kSELU>;
using FanModeType = std::variant<enumtype::kFanIn, enumtype::kFanOut>;

// The recommended gain for `nonlinearity`; `param` is leaky_relu's negative slope.
double calculate_gain(NonlinearityType nonlinearity, double param = 0.01);
// (fan_in, fan_out) of a weight with at least 2 dims: sizes 1 and 0 times the receptive field.
std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor);

Tensor uniform_(Tensor tensor, double low = 0, double high = 1);
Tensor normal_(Tensor tensor, double mean = 0, double std = 1);
Tensor constant_(Tensor tensor, Scalar value);
Tensor ones_(Tensor tensor);
Tensor zeros_(Tensor tensor);
Tensor eye_(Tensor matrix);                    // 2-d only
Tensor dirac_(Tensor tensor, int64_t groups = 1);  // 3-d to 5-d: convolutions that keep their input
Tensor xavier_uniform_(Tensor tensor, double gain = 1.0);
Tensor xavier_normal_(Tensor tensor, double gain = 1.0);
Tensor kaiming_uniform_(Tensor tensor, double a = 0, FanModeType mode = kFanIn,
                        NonlinearityType nonlinearity = kLeakyReLU);
Tensor kaiming_normal_(Tensor tensor, double a = 0, FanModeType mode = kFanIn,
                       NonlinearityType nonlinearity = kLeakyReLU);
// A (semi-)orthogonal matrix from the QR decomposition of a normal one, times gain (dims past the
// first are flattened).
Tensor orthogonal_(Tensor tensor, double gain = 1);
// Normal(mean, std) truncated to [a, b], by inverting the normal CDF as PyTorch does.
Tensor trunc_normal_(Tensor tensor, double mean = 0, double std = 1, double a = -2, double b = 2);

}  // namespace ember::nn::init
