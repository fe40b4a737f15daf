#include "data/detail/gather_rows.h"

#include <string>
#include <vector>

#include "runtime/error.h"
#include "tensor/functions.h"

namespace ember::data::detail {

Tensor gather_rows(const Tensor& source, ArrayRef<size_t> indices) {
  if (source.dim() < 1) throw Error("gather_rows: the source has no dim 0 to index");
  if (!source.is_contiguous()) throw Error("gather_rows: the source must be contiguous");
  const int64_t rows = source.size(0);
  for (const size_t index : indices) {
    if (index >= static_cast<size_t>(rows)) {
      throw IndexError("index " + std::to_string(index) + " is out of bounds for dimension 0 with size " +
                       std::to_string(rows));
    }
  }
  std::vector<int64_t> sizes(source.sizes().begin(), source.sizes().end());
  sizes[0] = static_cast<int64_t>(indices.size());
  Tensor out = empty(sizes, TensorOptions(source.dtype()).device(source.device()));
  const uint64_t row_bytes = static_cast<uint64_t>(source.numel() / std::max<int64_t>(rows, 1)) *
                             source.element_size();
  if (row_bytes == 0 || indices.empty()) return out;
  Stream& stream = *source.device()->default_stream();
  Allocation& from = *source.storage()->allocation;
  Allocation& to = *out.storage()->allocation;
  const uint64_t from_base = static_cast<uint64_t>(source.storage_offset()) * source.element_size();
  const uint64_t to_base = static_cast<uint64_t>(out.storage_offset()) * out.element_size();
  for (size_t start = 0; start < indices.size();) {
    size_t end = start + 1;  // one copy for each run of consecutive rows
    while (end < indices.size() && indices[end] == indices[end - 1] + 1) ++end;
    stream.copy(to, to_base + start * row_bytes, from, from_base + indices[start] * row_bytes,
                (end - start) * row_bytes);
    start = end;
  }
  return out;
}

}  // namespace ember::data::detail
