#pragma once
// F::unfold (im2col: the sliding blocks of a batched 4-D input as columns, N × C·kh·kw × L) and F::fold
// (col2im: columns summed back into an N × C × H × W output, overlaps adding up), as LibTorch's, with
// PyTorch's checks, messages and nodes (Im2ColBackward0, Col2ImBackward0; each one's gradient is the
// other). https://pytorch.org/docs/1.13/generated/torch.nn.Unfold.html
//
//   auto cols = F::unfold(x, F::UnfoldFuncOptions({3, 3}).padding(1));
//   auto y = F::fold(cols, F::FoldFuncOptions({28, 28}, {3, 3}).padding(1));
//
// Both are one gather (index_select) or one scatter-add (index_add) over the padded input's positions,
// with the indices made on the host.
#include "nn/options/fold.h"
#include "tensor/tensor.h"

namespace ember::nn::functional {

Tensor unfold(const Tensor& input, const UnfoldFuncOptions& options);
Tensor fold(const Tensor& input, const FoldFuncOptions& options);

}  // namespace ember::nn::functional
