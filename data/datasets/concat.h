#pragma once
// ConcatDataset: datasets of one type one after the other, as Python's torch.utils.data.ConcatDataset
// (index i of the whole is in the first dataset whose cumulative size exceeds i). A batch is gathered by
// each dataset for its part with its own get_batch (TensorDataset and MNIST gather at once), and the
// examples come back in the order asked for. Datasets of different types need a common type (a
// MapDataset to one example type, say): ember holds them by value, without type erasure.
#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "data/datasets/base.h"
#include "data/datasets/subset.h"
#include "runtime/error.h"

namespace ember::data::datasets {

template <typename D>
class ConcatDataset : public BatchDataset<ConcatDataset<D>, typename D::BatchType, ArrayRef<size_t>> {
 public:
  using BatchType = typename D::BatchType;
  static_assert(!is_iterable_dataset_v<D>, "ConcatDataset does not support IterableDataset");

  // Throws Python's error for no datasets, and Error for one without a size.
  explicit ConcatDataset(std::vector<D> datasets) : datasets_(std::move(datasets)) {
    if (datasets_.empty()) throw Error("datasets should not be an empty iterable");
    size_t total = 0;
    for (const D& dataset : datasets_) cumulative_sizes_.push_back(total += detail::size_of(dataset, "ConcatDataset"));
  }

  auto get(size_t index)
    requires requires(D& dataset) { dataset.get(index); }
  {
    const auto [which, local] = locate(index);
    return datasets_[which].get(local);
  }
  BatchType get_batch(ArrayRef<size_t> request) override {
    std::vector<std::vector<size_t>> parts(datasets_.size());
    std::vector<std::pair<size_t, size_t>> from(request.size());  // (dataset, position in its part)
    for (size_t k = 0; k < request.size(); ++k) {
      const auto [which, local] = locate(request[k]);
      from[k] = {which, parts[which].size()};
      parts[which].push_back(local);
    }
    std::vector<BatchType> batches(datasets_.size());
    for (size_t d = 0; d < datasets_.size(); ++d) {
      if (!parts[d].empty()) batches[d] = datasets_[d].get_batch(parts[d]);
    }
    BatchType batch;
    batch.reserve(request.size());
    for (const auto& [which, position] : from) batch.push_back(std::move(batches[which][position]));
    return batch;
  }
  std::optional<size_t> size() const override { return cumulative_sizes_.back(); }

  const std::vector<D>& datasets() const noexcept { return datasets_; }
  // Python's cumulative_sizes: the examples up to and including each dataset.
  const std::vector<size_t>& cumulative_sizes() const noexcept { return cumulative_sizes_; }

 private:
  std::pair<size_t, size_t> locate(size_t index) const {
    if (index >= cumulative_sizes_.back()) {
      throw Error("ConcatDataset: index " + std::to_string(index) + " is out of range for " +
                  std::to_string(cumulative_sizes_.back()) + " examples");
    }
    const auto which = static_cast<size_t>(
        std::upper_bound(cumulative_sizes_.begin(), cumulative_sizes_.end(), index) - cumulative_sizes_.begin());
    return {which, which == 0 ? index : index - cumulative_sizes_[which - 1]};
  }

  std::vector<D> datasets_;
  std::vector<size_t> cumulative_sizes_;
};

}  // namespace ember::data::datasets
