#include "data/batch_rows.h"

#include "tensor/functions.h"

namespace ember::data::detail {

std::vector<Tensor> rows_of(const Tensor& batch) {
  std::vector<Tensor> rows;
  rows.reserve(static_cast<size_t>(batch.size(0)));
  for (int64_t i = 0; i < batch.size(0); ++i) rows.push_back(batch.select(0, i));
  return rows;
}

Tensor private_base_of(const std::vector<Tensor>& rows) {
  if (rows.empty() || !rows[0].defined()) return {};
  const std::shared_ptr<TensorImpl>& base_impl = rows[0].impl().view_base;
  if (!base_impl || base_impl->view_base || base_impl->autograd || base_impl->requires_grad) return {};
  const auto n = static_cast<int64_t>(rows.size());
  // Referenced only by the rows (their view_base), and its memory only by the rows and itself.
  if (base_impl.use_count() != n || base_impl->storage.use_count() != n + 1) return {};
  const Tensor base(base_impl);
  if (base.dim() < 1 || base.size(0) != n || !base.is_contiguous()) return {};
  const std::vector<int64_t> row_sizes(base.sizes().begin() + 1, base.sizes().end());
  const std::vector<int64_t> row_strides(base.strides().begin() + 1, base.strides().end());
  for (int64_t i = 0; i < n; ++i) {
    const Tensor& row = rows[static_cast<size_t>(i)];
    if (!row.defined() || row.impl().view_base != base_impl || row.impl().autograd ||
        row.dtype() != base.dtype() || !(row.sizes() == IntArrayRef(row_sizes)) ||
        !(row.strides() == IntArrayRef(row_strides)) ||
        row.storage_offset() != base.storage_offset() + i * base.stride(0)) {
      return {};
    }
  }
  return base;
}

}  // namespace ember::data::detail

namespace ember::data::detail {

Tensor stack_rows(const std::vector<Tensor>& rows) {
  if (Tensor base = private_base_of(rows); base.defined()) return base;
  return stack(rows);
}

}  // namespace ember::data::detail
