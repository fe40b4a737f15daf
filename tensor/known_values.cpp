#include "tensor/known_values.h"

#include <algorithm>
#include <cstdint>
#include <memory>

#include "runtime/integer_range.h"

namespace ember::detail {

namespace {

template <class T>
std::pair<int64_t, int64_t> min_max(const void* elements, int64_t count) {
  const T* values = static_cast<const T*>(elements);
  const auto [lo, hi] = std::minmax_element(values, values + count);
  return {static_cast<int64_t>(*lo), static_cast<int64_t>(*hi)};
}

std::optional<std::pair<int64_t, int64_t>> host_min_max(DType dtype, const void* elements, int64_t count) {
  switch (dtype) {
    case DType::Int8: return min_max<int8_t>(elements, count);
    case DType::UInt8: return min_max<uint8_t>(elements, count);
    case DType::Int16: return min_max<int16_t>(elements, count);
    case DType::Int32: return min_max<int32_t>(elements, count);
    case DType::Int64: return min_max<int64_t>(elements, count);
    default: return std::nullopt;
  }
}

// What is known of `tensor`'s storage, if it still holds and covers the tensor's elements.
const KnownValues* known_for(const Tensor& tensor) {
  const Storage& storage = *tensor.storage();
  const KnownValues* known = storage.known_values.get();
  if (!known || known->version != storage.version || known->dtype != tensor.dtype() || tensor.numel() == 0) {
    return nullptr;
  }
  // The last element the tensor reaches, in elements from the storage's start.
  int64_t last = tensor.storage_offset();
  for (int64_t d = 0; d < tensor.dim(); ++d) {
    if (tensor.stride(d) < 0) return nullptr;
    last += (tensor.size(d) - 1) * tensor.stride(d);
  }
  return last < known->count ? known : nullptr;
}

// Whether `tensor` reaches every noted element, so that their exact bounds are its own: the storage's
// first `count` elements in order once the dims it repeats (stride 0) or has once (size 1) are set
// aside. The whole upload qualifies, and so does an expand or unsqueeze of it; a part of it does not.
bool covers_every_noted_element(const KnownValues& known, const Tensor& tensor) {
  if (!known.exact || tensor.storage_offset() != 0) return false;
  int64_t reached = 1;
  for (int64_t d = tensor.dim() - 1; d >= 0; --d) {
    if (tensor.size(d) == 1 || tensor.stride(d) == 0) continue;
    if (tensor.stride(d) != reached) return false;
    reached *= tensor.size(d);
  }
  return reached == known.count;
}

}  // namespace

void note_uploaded_values(const Tensor& written, const void* host_elements) {
  if (written.numel() == 0) return;
  if (auto range = host_min_max(written.dtype(), host_elements, written.numel())) {
    note_value_range(written, range->first, range->second, true);
  }
}

// Only whole tensors just written (their storage's first numel() elements, contiguous) get a note.
void note_value_range(const Tensor& written, int64_t min, int64_t max, bool exact) {
  if (written.numel() == 0 || !written.is_contiguous() || written.storage_offset() != 0) return;
  if (!is_integral(written.dtype())) return;
  written.storage()->known_values = std::make_shared<const KnownValues>(
      KnownValues{.dtype = written.dtype(), .min = min, .max = max, .count = written.numel(), .exact = exact,
                  .version = written._version()});
}

void note_copied_values(const Tensor& copy, const Tensor& source) {
  const KnownValues* known = known_for(source);
  if (!known || !is_integral(copy.dtype())) return;
  const auto [lowest, highest] = integer_range(copy.dtype());
  if (known->min < lowest || known->max > highest) return;  // the cast wraps some
  note_value_range(copy, known->min, known->max, covers_every_noted_element(*known, source));
}

void forget_known_values(const Tensor& tensor) {
  if (tensor.defined()) tensor.storage()->known_values.reset();
}

bool known_within(const Tensor& tensor, int64_t min, int64_t max) {
  const KnownValues* known = known_for(tensor);
  return known && known->min >= min && known->max <= max;
}

std::optional<std::pair<int64_t, int64_t>> known_exact_range(const Tensor& tensor) {
  const KnownValues* known = known_for(tensor);
  if (!known || !covers_every_noted_element(*known, tensor)) return std::nullopt;
  return std::make_pair(known->min, known->max);
}

}  // namespace ember::detail
