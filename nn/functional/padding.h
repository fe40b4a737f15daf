#pragma once
// F::pad as LibTorch's: constant (any number of trailing dims, negative sizes crop), reflect, replicate
// and circular (the last 1 to 3 dims of a batched or unbatched input), with PyTorch's checks, messages
// and nodes (ConstantPadNdBackward0, ReflectionPad2DBackward0, ReplicationPad2DBackward0; circular is
// PyTorch's composition of slice copies, torch::autograd::CopySlices).
// https://pytorch.org/docs/1.13/generated/torch.nn.functional.pad.html
//
//   auto y = F::pad(x, F::PadFuncOptions({1, 1, 2, 0}).mode(ember::kReflect));
//
// Where ember deviates from PyTorch: reflect and replicate take every dtype (PyTorch's CPU refuses
// integers), and an output that negative padding empties is reported with replicate's message in both.
#include "nn/options/padding.h"
#include "tensor/tensor.h"

namespace ember::nn::functional {

Tensor pad(const Tensor& input, const PadFuncOptions& options);

}  // namespace ember::nn::functional
