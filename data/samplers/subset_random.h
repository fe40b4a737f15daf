#pragma once
// SubsetRandomSampler: the given indices in a new random order at every epoch, as Python's
// torch.utils.data.SubsetRandomSampler: epoch e's order is the generator's e-th ember::randperm of
// their count (a RandomSampler drawing at its first reset), so a seed repeats it.
#include <cstddef>
#include <optional>
#include <vector>

#include "data/samplers/base.h"
#include "data/samplers/random.h"

namespace ember::data::samplers {

class SubsetRandomSampler : public Sampler<> {
 public:
  // `generator` (not owned; nullptr: ember's default generator) must outlive the sampler.
  explicit SubsetRandomSampler(std::vector<size_t> indices, Generator* generator = nullptr);

  // Its size is its indices' count: a new size is an Error.
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  std::optional<size_t> size() const override { return indices_.size(); }
  const std::vector<size_t>& indices() const noexcept { return indices_; }

 private:
  std::vector<size_t> indices_;
  RandomSampler positions_;
};

}  // namespace ember::data::samplers
