#include <algorithm>
#include <string>

#include "data/detail/counts.h"
#include "data/detail/host_draws.h"
#include "data/samplers/batch.h"
#include "data/samplers/random.h"
#include "data/samplers/sequential.h"
#include "data/samplers/subset_random.h"
#include "runtime/error.h"

namespace ember::data::samplers {

namespace {

size_t checked_sampler_size(int64_t size) {
  if (size < 0) throw Error("RandomSampler: size must be non-negative, got " + std::to_string(size));
  return static_cast<size_t>(size);
}

const RandomSamplerOptions& checked(const RandomSamplerOptions& options) {
  if (options.num_samples() && *options.num_samples() <= 0) {
    throw Error("num_samples should be a positive integer value, but got num_samples=" +
                std::to_string(*options.num_samples()));
  }
  return options;
}

}  // namespace

void SequentialSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  index_ = 0;
}

std::optional<std::vector<size_t>> SequentialSampler::next(size_t batch_size) {
  if (index_ >= size_) return std::nullopt;
  std::vector<size_t> batch(std::min(batch_size, size_ - index_));
  for (size_t& entry : batch) entry = index_++;
  return batch;
}

RandomSampler::RandomSampler(int64_t size, Generator* generator)
    : RandomSampler(checked_sampler_size(size), RandomSamplerOptions(), generator, true) {}

RandomSampler::RandomSampler(int64_t size, const RandomSamplerOptions& options, Generator* generator)
    : RandomSampler(checked_sampler_size(size), checked(options), generator, true) {}

RandomSampler RandomSampler::drawing_at_first_reset(int64_t size, Generator* generator) {
  return drawing_at_first_reset(size, RandomSamplerOptions(), generator);
}

RandomSampler RandomSampler::drawing_at_first_reset(int64_t size, const RandomSamplerOptions& options,
                                                    Generator* generator) {
  return RandomSampler(checked_sampler_size(size), checked(options), generator, false);
}

RandomSampler::RandomSampler(size_t size, const RandomSamplerOptions& options, Generator* generator, bool draw)
    : generator_(generator), size_(size), options_(options) {
  if (draw) reset();
}

size_t RandomSampler::samples_per_epoch() const {
  return options_.num_samples() ? static_cast<size_t>(*options_.num_samples()) : size_;
}

void RandomSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  const size_t samples = samples_per_epoch();
  if (samples > 0 && size_ == 0) {
    throw Error("RandomSampler: cannot draw " + std::to_string(samples) + " samples from an empty dataset");
  }
  // The epoch's draws, as ember::randint and ember::randperm advance the generator: a block per index
  // with replacement, `size` blocks per permutation without.
  const size_t permutations = size_ == 0 ? 0 : (samples + size_ - 1) / size_;
  Generator& generator = generator_ ? *generator_ : default_generator();
  epoch_start_ = generator.advance(options_.replacement() ? samples : permutations * size_);
  permutation_.clear();
  index_ = 0;
  drawn_ = true;
}

size_t RandomSampler::permuted(size_t position) {
  const size_t number = position / size_;
  if (permutation_.empty() || number != permutation_number_) {
    PhiloxState state = epoch_start_;
    state.offset += number * size_;
    const std::vector<int64_t> order = detail::randperm_on_host(static_cast<int64_t>(size_), state);
    permutation_.assign(order.begin(), order.end());
    permutation_number_ = number;
  }
  return permutation_[position % size_];
}

std::optional<std::vector<size_t>> RandomSampler::next(size_t batch_size) {
  if (!drawn_) reset();
  const size_t samples = samples_per_epoch();
  if (index_ >= samples) return std::nullopt;
  std::vector<size_t> batch(std::min(batch_size, samples - index_));
  for (size_t& entry : batch) {
    entry = options_.replacement()
                ? static_cast<size_t>(detail::randint_on_host(static_cast<int64_t>(size_), epoch_start_, index_))
                : permuted(index_);
    ++index_;
  }
  return batch;
}

SubsetRandomSampler::SubsetRandomSampler(std::vector<size_t> indices, Generator* generator)
    : indices_(std::move(indices)),
      positions_(RandomSampler::drawing_at_first_reset(static_cast<int64_t>(indices_.size()), generator)) {}

void SubsetRandomSampler::reset(std::optional<size_t> new_size) {
  if (new_size && *new_size != indices_.size()) {
    throw Error("SubsetRandomSampler: its size is its " + std::to_string(indices_.size()) +
                " indices'; it cannot be reset to " + std::to_string(*new_size));
  }
  positions_.reset();
}

std::optional<std::vector<size_t>> SubsetRandomSampler::next(size_t batch_size) {
  std::optional<std::vector<size_t>> batch = positions_.next(batch_size);
  if (batch) {
    for (size_t& entry : *batch) entry = indices_[entry];
  }
  return batch;
}

size_t BatchSamplerBase::size() const { throw Error("DataLoader: the batch sampler has no length"); }

BatchSampler::BatchSampler(std::shared_ptr<Sampler<>> sampler, size_t batch_size, bool drop_last)
    : sampler_(std::move(sampler)), batch_size_(batch_size), drop_last_(drop_last) {
  if (!sampler_) throw Error("BatchSampler: the sampler is null");
  detail::check_batch_size(batch_size_);
}

void BatchSampler::reset() { sampler_->reset(std::nullopt); }

std::optional<std::vector<size_t>> BatchSampler::next() {
  auto batch = sampler_->next(batch_size_);
  if (!batch || batch->empty() || (drop_last_ && batch->size() < batch_size_)) return std::nullopt;
  return batch;
}

size_t BatchSampler::size() const {
  const std::optional<size_t> samples = sampler_->size();
  if (!samples) throw Error("BatchSampler: the sampler has no length");
  return drop_last_ ? *samples / batch_size_ : (*samples + batch_size_ - 1) / batch_size_;
}

}  // namespace ember::data::samplers
