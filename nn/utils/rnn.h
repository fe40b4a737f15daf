#pragma once
// Padding variable-length sequences into one batch and back
// (https://pytorch.org/docs/1.13/generated/torch.nn.utils.rnn.pad_sequence.html), as LibTorch's
// torch::nn::utils::rnn::pad_sequence and Python's unpad_sequence:
//   Tensor batch = nn::utils::rnn::pad_sequence({a, b, c});  // (L, *) each → (max L, 3, *)
// PackedSequence and its pack/unpack functions are not here; the recurrent layers take padded input.
#include <vector>

#include "tensor/tensor_api.h"

namespace ember::nn::utils::rnn {

// (max_len, B, *) or, batch_first, (B, max_len, *), filled with padding_value past each sequence's end.
// As PyTorch: the dtype and device are the first sequence's, the others are converted to them and
// broadcast to its trailing shape, and the result's gradient reaches every sequence.
Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first = false, double padding_value = 0);

// Python's unpad_sequence: the first lengths[i] steps of sequence i, each a copy. Unlike Python, the
// padded tensor is not transposed in place when batch_first is false.
std::vector<Tensor> unpad_sequence(const Tensor& padded_sequences, const std::vector<int64_t>& lengths,
                                   bool batch_first = false);
// The same with the lengths in a tensor (read on the host, one wait).
std::vector<Tensor> unpad_sequence(const Tensor& padded_sequences, const Tensor& lengths, bool batch_first = false);

}  // namespace ember::nn::utils::rnn
