#pragma once
// RandomSampler: a new random permutation of 0..size-1 at every reset (every epoch), as LibTorch's, drawn
// from a Generator as Python's RandomSampler(generator=...) is: the order is ember::randperm(size, {},
// generator)'s, computed on the host (data/detail/permutation.h), so a seeded generator repeats it.
// LibTorch's constructor draws a first permutation, and so does this one.
#include <cstdint>

#include "data/samplers/base.h"
#include "tensor/functions.h"

namespace ember::data::samplers {

class RandomSampler : public Sampler<> {
 public:
  // `generator` (not owned; nullptr: ember's default generator) must outlive the sampler.
  explicit RandomSampler(int64_t size, Generator* generator = nullptr);

  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  std::optional<size_t> size() const override { return indices_.size(); }
  size_t index() const noexcept { return index_; }

 private:
  Generator* generator_;
  std::vector<size_t> indices_;
  size_t index_ = 0;
};

}  // namespace ember::data::samplers
