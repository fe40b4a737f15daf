#pragma once
// Pooling as LibTorch 1.13's torch::nn::functional has it: max, average, adaptive and LP pooling in one
// and two dims, max, average and adaptive pooling in three, and max unpooling in one to three. Inputs may
// be unbatched (C x L, C x H x W, C x T x H x W). PyTorch's checks and messages; each op records PyTorch's
// node (MaxPool2DWithIndicesBackward0, AvgPool3DBackward0, AdaptiveAvgPool2DBackward0, ...,
// MaxUnpool3DBackward0), and the 1-d ops are the 2-d ones over a unit dim, as in PyTorch. Backward runs
// on the pool kernels and is differentiable again. The 3-d pooling ops are two passes of the 2-d kernels
// (pooling3d.cpp); max unpooling scatters into the flattened output plane (max_unpool.cpp).
// https://pytorch.org/docs/1.13/nn.functional.html#pooling-layers
//
//   namespace F = ember::nn::functional;
//   Tensor y = F::max_pool2d(x, F::MaxPool2dFuncOptions(2));
#include <tuple>

#include "nn/options/pooling.h"
#include "tensor/tensor.h"

namespace ember::nn::functional {

Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options);
Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options);
Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& options);

Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, const MaxPool1dFuncOptions& options);
Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const MaxPool2dFuncOptions& options);
Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, const MaxPool3dFuncOptions& options);

Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool1dFuncOptions& options);
Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool2dFuncOptions& options);
Tensor adaptive_max_pool3d(const Tensor& input, const AdaptiveMaxPool3dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool3dFuncOptions& options);

Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options);
Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options);
Tensor adaptive_avg_pool3d(const Tensor& input, const AdaptiveAvgPool3dFuncOptions& options);

// The partial inverse of max pooling: each input element goes to the position its index names in a
// zero output plane (the pooling's input size by default; options.output_size() otherwise). Where
// indices repeat, one of their values wins, in no promised order, as in PyTorch.
Tensor max_unpool1d(const Tensor& input, const Tensor& indices, const MaxUnpool1dFuncOptions& options);
Tensor max_unpool2d(const Tensor& input, const Tensor& indices, const MaxUnpool2dFuncOptions& options);
Tensor max_unpool3d(const Tensor& input, const Tensor& indices, const MaxUnpool3dFuncOptions& options);

// (sum of x^p over each window)^(1/p), through avg_pool as LibTorch computes it.
Tensor lp_pool1d(const Tensor& input, const LPPool1dFuncOptions& options);
Tensor lp_pool2d(const Tensor& input, const LPPool2dFuncOptions& options);

}  // namespace ember::nn::functional
