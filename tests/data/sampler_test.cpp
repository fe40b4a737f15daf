// Samplers: LibTorch's SequentialSampler order, RandomSampler's permutations and draws with replacement
// equal to ember::randperm's and ember::randint's from the same generator state (so a seed repeats them),
// a new order each epoch, and Python's num_samples, and BatchSampler's batches and length as Python's.
#include <torch/torch.h>

#include <algorithm>
#include <numeric>

#include "data/data.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

using data::samplers::BatchSampler;
using data::samplers::RandomSampler;
using data::samplers::RandomSamplerOptions;
using data::samplers::SequentialSampler;

// Every batch a sampler hands out with this batch size, until it says the epoch is over.
template <typename S>
std::vector<std::vector<size_t>> drain(S& sampler, size_t batch_size) {
  std::vector<std::vector<size_t>> batches;
  while (auto batch = sampler.next(batch_size)) batches.push_back(*batch);
  return batches;
}

std::vector<size_t> concatenated(const std::vector<std::vector<size_t>>& batches) {
  std::vector<size_t> all;
  for (const auto& batch : batches) all.insert(all.end(), batch.begin(), batch.end());
  return all;
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
    std::vector<size_t> order = concatenated(drain(sampler, 64));
    ASSERT_EQ(order.size(), expected.size());
    EXPECT_TRUE(std::equal(order.begin(), order.end(), expected.begin()));
    EXPECT_EQ(ours.offset(), reference.offset());
    // The next epoch takes the generator's next draw, as randperm's next call does.
    sampler.reset();
    const std::vector<int64_t> second =
        randperm(n, TensorOptions().device(device), &reference).to_vector<int64_t>();
    order = concatenated(drain(sampler, 7));
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
  std::vector<size_t> order = concatenated(drain(waiting, 30));
  EXPECT_TRUE(std::equal(order.begin(), order.end(), expected.begin(), expected.end()));

  Generator lazy(9);
  RandomSampler unreset = RandomSampler::drawing_at_first_reset(100, &lazy);
  order = concatenated(drain(unreset, 30));
  EXPECT_TRUE(std::equal(order.begin(), order.end(), expected.begin(), expected.end()));
  EXPECT_THROW(RandomSampler::drawing_at_first_reset(-1, &lazy), Error);
}

// Python's RandomSampler(replacement=True, num_samples=k): the epoch is randint's k draws from the same
// generator state, and the next epoch the generator's next k.
TEST_P(DataRandomSamplerTest, WithReplacementTheDrawsAreRandintsOfTheSameGenerator) {
  for (int64_t n : {1, 7, 1000}) {
    for (int64_t samples : {1, 33, 5000}) {
      SCOPED_TRACE(std::to_string(n) + " " + std::to_string(samples));
      Generator ours(n + samples), reference(n + samples);
      RandomSampler sampler(n, RandomSamplerOptions().replacement(true).num_samples(samples), &ours);
      EXPECT_EQ(sampler.size(), std::optional<size_t>(samples));  // len(sampler)
      for (int epoch = 0; epoch < 2; ++epoch) {
        if (epoch > 0) sampler.reset();
        const std::vector<int64_t> expected =
            randint(n, {samples}, TensorOptions().device(device), &reference).to_vector<int64_t>();
        const std::vector<size_t> order = concatenated(drain(sampler, 64));
        ASSERT_EQ(order.size(), expected.size());
        EXPECT_TRUE(std::equal(order.begin(), order.end(), expected.begin()));
        EXPECT_EQ(ours.offset(), reference.offset());
      }
    }
  }
}

// Python's RandomSampler(num_samples=k) without replacement: k // n whole permutations, then the start of
// one more, each the generator's next randperm (the last drawn whole, as Python draws it).
TEST_P(DataRandomSamplerTest, NumSamplesWithoutReplacementRepeatsPermutations) {
  for (int64_t samples : {3, 10, 25}) {
    SCOPED_TRACE(samples);
    Generator ours(3), reference(3);
    RandomSampler sampler(10, RandomSamplerOptions().num_samples(samples), &ours);
    std::vector<int64_t> expected;
    while (static_cast<int64_t>(expected.size()) < samples) {
      const auto perm = randperm(10, TensorOptions().device(device), &reference).to_vector<int64_t>();
      expected.insert(expected.end(), perm.begin(), perm.end());
    }
    expected.resize(samples);
    const std::vector<size_t> order = concatenated(drain(sampler, 4));
    EXPECT_TRUE(std::equal(order.begin(), order.end(), expected.begin(), expected.end()));
    EXPECT_EQ(ours.offset(), reference.offset());
  }
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

// Python's checks and lengths: num_samples must be positive, fixes len(sampler) whatever the dataset's
// size, and cannot be drawn from an empty dataset (Python fails there with a ZeroDivisionError or
// randint's range error; ember names the problem).
TEST(DataSamplerTest, RandomSamplerOptionsAsPython) {
  Generator generator(1);
  expect_error<Error>([&] { RandomSampler(10, RandomSamplerOptions().num_samples(0), &generator); },
                      "num_samples should be a positive integer value, but got num_samples=0");
  expect_error<Error>(
      [&] { RandomSampler(10, RandomSamplerOptions().replacement(true).num_samples(-3), &generator); },
      "num_samples should be a positive integer value, but got num_samples=-3");
  EXPECT_EQ(generator.offset(), 0u);
  for (bool replacement : {false, true}) {
    expect_error<Error>(
        [&] { RandomSampler(0, RandomSamplerOptions().replacement(replacement).num_samples(2), &generator); },
        "RandomSampler: cannot draw 2 samples from an empty dataset");
    // Without num_samples an epoch is the dataset, which may be empty, as LibTorch's RandomSampler.
    RandomSampler empty(0, RandomSamplerOptions().replacement(replacement), &generator);
    EXPECT_FALSE(empty.next(4).has_value());
    empty.reset(5);
    EXPECT_EQ(concatenated(drain(empty, 4)).size(), 5u);

    RandomSampler fixed(5, RandomSamplerOptions().replacement(replacement).num_samples(12), &generator);
    fixed.reset(3);
    EXPECT_EQ(fixed.size(), std::optional<size_t>(12));
    const std::vector<size_t> order = concatenated(drain(fixed, 5));
    EXPECT_EQ(order.size(), 12u);
    EXPECT_TRUE(std::all_of(order.begin(), order.end(), [](size_t i) { return i < 3; }));
    if (!replacement) {  // every index four times: four whole permutations of 3
      for (size_t i = 0; i < 3; ++i) EXPECT_EQ(std::count(order.begin(), order.end(), i), 4);
    }
  }
  // len(BatchSampler(RandomSampler(range(5), num_samples=12), 5, drop_last)).
  for (bool drop_last : {false, true}) {
    BatchSampler batches(std::make_shared<RandomSampler>(5, RandomSamplerOptions().num_samples(12), &generator), 5,
                         drop_last);
    EXPECT_EQ(batches.size(), drop_last ? 2u : 3u);
  }
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
