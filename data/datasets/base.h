#pragma once
// Dataset bases, as LibTorch's torch::data::datasets has them, and Python's IterableDataset.
// - BatchDataset<Self, Batch, Request>: get_batch(request) and size(); map(transform) wraps it.
// - Dataset<Self, Example>: map-style, get(index) and size(); get_batch calls get for each index, and a
//   dataset that can gather a whole batch at once (MNIST, TensorDataset) overrides it.
// - IterableDataset<Self, Example>: a stream of examples, next() until nullopt, reset() per epoch
//   (torch.utils.data.IterableDataset). The DataLoader batches it; it has no sampler.
// Loaders call these from worker threads: map-style datasets are copied into each worker, as LibTorch
// does, so a copy must be cheap (share big data through a shared_ptr) and get() must not touch state
// shared between copies without a lock.
#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "data/example.h"

namespace ember::data::datasets {

template <typename Source, typename Transform>
class MapDataset;
template <typename D, typename T>
MapDataset<D, T> map(D dataset, T transform);

namespace detail {
template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {};
}  // namespace detail

template <typename Self, typename Batch = std::vector<Example<>>,
          typename BatchRequest = ArrayRef<size_t>>
class BatchDataset {
 public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;
  constexpr static bool is_stateful = detail::is_optional<BatchType>::value;

  virtual ~BatchDataset() = default;

  virtual Batch get_batch(BatchRequest request) = 0;
  virtual std::optional<size_t> size() const = 0;

  template <typename TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) & {
    return datasets::map(static_cast<Self&>(*this), std::move(transform));
  }
  template <typename TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) && {
    return datasets::map(std::move(static_cast<Self&>(*this)), std::move(transform));
  }
};

template <typename Self, typename SingleExample = Example<>>
class Dataset : public BatchDataset<Self, std::vector<SingleExample>> {
 public:
  using ExampleType = SingleExample;

  virtual ExampleType get(size_t index) = 0;

  std::vector<ExampleType> get_batch(ArrayRef<size_t> indices) override {
    std::vector<ExampleType> batch;
    batch.reserve(indices.size());
    for (const size_t i : indices) batch.push_back(get(i));
    return batch;
  }
};

// LibTorch's StreamDataset: get_batch receives how many examples to produce.
template <typename Self, typename Batch = std::vector<Example<>>>
using StreamDataset = BatchDataset<Self, Batch, /*BatchRequest=*/size_t>;

namespace detail {
struct IterableDatasetTag {};
}  // namespace detail

template <typename Self, typename SingleExample = Example<>>
class IterableDataset : public detail::IterableDatasetTag {
 public:
  using SelfType = Self;
  using ExampleType = SingleExample;
  using BatchType = std::vector<SingleExample>;

  virtual ~IterableDataset() = default;

  // The next example, or nullopt when the stream has ended.
  virtual std::optional<ExampleType> next() = 0;
  // Starts the stream again; the DataLoader calls it at the start of every epoch, the first included, as
  // Python calls iter(dataset) for each.
  virtual void reset() {}
  // The stream's length where it is known, for DataLoader::size().
  virtual std::optional<size_t> size() const { return std::nullopt; }
};

template <typename D>
inline constexpr bool is_iterable_dataset_v = std::is_base_of_v<detail::IterableDatasetTag, D>;

}  // namespace ember::data::datasets
