#pragma once
// Sampler: hands out the indices of each batch, as LibTorch's torch::data::samplers::Sampler does.
// (LibTorch's save/load through serialize archives are not here: ember has no archives.)
#include <cstddef>
#include <optional>
#include <vector>

namespace ember::data::samplers {

template <typename BatchRequest = std::vector<size_t>>
class Sampler {
 public:
  using BatchRequestType = BatchRequest;

  virtual ~Sampler() = default;

  // Starts over, with a new dataset size when one is given.
  virtual void reset(std::optional<size_t> new_size) = 0;
  // The next request of at most batch_size indices, or nullopt when the epoch is over.
  virtual std::optional<BatchRequest> next(size_t batch_size) = 0;
  // Indices per epoch, where known (Python's len(sampler)); ember's addition, for DataLoader::size().
  virtual std::optional<size_t> size() const { return std::nullopt; }
};

}  // namespace ember::data::samplers
