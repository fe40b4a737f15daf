#pragma once
// SequentialSampler: 0, 1, ..., size - 1 in order, as LibTorch's.
#include "data/samplers/base.h"

namespace ember::data::samplers {

class SequentialSampler : public Sampler<> {
 public:
  explicit SequentialSampler(size_t size) : size_(size) {}

  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  std::optional<size_t> size() const override { return size_; }
  // How many indices this epoch has handed out.
  size_t index() const noexcept { return index_; }

 private:
  size_t size_;
  size_t index_ = 0;
};

}  // namespace ember::data::samplers
