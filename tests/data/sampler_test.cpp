// Samplers: LibTorch's SequentialSampler order, RandomSampler's permutations equal to ember::randperm's
// from the same generator state (so a seed repeats them), a new order each epoch, and BatchSampler's
// batches and length as Python's.
#include <torch/torch.h>

#include <algorithm>
#include <numeric>

#include "data/data.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

using data::samplers::BatchSampler;
using data::samplers::RandomSampler;
using data::samplers::SequentialSampler;

// Every batch a sampler hands out with this batch size, until it says the epoch is over.
template <typename S>
std::vector<std::vector<size_t>> drain(S& sampler, size_t batch_size) {
  std::vector<std::vector<size_t>> batches;
  while (auto batch = sampler.next(batch_size)) batches.push_back(*batch);
  return batches;
}

TEST(DataSamplerTest, SequentialMatchesLibTorch) {
  for (size_t size : {0, 1, 10, 64, 65}) {
    for (size_t batch : {1, 3, 64}) {
      SequentialSampler ours(size);
      torch::data::samplers::SequentialSampler theirs(size);
      EXPECT_EQ(drain(ours, batch), drain(theirs, batch)) << size << " " << batch;
      ours.reset(size + 2);
      theirs.reset(size + 2);
      EXPECT_EQ(drain(ours, batch), drain(theirs, batch)) << size << " " << batch;
      EXPECT_EQ(ours.index(), theirs.index());
    }
  }
}

class DataRandomSamplerTest : public BackendTest {};

TEST_P(DataRandomSamplerTest, OrderIsRandpermOfTheSameGenerator) {
  // Sizes around the Feistel domain's edges (powers of 2 and 4) and Fashion-MNIST's.
  for (int64_t n : {1, 2, 3, 4, 5, 15, 16, 17, 255, 256, 1000, 60000}) {
    SCOPED_TRACE(n);
    Generator ours(1234 + n), reference(1234 + n);
    RandomSampler sampler(n, &ours);  // the constructor draws the first permutation
    const std::vector<int64_t> expected =
        randperm(n, TensorOptions().device(device), &reference).to_vector<int64_t>();
    std::vector<size_t> order;
    for (const auto& batch : drain(sampler, 64)) order.insert(order.end(), batch.begin(), batch.end());
    ASSERT_EQ(order.size(), expected.size());
    EXPECT_TRUE(std::equal(order.begin(), order.end(), expected.begin()));
    EXPECT_EQ(ours.offset(), reference.offset());
    // The next epoch takes the generator's next draw, as randperm's next call does.
    sampler.reset();
    const std::vector<int64_t> second =
        randperm(n, TensorOptions().device(device), &reference).to_vector<int64_t>();
    order.clear();
    for (const auto& batch : drain(sampler, 7)) order.insert(order.end(), batch.begin(), batch.end());
    EXPECT_TRUE(std::equal(order.begin(), order.end(), second.begin()));
  }
}

// The sampler DataLoader makes for shuffle draws nothing until its first reset (the epoch's start), and a
// next() before any reset draws the first order then.
TEST_P(DataRandomSamplerTest, ASamplerThatWaitsDrawsAtItsFirstReset) {
  Generator ours(9), reference(9);
  RandomSampler waiting = RandomSampler::drawing_at_first_reset(100, &ours);
  EXPECT_EQ(ours.offset(), 0u);
  EXPECT_EQ(waiting.size(), std::optional<size_t>(100));
  waiting.reset();
  const std::vector<int64_t> expected = randperm(100, TensorOptions().device(device), &reference).to_vector<int64_t>();
  std::vector<size_t> order;
  for (const auto& batch : drain(waiting, 30)) order.insert(order.end(), batch.begin(), batch.end());
  EXPECT_TRUE(std::equal(order.begin(), order.end(), expected.begin(), expected.end()));

  Generator lazy(9);
  RandomSampler unreset = RandomSampler::drawing_at_first_reset(100, &lazy);
  order.clear();
  for (const auto& batch : drain(unreset, 30)) order.insert(order.end(), batch.begin(), batch.end());
  EXPECT_TRUE(std::equal(order.begin(), order.end(), expected.begin(), expected.end()));
  EXPECT_THROW(RandomSampler::drawing_at_first_reset(-1, &lazy), Error);
}

INSTANTIATE_TEST_SUITE_P(Backends, DataRandomSamplerTest, testing::Values("vulkan", "cuda"), backend_test_name);

TEST(DataSamplerTest, RandomIsAPermutationRepeatedBySeedAndNewEachEpoch) {
  Generator a(7), b(7), c(8);
  RandomSampler first(1000, &a), again(1000, &b), other(1000, &c);
  const auto order = drain(first, 1000)[0];
  std::vector<size_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  std::vector<size_t> all(1000);
  std::iota(all.begin(), all.end(), size_t{0});
  EXPECT_EQ(sorted, all);
  EXPECT_EQ(drain(again, 1000)[0], order);
  EXPECT_NE(drain(other, 1000)[0], order);
  first.reset();
  EXPECT_NE(drain(first, 1000)[0], order);
  EXPECT_EQ(first.size(), 1000u);
  first.reset(10);
  EXPECT_EQ(drain(first, 4).size(), 3u);
}

TEST(DataSamplerTest, BatchSamplerAsPython) {
  for (bool drop_last : {false, true}) {
    BatchSampler batches(std::make_shared<SequentialSampler>(10), 4, drop_last);
    EXPECT_EQ(batches.size(), drop_last ? 2u : 3u);  // len(BatchSampler(range(10), 4, drop_last))
    std::vector<std::vector<size_t>> seen;
    while (auto batch = batches.next()) seen.push_back(*batch);
    std::vector<std::vector<size_t>> expected = {{0, 1, 2, 3}, {4, 5, 6, 7}};
    if (!drop_last) expected.push_back({8, 9});
    EXPECT_EQ(seen, expected);
    batches.reset();
    EXPECT_EQ(batches.next(), std::optional<std::vector<size_t>>(expected[0]));
  }
  expect_error<Error>([] { BatchSampler(std::make_shared<SequentialSampler>(3), 0, false); },
                      "batch_size should be a positive integer value, but got batch_size=0");
  expect_error<Error>([] { BatchSampler(std::make_shared<SequentialSampler>(3), static_cast<size_t>(-2), false); },
                      "batch_size should be a positive integer value, but got batch_size=-2");
}

}  // namespace
}  // namespace ember::test
