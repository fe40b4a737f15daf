#pragma once
// Cross-entropy and NLL losses, as LibTorch 1.13's torch::nn::functional::cross_entropy and nll_loss
// (https://pytorch.org/docs/1.13/generated/torch.nn.functional.cross_entropy.html).
//
//   auto loss = F::cross_entropy(logits, labels);                      // logits [N, C], labels [N] int64
//   auto smooth = F::cross_entropy(logits, labels, F::CrossEntropyFuncOptions().label_smoothing(0.1));
//
// The class dim is 1 (0 for an unbatched [C] input); spatial targets [N, d1, ...] go with inputs
// [N, C, d1, ...], as nll_loss2d. Class-index targets run log-softmax and NLL as one kernel forward
// (one more dispatch merges a Mean or Sum over several workgroups) and one backward, recorded as one
// node with the name of PyTorch's last node: NllLossBackward0 (1-D and 2-D inputs), NllLoss2DBackward0
// (spatial), then ViewBackward0 for unreduced 3-D and 5-D+ inputs as PyTorch views them, and
// AddBackward0 with label smoothing. Targets are checked on the device and the result read back once,
// so an out-of-range target throws PyTorch's IndexError ("Target 10 is out of bounds."); that read
// waits for the forward. Class-probability targets (the input's shape, floating) are PyTorch's
// composition of log_softmax, mul and sum.
#include "nn/options/cross_entropy.h"
#include "tensor/tensor.h"

namespace ember::nn::functional {

Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& options = {});
Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options = {});

}  // namespace ember::nn::functional
