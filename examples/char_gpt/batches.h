#pragma once
// Where each training and validation sequence starts: a counter hashed by splitmix64, so that the PyTorch
// reference (char_gpt_torch.py) draws exactly the same batches without sharing a generator.
#include <cstdint>
#include <memory>
#include <vector>

#include "tensor/tensor.h"

namespace ember::char_gpt {

enum class Split : uint64_t { Train = 0, Validation = 1 };

// batch_size start offsets in [0, limit) for batch number `index` of `split`.
std::vector<int64_t> batch_offsets(uint64_t seed, Split split, uint64_t index, int64_t batch_size, int64_t limit);

// Inputs (B, T) and next-character targets (B, T) on `device`, from `tokens` at `offsets`. They are cut
// on the host and uploaded: picking them on the device with index_select would check the indices there,
// and that check waits for the device.
struct Batch {
  Tensor inputs, targets;
};
Batch make_batch(const std::vector<int64_t>& tokens, const std::vector<int64_t>& offsets, int64_t context,
                 const std::shared_ptr<Device>& device);

}  // namespace ember::char_gpt
