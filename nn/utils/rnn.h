#pragma once
// Variable-length sequences for the recurrent layers, as LibTorch's torch::nn::utils::rnn: padding them
// into one batch and back (pad_sequence, and Python's unpad_sequence), and packing them and back
// (https://pytorch.org/docs/1.13/generated/torch.nn.utils.rnn.pack_padded_sequence.html, and Python's
// unpack_sequence), so that a layer's forward_with_packed_input runs each sequence only over its own steps:
//   Tensor batch = nn::utils::rnn::pad_sequence({a, b, c});  // (L, *) each → (max L, 3, *)
//   auto packed = nn::utils::rnn::pack_padded_sequence(batch, {5, 2, 4}, false, /*enforce_sorted=*/false);
//   auto [out, h] = gru->forward_with_packed_input(packed);
//   auto [padded, lengths] = nn::utils::rnn::pad_packed_sequence(out);
#include <optional>
#include <tuple>
#include <vector>

#include "tensor/tensor_api.h"

namespace ember::nn::utils::rnn {

// Sequences packed step by step: data holds, for each step t, one row for each of the batch_sizes[t]
// sequences still running, the sequences ordered longest first. sorted_indices gives that order
// (undefined when the batch came sorted) and unsorted_indices its inverse.
//
// Unlike LibTorch, whose batch_sizes is a CPU tensor, batch_sizes are host integers here: ember has no
// CPU tensors, and every step's size is needed on the host to plan the steps.
class PackedSequence {
 public:
  // unsorted_indices is computed from sorted_indices when undefined.
  explicit PackedSequence(Tensor data, std::vector<int64_t> batch_sizes, Tensor sorted_indices = {},
                          Tensor unsorted_indices = {});

  const Tensor& data() const { return data_; }
  const std::vector<int64_t>& batch_sizes() const { return batch_sizes_; }
  const Tensor& sorted_indices() const { return sorted_indices_; }
  const Tensor& unsorted_indices() const { return unsorted_indices_; }

  // The data converted or moved (the indices follow it to its device).
  PackedSequence to(const TensorOptions& options) const;

 private:
  Tensor data_;
  std::vector<int64_t> batch_sizes_;
  Tensor sorted_indices_, unsorted_indices_;
};

// The inverse of a permutation (undefined for an undefined one).
Tensor invert_permutation(const Tensor& permutation);

// Packs input (max_len, B, *), or (B, max_len, *) with batch_first, whose sequence b has lengths[b] steps.
// With enforce_sorted the lengths must not increase; otherwise the batch is sorted first, longest first
// (a stable sort) and the order kept in sorted_indices. The gradient reaches input's used steps.
PackedSequence pack_padded_sequence(const Tensor& input, const std::vector<int64_t>& lengths, bool batch_first = false,
                                    bool enforce_sorted = true);
// The same with the lengths in a 1-D integer tensor (read on the host, one wait).
PackedSequence pack_padded_sequence(const Tensor& input, const Tensor& lengths, bool batch_first = false,
                                    bool enforce_sorted = true);

// The padded batch (total_length or the longest length, B, *) back, in the original order, with
// padding_value past each sequence's end, and the lengths (int64, on the data's device).
std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first = false,
                                               double padding_value = 0.0,
                                               std::optional<int64_t> total_length = std::nullopt);

// pack_padded_sequence of pad_sequence(sequences), each (L, *).
PackedSequence pack_sequence(const std::vector<Tensor>& sequences, bool enforce_sorted = true);

// Python's unpack_sequence, pack_sequence's inverse: each sequence (L, *) in the original order, a copy
// whose gradient reaches the packed data (the lengths are read on the host, one wait).
std::vector<Tensor> unpack_sequence(const PackedSequence& sequence);

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
