#include "tensor/indexing_support.h"

#include "runtime/kernels/reduce.h"
#include "tensor/known_values.h"

namespace ember {

namespace {
thread_local int trusted_index_scopes = 0;
}  // namespace

detail::TrustedIndices::TrustedIndices() { ++trusted_index_scopes; }
detail::TrustedIndices::~TrustedIndices() { --trusted_index_scopes; }
bool detail::TrustedIndices::active() { return trusted_index_scopes > 0; }

}  // namespace ember

namespace ember::detail {

IndexKernels& index_kernels(const Tensor& t) { return kernels_for<IndexKernels>(*t.device()); }
Stream& stream_of(const Tensor& t) { return *stream_for(*t.device()); }

namespace {
bool has_elements(const Tensor& t) { return t.defined() && t.numel() > 0; }
}  // namespace

std::vector<std::optional<IndexRange>> index_ranges(const std::vector<Tensor>& indices) {
  std::vector<std::optional<IndexRange>> ranges(indices.size());
  if (TrustedIndices::active()) return ranges;
  // Ranges the host already knows are taken as they are; only the others are read back.
  std::vector<bool> read(indices.size(), false);
  const Tensor* first = nullptr;
  int64_t count = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (!has_elements(indices[i])) continue;
    if (!first) first = &indices[i];
    check_same_device({first, &indices[i]});
    if (const auto known = known_exact_range(indices[i])) {
      ranges[i] = IndexRange{known->first, known->second};
      continue;
    }
    read[i] = true;
    ++count;
  }
  if (count == 0) return ranges;
  Tensor stats = empty_on({2 * count}, DType::Int64, first->device());
  int64_t slot = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (!read[i]) continue;
    const Tensor& index = indices[i];
    const uint32_t all = index.dim() >= 32 ? ~0u : (1u << index.dim()) - 1;
    for (ReduceOp op : {ReduceOp::Amin, ReduceOp::Amax}) {
      kernels_for<ReduceKernels>(*index.device())
          .reduce(stream_of(index), {.op = op, .out = stats.narrow(0, slot++, 1).ref(), .in = index.ref(),
                                  .reduce_mask = all, .compute = index.dtype()});
    }
  }
  const std::vector<int64_t> values = stats.to_vector<int64_t>();
  slot = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (!read[i]) continue;
    ranges[i] = IndexRange{values[2 * slot], values[2 * slot + 1]};
    ++slot;
  }
  return ranges;
}

std::optional<IndexRange> index_range(const Tensor& index) { return index_ranges({index})[0]; }

bool breaks_bounds(const std::optional<IndexRange>& range, int64_t size, bool negative) {
  return range && (range->min < (negative ? -size : 0) || range->max >= size);
}

std::optional<int64_t> out_of_bounds(const Tensor& index, const std::optional<IndexRange>& range, int64_t size,
                                     bool negative) {
  if (!breaks_bounds(range, size, negative)) return std::nullopt;
  const int64_t low = negative ? -size : 0;
  // A throwing path: the indices are read back once more to find the first bad one, not the extremes.
  for (int64_t i : index.to_vector<int64_t>()) {
    if (i < low || i >= size) return i;
  }
  return range->min < low ? range->min : range->max;
}

std::string bounds_message(int64_t index, int64_t dim, int64_t size) {
  return "index " + std::to_string(index) + " is out of bounds for dimension " + std::to_string(dim) +
         " with size " + std::to_string(size);
}

Tensor wrap_negative(const Tensor& index, const std::optional<IndexRange>& range, int64_t size) {
  if (!range || range->min >= 0) return index;
  return index.remainder(size);
}

Tensor along_dim(const Tensor& index, int64_t dim, size_t ndim) {
  std::vector<int64_t> sizes(ndim, 1);
  sizes[dim] = index.numel();
  return index.reshape(sizes);
}

std::string join_sizes(IntArrayRef sizes) {
  std::string s;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) s += ' ';
    s += std::to_string(sizes[i]);
  }
  return s;
}

Tensor at_least_1d(const Tensor& t) { return t.dim() == 0 ? t.reshape({1}) : t; }

Scalar stored_as(Scalar value, DType dtype) { return dtype == DType::Bool ? Scalar(value.to_bool()) : value; }

}  // namespace ember::detail
