#pragma once
// RandomSampler: a new random order of 0..size-1 at every reset (every epoch), as LibTorch's, drawn from a
// Generator as Python's RandomSampler(generator=...) is, with Python's `replacement` and `num_samples`:
// - without replacement, an epoch is num_samples // size permutations and the start of one more (one
//   permutation when num_samples is not given), each ember::randperm(size, {}, generator)'s;
// - with replacement, it is ember::randint(size, {num_samples}, {}, generator)'s draws.
// The draws are computed on the host (data/detail/host_draws.h) as the batches are asked for, so a seeded
// generator repeats them and a large num_samples costs no memory. The generator advances by the whole
// epoch's draws when the epoch starts.
// LibTorch's constructor draws a first order, and so does this one unless told to wait: DataLoader's
// shuffling makes one that draws at its first reset(), when the first epoch starts, as Python's
// RandomSampler draws when iterated (what the generator gives out between building the loader and
// iterating it, a model's initial weights or a manual_seed, comes before the order).
#include <cstdint>
#include <optional>

#include "data/samplers/base.h"
#include "nn/arg.h"
#include "tensor/functions.h"

namespace ember::data::samplers {

// Python's RandomSampler arguments that LibTorch's lacks.
struct RandomSamplerOptions {
  // Draw each index independently, so that some repeat.
  EMBER_ARG(bool, replacement) = false;
  // Indices per epoch, positive; nullopt: the dataset's size (which follows reset(new_size)).
  EMBER_ARG(std::optional<int64_t>, num_samples);
};

class RandomSampler : public Sampler<> {
 public:
  // `generator` (not owned; nullptr: ember's default generator) must outlive the sampler.
  explicit RandomSampler(int64_t size, Generator* generator = nullptr);
  RandomSampler(int64_t size, const RandomSamplerOptions& options, Generator* generator = nullptr);
  // Draws nothing until the first reset() (or next(), which then draws the first order itself). A loader
  // resets its sampler when each epoch starts, so a sampler made this way gives epoch e the generator's
  // e-th draw, as in Python; one that drew when built gives it the (e + 1)-th, as in LibTorch.
  static RandomSampler drawing_at_first_reset(int64_t size, Generator* generator = nullptr);
  static RandomSampler drawing_at_first_reset(int64_t size, const RandomSamplerOptions& options,
                                              Generator* generator = nullptr);

  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  // num_samples, as Python's len(sampler).
  std::optional<size_t> size() const override { return samples_per_epoch(); }
  size_t index() const noexcept { return index_; }
  const RandomSamplerOptions& options() const noexcept { return options_; }

 private:
  RandomSampler(size_t size, const RandomSamplerOptions& options, Generator* generator, bool draw);
  size_t samples_per_epoch() const;
  // The epoch's index `position` without replacement: the permutation it falls in is drawn when needed.
  size_t permuted(size_t position);

  Generator* generator_;
  size_t size_;
  RandomSamplerOptions options_;
  bool drawn_ = false;
  PhiloxState epoch_start_;  // the generator's state the epoch's draws start from
  std::vector<size_t> permutation_;
  size_t permutation_number_ = 0;  // which of the epoch's permutations permutation_ holds
  size_t index_ = 0;
};

}  // namespace ember::data::samplers
