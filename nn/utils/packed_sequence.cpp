// PackedSequence and its pack and unpack functions. Packing and padding are each one gather
// (index_select) over positions planned on the host from the lengths, so their gradients come from
// index_select's, and no step of the sequence costs a launch of its own.
#include <algorithm>
#include <numeric>
#include <string>

#include "nn/functional/detail/host_positions.h"
#include "nn/utils/rnn.h"
#include "runtime/error.h"

namespace ember::nn::utils::rnn {

namespace {

using functional::detail::host_positions;

// PyTorch's checks of _pack_padded_sequence, in its order, on lengths already in the packing order.
void check_packable(const Tensor& steps_first, const std::vector<int64_t>& lengths, bool enforce_sorted) {
  if (steps_first.numel() == 0) throw Error("Cannot pack empty tensors.");
  const int64_t batch = steps_first.size(1);
  if (static_cast<int64_t>(lengths.size()) != batch) {
    throw Error("Expected `len(lengths)` to be equal to batch_size, but got " + std::to_string(lengths.size()) +
                " (batch_size=" + std::to_string(batch) + ")");
  }
  if (lengths.back() <= 0) {  // the shortest, once sorted (the check below catches the rest)
    throw Error("Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0");
  }
  if (enforce_sorted && !std::is_sorted(lengths.rbegin(), lengths.rend())) {
    throw Error("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
                "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement if "
                "you do not need ONNX exportability.");
  }
  // LibTorch reads past the input here; ember refuses.
  if (lengths.front() > steps_first.size(0)) {
    throw Error("pack_padded_sequence: a sequence of length " + std::to_string(lengths.front()) +
                " is longer than the input's " + std::to_string(steps_first.size(0)) + " steps");
  }
}

}  // namespace

PackedSequence::PackedSequence(Tensor data, std::vector<int64_t> batch_sizes, Tensor sorted_indices,
                               Tensor unsorted_indices)
    : data_(std::move(data)),
      batch_sizes_(std::move(batch_sizes)),
      sorted_indices_(std::move(sorted_indices)),
      unsorted_indices_(unsorted_indices.defined() ? std::move(unsorted_indices)
                                                   : invert_permutation(sorted_indices_)) {}

PackedSequence PackedSequence::to(const TensorOptions& options) const {
  const Tensor data = data_.to(options);
  if (data.is_same(data_)) return *this;
  const auto follow = [&](const Tensor& indices) { return indices.defined() ? indices.to(data.device()) : Tensor(); };
  return PackedSequence(data, batch_sizes_, follow(sorted_indices_), follow(unsorted_indices_));
}

Tensor invert_permutation(const Tensor& permutation) {
  if (!permutation.defined()) return Tensor();
  const Tensor positions = arange(permutation.numel(), TensorOptions().dtype(DType::Int64).device(permutation.device()));
  return empty_like(permutation).scatter_(0, permutation, positions);
}

PackedSequence pack_padded_sequence(const Tensor& input, const std::vector<int64_t>& lengths, bool batch_first,
                                    bool enforce_sorted) {
  if (input.dim() < 2) {
    throw Error("pack_padded_sequence: expected an input of at least 2 dimensions, but got " +
                std::to_string(input.dim()));
  }
  Tensor steps_first = batch_first ? input.transpose(0, 1) : input;
  std::vector<int64_t> ordered = lengths;
  Tensor sorted_indices;
  if (!enforce_sorted) {
    if (static_cast<int64_t>(lengths.size()) == steps_first.size(1)) {  // else check_packable says so
      std::vector<int64_t> order(lengths.size());
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return lengths[a] > lengths[b]; });
      for (size_t i = 0; i < order.size(); ++i) ordered[i] = lengths[order[i]];
      sorted_indices = host_positions(order, input);
      steps_first = steps_first.index_select(1, sorted_indices);
    }
  }
  check_packable(steps_first, ordered, enforce_sorted);
  const int64_t batch = steps_first.size(1), steps = ordered.front();
  // Step t's rows are the first batch_sizes[t] sequences' elements at t, in the flat (step, sequence) order.
  std::vector<int64_t> batch_sizes(steps), rows;
  for (int64_t t = 0; t < steps; ++t) {
    batch_sizes[t] = std::count_if(ordered.begin(), ordered.end(), [t](int64_t length) { return length > t; });
    for (int64_t b = 0; b < batch_sizes[t]; ++b) rows.push_back(t * batch + b);
  }
  std::vector<int64_t> flat_sizes = steps_first.sizes().vec();
  flat_sizes.erase(flat_sizes.begin());
  flat_sizes[0] = -1;
  const Tensor flat = steps_first.narrow(0, 0, steps).reshape(flat_sizes);
  return PackedSequence(flat.index_select(0, host_positions(rows, input)), std::move(batch_sizes),
                        sorted_indices);
}

PackedSequence pack_padded_sequence(const Tensor& input, const Tensor& lengths, bool batch_first,
                                    bool enforce_sorted) {
  if (lengths.dim() != 1) {
    throw Error("'lengths' argument should be a 1D tensor, but got a " + std::to_string(lengths.dim()) + "D " +
                scalar_type_name(lengths.dtype()) + " tensor");
  }
  return pack_padded_sequence(input, lengths.to(DType::Int64).to_vector<int64_t>(), batch_first, enforce_sorted);
}

std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first,
                                               double padding_value, std::optional<int64_t> total_length) {
  const std::vector<int64_t>& batch_sizes = sequence.batch_sizes();
  const Tensor& data = sequence.data();
  int64_t steps = static_cast<int64_t>(batch_sizes.size());
  if (total_length) {
    if (*total_length < steps) {
      throw Error("Expected total_length to be at least the length of the longest sequence in input, but got "
                  "total_length=" + std::to_string(*total_length) + " and max sequence length being " +
                  std::to_string(steps));
    }
    steps = *total_length;
  }
  const int64_t batch = batch_sizes.empty() ? 0 : batch_sizes.front();
  // Each (step, sequence) position of the result reads its row of data, or the padding row after the data.
  std::vector<int64_t> first_row(batch_sizes.size() + 1, 0);
  std::partial_sum(batch_sizes.begin(), batch_sizes.end(), first_row.begin() + 1);
  const int64_t padding_row = first_row.back();
  std::vector<int64_t> rows(static_cast<size_t>(steps * batch)), lengths(static_cast<size_t>(batch), 0);
  for (int64_t t = 0; t < steps; ++t) {
    const int64_t running = t < static_cast<int64_t>(batch_sizes.size()) ? batch_sizes[t] : 0;
    for (int64_t b = 0; b < batch; ++b) {
      rows[batch_first ? b * steps + t : t * batch + b] = b < running ? first_row[t] + b : padding_row;
      if (b < running) lengths[b] = t + 1;
    }
  }
  std::vector<int64_t> padding_sizes = data.sizes().vec();
  padding_sizes[0] = 1;
  const Tensor with_padding = cat({data, data.new_full(padding_sizes, padding_value)}, 0);
  std::vector<int64_t> sizes = data.sizes().vec();
  sizes[0] = batch_first ? steps : batch;
  sizes.insert(sizes.begin(), batch_first ? batch : steps);
  Tensor padded = with_padding.index_select(0, host_positions(rows, data)).view(sizes);
  Tensor length_tensor = host_positions(lengths, data);
  if (const Tensor& unsorted = sequence.unsorted_indices(); unsorted.defined()) {
    padded = padded.index_select(batch_first ? 0 : 1, unsorted);
    length_tensor = length_tensor.index_select(0, unsorted);
  }
  return {padded, length_tensor};
}

PackedSequence pack_sequence(const std::vector<Tensor>& sequences, bool enforce_sorted) {
  std::vector<int64_t> lengths;
  for (const Tensor& sequence : sequences) lengths.push_back(sequence.size(0));
  return pack_padded_sequence(pad_sequence(sequences), lengths, /*batch_first=*/false, enforce_sorted);
}

std::vector<Tensor> unpack_sequence(const PackedSequence& sequence) {
  const auto [padded, lengths] = pad_packed_sequence(sequence, /*batch_first=*/true);
  return unpad_sequence(padded, lengths, /*batch_first=*/true);
}

}  // namespace ember::nn::utils::rnn
