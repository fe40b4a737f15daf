#include "nn/utils/rnn.h"

#include <algorithm>
#include <string>

#include "runtime/dtype.h"
#include "runtime/error.h"

namespace ember::nn::utils::rnn {

Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first, double padding_value) {
  if (sequences.empty()) throw Error("received an empty list of sequences");
  const Tensor& first = sequences.front();
  int64_t max_len = 0;
  for (const Tensor& sequence : sequences) max_len = std::max(max_len, sequence.size(0));
  const int64_t batch = static_cast<int64_t>(sequences.size());
  std::vector<int64_t> sizes = batch_first ? std::vector<int64_t>{batch, max_len} : std::vector<int64_t>{max_len, batch};
  sizes.insert(sizes.end(), first.sizes().begin() + 1, first.sizes().end());
  // As PyTorch: each sequence is copied into its slice, so that copy_ converts, broadcasts and records
  // the gradient (CopySlices) as it does there.
  Tensor out = first.new_full(sizes, padding_value);
  for (int64_t i = 0; i < batch; ++i) {
    const Tensor& sequence = sequences[static_cast<size_t>(i)];
    Tensor slot = batch_first ? out.select(0, i).narrow(0, 0, sequence.size(0))
                              : out.narrow(0, 0, sequence.size(0)).select(1, i);
    slot.copy_(sequence);
  }
  return out;
}

std::vector<Tensor> unpad_sequence(const Tensor& padded_sequences, const std::vector<int64_t>& lengths,
                                   bool batch_first) {
  if (padded_sequences.dim() < 2) {
    throw Error("unpad_sequence: expected padded sequences of at least 2 dimensions, but got " +
                std::to_string(padded_sequences.dim()));
  }
  const Tensor by_batch = batch_first ? padded_sequences : padded_sequences.transpose(0, 1);
  const int64_t max_len = by_batch.size(1);
  if (static_cast<int64_t>(lengths.size()) != by_batch.size(0)) {
    throw Error("unpad_sequence: " + std::to_string(lengths.size()) + " lengths for a batch of " +
                std::to_string(by_batch.size(0)) + " sequences");
  }
  std::vector<Tensor> sequences;
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] < 0 || lengths[i] > max_len) {
      throw Error("unpad_sequence: length " + std::to_string(lengths[i]) + " of sequence " + std::to_string(i) +
                  " is outside [0, " + std::to_string(max_len) + "]");
    }
    sequences.push_back(by_batch.select(0, static_cast<int64_t>(i)).narrow(0, 0, lengths[i]).clone());
  }
  return sequences;
}

std::vector<Tensor> unpad_sequence(const Tensor& padded_sequences, const Tensor& lengths, bool batch_first) {
  if (lengths.dim() != 1 || !is_integral(lengths.dtype())) {
    throw Error("unpad_sequence: expected the lengths as a 1-D integer tensor, but got a " +
                std::to_string(lengths.dim()) + "-D " + std::string(dtype_name(lengths.dtype())) + " tensor");
  }
  return unpad_sequence(padded_sequences, lengths.to_vector<int64_t>(), batch_first);
}

}  // namespace ember::nn::utils::rnn
