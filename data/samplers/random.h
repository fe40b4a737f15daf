#pragma once
// RandomSampler: a new random permutation of 0..size-1 at every reset (every epoch), as LibTorch's, drawn
// from a Generator as Python's RandomSampler(generator=...) is: the order is ember::randperm(size, {},
// generator)'s, computed on the host (data/detail/permutation.h), so a seeded generator repeats it.
// LibTorch's constructor draws a first permutation, and so does this one unless told to wait: DataLoader's
// shuffling makes one that draws at its first reset(), when the first epoch starts, as Python's
// RandomSampler draws when iterated (what the generator gives out between building the loader and
// iterating it, a model's initial weights or a manual_seed, comes before the order).
#include <cstdint>

#include "data/samplers/base.h"
#include "tensor/functions.h"

namespace ember::data::samplers {

class RandomSampler : public Sampler<> {
 public:
  // `generator` (not owned; nullptr: ember's default generator) must outlive the sampler.
  explicit RandomSampler(int64_t size, Generator* generator = nullptr);
  // Draws nothing until the first reset() (or next(), which then draws the first order itself).
  static RandomSampler drawing_at_first_reset(int64_t size, Generator* generator = nullptr);

  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  std::optional<size_t> size() const override { return size_; }
  size_t index() const noexcept { return index_; }

 private:
  RandomSampler(size_t size, Generator* generator, bool draw);

  Generator* generator_;
  size_t size_;
  bool drawn_ = false;
  std::vector<size_t> indices_;
  size_t index_ = 0;
};

}  // namespace ember::data::samplers
