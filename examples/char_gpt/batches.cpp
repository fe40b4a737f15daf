#include "examples/char_gpt/batches.h"

#include "tensor/functions.h"

namespace ember::char_gpt {

namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

std::vector<int64_t> batch_offsets(uint64_t seed, Split split, uint64_t index, int64_t batch_size, int64_t limit) {
  std::vector<int64_t> offsets;
  for (int64_t j = 0; j < batch_size; ++j) {
    const uint64_t counter = (seed << 40) ^ (static_cast<uint64_t>(split) << 39) ^ (index * batch_size + j);
    offsets.push_back(static_cast<int64_t>(splitmix64(counter) % static_cast<uint64_t>(limit)));
  }
  return offsets;
}

Batch make_batch(const std::vector<int64_t>& tokens, const std::vector<int64_t>& offsets, int64_t context,
                 const std::shared_ptr<Device>& device) {
  const int64_t batch = static_cast<int64_t>(offsets.size());
  std::vector<int64_t> inputs, targets;
  inputs.reserve(batch * context);
  targets.reserve(batch * context);
  for (int64_t offset : offsets) {
    inputs.insert(inputs.end(), tokens.begin() + offset, tokens.begin() + offset + context);
    targets.insert(targets.end(), tokens.begin() + offset + 1, tokens.begin() + offset + context + 1);
  }
  const TensorOptions int64_on_device = TensorOptions().dtype(DType::Int64).device(device);
  return {from_blob(inputs.data(), {batch, context}, int64_on_device),
          from_blob(targets.data(), {batch, context}, int64_on_device)};
}

}  // namespace ember::char_gpt
