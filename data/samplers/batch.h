#pragma once
// BatchSampler: Python's torch.utils.data.BatchSampler(sampler, batch_size, drop_last). It cuts what a
// sampler hands out into batches of batch_size, dropping a short last batch when drop_last is set.
// BatchSamplerBase is what a DataLoader takes batches from; a class of one's own that derives from it is
// Python's DataLoader(batch_sampler=...): it picks each batch whole, of any size (batches bucketed by
// length, say).
#include <memory>

#include "data/samplers/base.h"

namespace ember::data::samplers {

class BatchSamplerBase {
 public:
  virtual ~BatchSamplerBase() = default;
  // Starts a new epoch; a loader calls it when each epoch starts.
  virtual void reset() = 0;
  // The next batch's indices, or nullopt when the epoch is over.
  virtual std::optional<std::vector<size_t>> next() = 0;
  // Batches per epoch (Python's len(batch_sampler)); the default throws, for one whose length is unknown.
  virtual size_t size() const;
};

class BatchSampler : public BatchSamplerBase {
 public:
  BatchSampler(std::shared_ptr<Sampler<>> sampler, size_t batch_size, bool drop_last);

  // Starts a new epoch (a RandomSampler draws a new order).
  void reset() override;
  std::optional<std::vector<size_t>> next() override;
  // Throws when the sampler's size is unknown.
  size_t size() const override;

  const std::shared_ptr<Sampler<>>& sampler() const { return sampler_; }
  size_t batch_size() const { return batch_size_; }
  bool drop_last() const { return drop_last_; }

 private:
  std::shared_ptr<Sampler<>> sampler_;
  size_t batch_size_;
  bool drop_last_;
};

}  // namespace ember::data::samplers
