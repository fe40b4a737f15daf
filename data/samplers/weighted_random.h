#pragma once
// WeightedRandomSampler: num_samples indices into `weights` per epoch, index i with probability
// proportional to weights[i], as Python's torch.utils.data.WeightedRandomSampler (torch.multinomial of the
// weights): with replacement each draw is independent; without, no index repeats in an epoch and the
// epoch is a draw of num_samples distinct indices (each next one in proportion to the weights left).
// The draws are made on the host from the generator's Philox stream, so an epoch starts without reading
// the device; a seed repeats them. They follow ember::multinomial's distribution, not its exact draws.
// Each epoch draws when it starts (at reset(), or at the first next()), as Python's draws when iterated.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "data/samplers/base.h"
#include "tensor/functions.h"

namespace ember::data::samplers {

class WeightedRandomSampler : public Sampler<> {
 public:
  // Throws Python's messages for num_samples <= 0 and PyTorch 1.13's torch.multinomial's (CPU) for
  // weights that are negative, NaN or infinite or that sum to 0, and for more samples without replacement
  // than weights. Zero weights are drawn last without replacement when the positive ones run out, as in
  // Python 1.13.
  // `generator` (not owned; nullptr: ember's default generator) must outlive the sampler.
  WeightedRandomSampler(std::vector<double> weights, int64_t num_samples, bool replacement = true,
                        Generator* generator = nullptr);

  // The sampler indexes its weights, not the dataset: a new dataset size changes nothing.
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  std::optional<size_t> size() const override { return static_cast<size_t>(num_samples_); }
  const std::vector<double>& weights() const noexcept { return weights_; }
  bool replacement() const noexcept { return replacement_; }

 private:
  std::vector<double> weights_;
  std::vector<double> running_sums_;  // the inverse CDF's table, with replacement
  size_t last_positive_ = 0;          // where a draw that rounds up to the total lands
  int64_t num_samples_;
  bool replacement_;
  Generator* generator_;
  bool drawn_ = false;
  std::vector<size_t> epoch_;
  size_t index_ = 0;
};

}  // namespace ember::data::samplers
