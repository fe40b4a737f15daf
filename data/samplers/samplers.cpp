#include <algorithm>
#include <string>

#include "data/detail/counts.h"
#include "data/detail/permutation.h"
#include "data/samplers/batch.h"
#include "data/samplers/random.h"
#include "data/samplers/sequential.h"
#include "runtime/error.h"

namespace ember::data::samplers {

namespace {

// The next at most batch_size entries of `order` from `index` on, advancing it.
std::optional<std::vector<size_t>> take(const std::vector<size_t>* order, size_t size, size_t& index,
                                        size_t batch_size) {
  if (index >= size) return std::nullopt;
  const size_t count = std::min(batch_size, size - index);
  std::vector<size_t> batch(count);
  for (size_t i = 0; i < count; ++i) batch[i] = order ? (*order)[index + i] : index + i;
  index += count;
  return batch;
}

}  // namespace

void SequentialSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  index_ = 0;
}

std::optional<std::vector<size_t>> SequentialSampler::next(size_t batch_size) {
  return take(nullptr, size_, index_, batch_size);
}

namespace {
size_t checked_sampler_size(int64_t size) {
  if (size < 0) throw Error("RandomSampler: size must be non-negative, got " + std::to_string(size));
  return static_cast<size_t>(size);
}
}  // namespace

RandomSampler::RandomSampler(int64_t size, Generator* generator)
    : RandomSampler(checked_sampler_size(size), generator, true) {}

RandomSampler RandomSampler::drawing_at_first_reset(int64_t size, Generator* generator) {
  return RandomSampler(checked_sampler_size(size), generator, false);
}

RandomSampler::RandomSampler(size_t size, Generator* generator, bool draw) : generator_(generator), size_(size) {
  if (draw) reset();
}

void RandomSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  Generator& generator = generator_ ? *generator_ : default_generator();
  // As ember::randperm: the draw advances the generator by `size` blocks.
  const std::vector<int64_t> order =
      detail::randperm_on_host(static_cast<int64_t>(size_), generator.advance(size_));
  indices_.assign(order.begin(), order.end());
  index_ = 0;
  drawn_ = true;
}

std::optional<std::vector<size_t>> RandomSampler::next(size_t batch_size) {
  if (!drawn_) reset();
  return take(&indices_, indices_.size(), index_, batch_size);
}

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
