// Searching sorted values: torch.searchsorted, bucketize and isin.
//
// The search is PyTorch's binary search run for every value at once: each round gathers the sequence at
// every value's midpoint and halves its interval, so a sequence of m takes bit_width(m) rounds of a few
// elementwise launches, and memory stays that of the values. Running the same midpoints as PyTorch's
// loop (not counting elements below each value) keeps its answers where the sequence holds NaN.
// isin sorts the test elements and searches them. None of these has a gradient, as in PyTorch.
#include <bit>

#include "tensor/functions.h"
#include "tensor/ops_support.h"

namespace ember {

namespace {

Tensor int64_like(IntArrayRef sizes, Scalar value, const Tensor& on) {
  return full(sizes, value, TensorOptions().dtype(DType::Int64).device(on.device()));
}

// For each value, the first position in the sorted last dim of `seq` (1-D, or with the values' leading
// dims) whose element is not below it (`right`: not at most it). seq and values share a dtype.
Tensor search(const Tensor& seq, const Tensor& values, bool right) {
  const int64_t m = seq.size(-1);
  Tensor lo = int64_like(values.sizes(), 0, values);
  if (m == 0 || values.numel() == 0) return lo;
  Tensor hi = int64_like(values.sizes(), m, values);
  detail::TrustedIndices trusted;  // midpoints are clamped into the sequence
  for (uint64_t rounds = std::bit_width(static_cast<uint64_t>(m)); rounds > 0; --rounds) {
    const Tensor mid = (lo + hi).bitwise_right_shift(1);
    const Tensor at = mid.clamp_max(m - 1);  // a finished search's midpoint may be m
    const Tensor pivot = seq.dim() == 1 ? seq.index_select(0, at.flatten()).view(values.sizes()) : seq.gather(-1, at);
    // As PyTorch's comparisons: NaN pivots send the search right.
    const Tensor goes_right = (right ? pivot.gt(values) : pivot.ge(values)).logical_not();
    const Tensor searching = lo.lt(hi);
    lo = where(searching.logical_and(goes_right), mid + 1, lo);
    hi = where(searching.logical_and(goes_right.logical_not()), mid, hi);
  }
  return lo;
}

bool leading_dims_match(const Tensor& seq, const Tensor& values) {
  if (seq.dim() != values.dim()) return false;
  for (int64_t d = 0; d + 1 < seq.dim(); ++d) {
    if (seq.size(d) != values.size(d)) return false;
  }
  return true;
}

bool resolve_right(bool right, std::optional<std::string_view> side) {
  if (!side) return right;
  if (*side != "left" && *side != "right") {
    throw Error("torch.searchsorted(): side can only be 'left' or 'right' but got " + std::string(*side));
  }
  if (right && *side == "left") {
    throw Error("torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True");
  }
  return *side == "right";
}

void check_search(const Tensor& seq, const Tensor& values, const std::optional<Tensor>& sorter) {
  detail::check_same_device({&seq, &values});
  if (sorter) {
    detail::check_same_device({&seq, &*sorter});
    if (sorter->dtype() != DType::Int64) {
      throw Error("torch.searchsorted(): sorter must be a tensor of long dtype but got dtype " +
                  scalar_type_name(sorter->dtype()));
    }
    if (sorter->sizes() != seq.sizes()) {
      throw Error("torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor " +
                  to_string(seq.sizes()) + "and got sorter tensor " + to_string(sorter->sizes()));
    }
  }
  if (values.dim() == 0 && seq.dim() != 1) {
    throw Error("torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension is 1, but we "
                "got boundaries tensor dim(" + std::to_string(seq.dim()) + ") and input value's dim(0) numel(1)");
  }
  if (seq.dim() == 0) {
    throw Error("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension");
  }
  if (seq.dim() != 1 && !leading_dims_match(seq, values)) {
    throw Error("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                "boundaries tensor and input value tensor must match, but we got boundaries tensor " +
                to_string(seq.sizes()) + " and input value tensor " + to_string(values.sizes()));
  }
}

// A number as PyTorch's scalar_to_tensor makes it: double, int64 or bool, 0-dim.
Tensor number_on(Scalar value, const Tensor& like) {
  const DType dtype = value.is_floating_point() ? DType::Float64 : value.is_bool() ? DType::Bool : DType::Int64;
  return full({}, value, TensorOptions().dtype(dtype).device(like.device()));
}

}  // namespace

Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool out_int32, bool right,
                    std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  const bool upper = resolve_right(right, side);
  check_search(sorted_sequence, values, sorter);
  const DType common = result_type(sorted_sequence, values);
  if (common == DType::Bool) throw Error("\"searchsorted_out_cpu\" not implemented for 'Bool'");
  Tensor seq = sorted_sequence.to(common);
  if (sorter) seq = seq.gather(-1, *sorter);
  const Tensor positions = search(seq, values.to(common), upper);
  return out_int32 ? positions.to(DType::Int32) : positions;
}

Tensor searchsorted(const Tensor& sorted_sequence, Scalar value, bool out_int32, bool right,
                    std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  return searchsorted(sorted_sequence, number_on(value, sorted_sequence), out_int32, right, side, sorter);
}

Tensor bucketize(const Tensor& values, const Tensor& boundaries, bool out_int32, bool right) {
  if (boundaries.dim() != 1) {
    throw Error("boundaries tensor must be 1 dimension, but got dim(" + std::to_string(boundaries.dim()) + ")");
  }
  return searchsorted(boundaries, values, out_int32, right);
}

Tensor bucketize(Scalar value, const Tensor& boundaries, bool out_int32, bool right) {
  return bucketize(number_on(value, boundaries), boundaries, out_int32, right);
}

Tensor isin(const Tensor& elements, const Tensor& test_elements, bool /*assume_unique*/, bool invert) {
  detail::check_same_device({&elements, &test_elements});
  for (const Tensor* t : {&elements, &test_elements}) {
    if (t->dtype() == DType::Bool || t->dtype() == DType::BFloat16) {
      throw Error("Unsupported input type encountered for isin(): " + scalar_type_name(t->dtype()));
    }
  }
  const DType common = result_type(elements, test_elements);
  const Tensor wanted = elements.to(common);
  Tensor found;
  if (test_elements.numel() == 0) {
    found = zeros(elements.sizes(), TensorOptions().dtype(DType::Bool).device(elements.device()));
  } else {
    const Tensor sorted = std::get<0>(test_elements.flatten().to(common).sort());
    const Tensor at = search(sorted, wanted, false).clamp_max(sorted.numel() - 1);
    detail::TrustedIndices trusted;  // clamped into the sorted elements
    found = sorted.index_select(0, at.flatten()).view(elements.sizes()).eq(wanted);
  }
  return invert ? found.logical_not() : found;
}

Tensor isin(const Tensor& elements, Scalar test_element, bool assume_unique, bool invert) {
  return isin(elements, number_on(test_element, elements), assume_unique, invert);
}

Tensor isin(Scalar element, const Tensor& test_elements, bool assume_unique, bool invert) {
  return isin(number_on(element, test_elements), test_elements, assume_unique, invert);
}

}  // namespace ember
