#pragma once
// What the normalisation functionals share: the dtype rules of their parameters and statistics, and
// the kernels' view of a tensor. Internal to nn/functional.
#include <initializer_list>

#include "runtime/kernels/norm.h"
#include "tensor/tensor.h"

namespace ember::nn::functional::norm_detail {

// The dtype the kernels keep statistics in: float32 for float16 and bfloat16 inputs, as PyTorch's
// accumulate type.
DType stat_dtype(DType input);
// Throws PyTorch's "\"<kernel>\" not implemented for 'Long'" unless `input` is floating.
void check_floating_input(const Tensor& input, const char* kernel);
// A parameter (weight, bias, running statistics) has the input's dtype, or float32 for a float16 or
// bfloat16 input; otherwise PyTorch's "expected scalar type Float but found Double".
void check_param_dtype(const Tensor& param, DType input);
// `t` as a contiguous 1-D tensor for a kernel (a copy only when it is not contiguous).
Tensor flat_contiguous(const Tensor& t);
// The kernels' view of a contiguous input: outer = size(0), channels = size(1), inner the rest.
NormShape channel_shape(const Tensor& x);
// PyTorch's double backward of a norm is one node over all the forward's inputs, so a gradient that
// depends on grad_out alone (the bias's) still requires grad when an input does. `t` plus zero times
// each input that requires grad keeps that graph; the second-order terms it adds are zero, as PyTorch's.
Tensor attached(const Tensor& t, std::initializer_list<const Tensor*> inputs);
// `t` (per channel) shaped to broadcast against [N, C, inner].
Tensor per_channel(const Tensor& t);

}  // namespace ember::nn::functional::norm_detail
