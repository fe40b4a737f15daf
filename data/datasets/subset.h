#pragma once
// Subset: the examples of a map-style dataset at given indices, and random_split, which cuts a dataset
// into non-overlapping subsets of given lengths (or fractions of it) in a random order, as Python's
// torch.utils.data.Subset and random_split:
//
//   ember::Generator generator(42);
//   auto splits = random_split(FashionMNIST(MNIST::Mode::kTrain), {50000, 10000}, &generator);
//   DataLoader train(splits[0], DataLoaderOptions(64).shuffle(true)), validate(splits[1], ...);
//   auto halves = random_split(dataset, {0.5, 0.5});  // fractions
//
// A Subset hands its batches to its dataset's get_batch, so a dataset that gathers a batch at once
// (TensorDataset, MNIST) still does; copies (one per loader worker) share the indices.
// random_split draws its order as ember::randperm(n, {}, generator) does, on the host, advancing the
// generator as randperm does; Python's CPU generator draws another order from the same seed.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "data/datasets/base.h"
#include "runtime/error.h"

namespace ember {
class Generator;
}

namespace ember::data::datasets {

namespace detail {
// The dataset's size; Error naming `what` for a dataset without one.
template <typename D>
size_t size_of(const D& dataset, const std::string& what) {
  const std::optional<size_t> size = dataset.size();
  if (!size) throw Error(what + ": the dataset has no size");
  return *size;
}
// Throws Error naming the first index that is not below `size`.
void check_subset_indices(const std::vector<size_t>& indices, size_t size);
// Python's lengths for fractions of n examples: floor(n * fraction) each, then one more for the first,
// second, ... split while examples remain. Throws for fractions outside [0, 1] or not adding up to 1.
std::vector<int64_t> lengths_of_fractions(size_t n, const std::vector<double>& fractions);
// randperm(n) drawn from `generator` (nullptr: the default one), cut into consecutive runs of `lengths`,
// which must add up to n (Python's message otherwise).
std::vector<std::vector<size_t>> split_indices(size_t n, const std::vector<int64_t>& lengths, Generator* generator);
}  // namespace detail

template <typename Source>
class Subset : public BatchDataset<Subset<Source>, typename Source::BatchType, ArrayRef<size_t>> {
 public:
  using BatchType = typename Source::BatchType;

  // Throws Error for an index past the dataset's end.
  Subset(Source dataset, std::vector<size_t> indices)
      : dataset_(std::move(dataset)), indices_(std::make_shared<const std::vector<size_t>>(std::move(indices))) {
    detail::check_subset_indices(*indices_, detail::size_of(dataset_, "Subset"));
  }

  auto get(size_t index)
    requires requires(Source& source) { source.get(index); }
  {
    return dataset_.get(source_index(index));
  }
  BatchType get_batch(ArrayRef<size_t> request) override {
    std::vector<size_t> mapped;
    mapped.reserve(request.size());
    for (const size_t index : request) mapped.push_back(source_index(index));
    return dataset_.get_batch(mapped);
  }
  std::optional<size_t> size() const override { return indices_->size(); }

  const Source& dataset() const noexcept { return dataset_; }
  const std::vector<size_t>& indices() const noexcept { return *indices_; }

 private:
  size_t source_index(size_t index) const {
    if (index >= indices_->size()) {
      throw Error("Subset: index " + std::to_string(index) + " is out of range for a subset of " +
                  std::to_string(indices_->size()) + " examples");
    }
    return (*indices_)[index];
  }

  Source dataset_;
  std::shared_ptr<const std::vector<size_t>> indices_;
};

// Subsets of `lengths` examples, which must add up to the dataset's size.
template <typename Source>
std::vector<Subset<Source>> random_split(const Source& dataset, const std::vector<int64_t>& lengths,
                                         Generator* generator = nullptr) {
  std::vector<Subset<Source>> subsets;
  for (std::vector<size_t>& indices :
       detail::split_indices(detail::size_of(dataset, "random_split"), lengths, generator)) {
    subsets.emplace_back(dataset, std::move(indices));
  }
  return subsets;
}

// Subsets of fractions of the dataset, which must add up to 1.
template <typename Source>
std::vector<Subset<Source>> random_split(const Source& dataset, const std::vector<double>& fractions,
                                         Generator* generator = nullptr) {
  return random_split(dataset, detail::lengths_of_fractions(detail::size_of(dataset, "random_split"), fractions),
                      generator);
}

// So that random_split(dataset, {50000, 10000}) means lengths and random_split(dataset, {0.8, 0.2}) fractions.
template <typename Source>
std::vector<Subset<Source>> random_split(const Source& dataset, std::initializer_list<int> lengths,
                                         Generator* generator = nullptr) {
  return random_split(dataset, std::vector<int64_t>(lengths.begin(), lengths.end()), generator);
}
template <typename Source>
std::vector<Subset<Source>> random_split(const Source& dataset, std::initializer_list<double> fractions,
                                         Generator* generator = nullptr) {
  return random_split(dataset, std::vector<double>(fractions), generator);
}

}  // namespace ember::data::datasets
