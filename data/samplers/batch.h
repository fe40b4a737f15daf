#pragma once
// BatchSampler: Python's torch.utils.data.BatchSampler(sampler, batch_size, drop_last). It cuts what a
// sampler hands out into batches of batch_size, dropping a short last batch when drop_last is set.
#include <memory>

#include "data/samplers/base.h"

namespace ember::data::samplers {

class BatchSampler {
 public:
  BatchSampler(std::shared_ptr<Sampler<>> sampler, size_t batch_size, bool drop_last);

  // Starts a new epoch (a RandomSampler draws a new order).
  void reset();
  // The next batch's indices, or nullopt when the epoch is over.
  std::optional<std::vector<size_t>> next();
  // Batches per epoch (Python's len(batch_sampler)); throws when the sampler's size is unknown.
  size_t size() const;

  const std::shared_ptr<Sampler<>>& sampler() const { return sampler_; }
  size_t batch_size() const { return batch_size_; }
  bool drop_last() const { return drop_last_; }

 private:
  std::shared_ptr<Sampler<>> sampler_;
  size_t batch_size_;
  bool drop_last_;
};

}  // namespace ember::data::samplers
