#include <cmath>
#include <numeric>

#include "data/datasets/subset.h"
#include "data/detail/host_draws.h"
#include "tensor/functions.h"

namespace ember::data::datasets::detail {

void check_subset_indices(const std::vector<size_t>& indices, size_t size) {
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] >= size) {
      throw Error("Subset: indices[" + std::to_string(i) + "] = " + std::to_string(indices[i]) +
                  " is out of range for a dataset of " + std::to_string(size) + " examples");
    }
  }
}

std::vector<int64_t> lengths_of_fractions(size_t n, const std::vector<double>& fractions) {
  const double sum = std::accumulate(fractions.begin(), fractions.end(), 0.0);
  // Python's math.isclose(sum, 1) and sum <= 1; fractions that fail it go on as lengths there and then
  // fail its check that the lengths add up to the dataset's size.
  if (!(std::abs(sum - 1) <= 1e-9 * std::max(std::abs(sum), 1.0) && sum <= 1)) {
    throw Error("random_split: the fractions add up to " + std::to_string(sum) + ", not 1");
  }
  std::vector<int64_t> lengths;
  for (size_t i = 0; i < fractions.size(); ++i) {
    if (fractions[i] < 0 || fractions[i] > 1) {
      throw Error("Fraction at index " + std::to_string(i) + " is not between 0 and 1");
    }
    lengths.push_back(static_cast<int64_t>(std::floor(static_cast<double>(n) * fractions[i])));
  }
  const int64_t remainder = static_cast<int64_t>(n) - std::accumulate(lengths.begin(), lengths.end(), int64_t{0});
  for (int64_t i = 0; i < remainder; ++i) lengths[static_cast<size_t>(i) % lengths.size()] += 1;
  return lengths;
}

std::vector<std::vector<size_t>> split_indices(size_t n, const std::vector<int64_t>& lengths, Generator* generator) {
  int64_t total = 0;
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] < 0) {
      throw Error("random_split: the length at index " + std::to_string(i) + " is negative (" +
                  std::to_string(lengths[i]) + ")");
    }
    total += lengths[i];
  }
  if (total != static_cast<int64_t>(n)) {
    throw Error("Sum of input lengths does not equal the length of the input dataset!");
  }
  Generator& drawing = generator ? *generator : default_generator();
  const std::vector<int64_t> order =
      ember::data::detail::randperm_on_host(static_cast<int64_t>(n), drawing.advance(n));
  std::vector<std::vector<size_t>> runs;
  auto next = order.begin();
  for (const int64_t length : lengths) {
    runs.emplace_back(next, next + length);
    next += length;
  }
  return runs;
}

}  // namespace ember::data::datasets::detail
