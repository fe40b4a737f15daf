#include "data/samplers/weighted_random.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "data/detail/host_draws.h"
#include "runtime/error.h"
#include "tensor/multinomial_checks.h"

namespace ember::data::samplers {

WeightedRandomSampler::WeightedRandomSampler(std::vector<double> weights, int64_t num_samples, bool replacement,
                                             Generator* generator)
    : weights_(std::move(weights)), num_samples_(num_samples), replacement_(replacement), generator_(generator) {
  if (num_samples_ <= 0) {
    throw Error("num_samples should be a positive integer value, but got num_samples=" + std::to_string(num_samples_));
  }
  // torch.multinomial's checks, which Python meets when the first epoch draws; here before any epoch.
  if (!replacement_ && num_samples_ > static_cast<int64_t>(weights_.size())) {
    throw Error("cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  }
  const std::string problem =
      ember::detail::multinomial_problem(weights_, 1, static_cast<int64_t>(weights_.size()), replacement_);
  if (!problem.empty()) throw Error(problem);
  running_sums_.resize(weights_.size());
  std::partial_sum(weights_.begin(), weights_.end(), running_sums_.begin());
  last_positive_ = static_cast<size_t>(
      std::find_if(weights_.rbegin(), weights_.rend(), [](double w) { return w > 0; }).base() - weights_.begin() - 1);
  // Without replacement and fewer positive weights than samples, Python 1.13 takes the zero weights last,
  // as the race below does.
}

void WeightedRandomSampler::reset(std::optional<size_t> /*new_size*/) {
  Generator& generator = generator_ ? *generator_ : default_generator();
  const auto samples = static_cast<size_t>(num_samples_);
  epoch_.assign(samples, 0);
  if (replacement_) {
    // Inverse CDF: the first index whose running sum exceeds u * total (so a zero weight is never taken).
    // When u * total rounds up to the total, no sum exceeds it; that draw belongs to the last positive weight.
    const PhiloxState state = generator.advance(samples);
    for (size_t k = 0; k < samples; ++k) {
      const double target = detail::uniform_on_host(state, k) * running_sums_.back();
      const auto at = std::upper_bound(running_sums_.begin(), running_sums_.end(), target) - running_sums_.begin();
      epoch_[k] = std::min(static_cast<size_t>(at), last_positive_);
    }
  } else {
    // The exponential race: index i finishes at E_i / w_i with E_i exponential; the num_samples first to
    // finish are a draw without replacement in order (zero weights never finish).
    const PhiloxState state = generator.advance(weights_.size());
    std::vector<double> finish(weights_.size());
    for (size_t i = 0; i < weights_.size(); ++i) {
      const double exponential = -std::log1p(-detail::uniform_on_host(state, i));
      finish[i] = weights_[i] > 0 ? exponential / weights_[i] : INFINITY;
    }
    std::vector<size_t> order(weights_.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return finish[a] < finish[b]; });
    std::copy(order.begin(), order.begin() + num_samples_, epoch_.begin());
  }
  index_ = 0;
  drawn_ = true;
}

std::optional<std::vector<size_t>> WeightedRandomSampler::next(size_t batch_size) {
  if (!drawn_) reset();
  if (index_ >= epoch_.size()) return std::nullopt;
  const size_t count = std::min(batch_size, epoch_.size() - index_);
  std::vector<size_t> batch(epoch_.begin() + static_cast<std::ptrdiff_t>(index_),
                            epoch_.begin() + static_cast<std::ptrdiff_t>(index_ + count));
  index_ += count;
  return batch;
}

}  // namespace ember::data::samplers
