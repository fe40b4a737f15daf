#pragma once
// The connectionist temporal classification loss (https://pytorch.org/docs/1.13/generated/torch.nn.functional.ctc_loss.html):
// the negative log-probability of a target sequence summed over every alignment of it to the input frames.
#include "nn/options/ctc_loss.h"
#include "tensor/tensor_api.h"

namespace ember::nn::functional {

// log_probs: (T, N, C) log-probabilities per frame (or (T, C) for one sequence), float32 or float64.
// targets: (N, S) padded, or 1-D with the N sequences one after another. input_lengths and target_lengths:
// N frame and label counts. The lengths are read on the host, and so are the targets (one wait for the
// device when they live there), as PyTorch's CPU kernel reads them. The rest runs on the device: each
// recursion over the frames is one launch of its own kernel (forward, and backward when a gradient is
// wanted), and the gradient two more.
//
// Like PyTorch's, the gradient is the one its CtcLossBackward0 computes, exp(log_probs) minus the
// alignment occupancy: the exact gradient when log_probs come from log_softmax (the usual case), not
// the derivative by a log_probs leaf taken alone. It has no second derivative, as in PyTorch.
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, const CTCLossFuncOptions& options = {});
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                IntArrayRef target_lengths, const CTCLossFuncOptions& options = {});

}  // namespace ember::nn::functional
