// WeightedRandomSampler: Python's messages for bad arguments, draws in proportion to the weights (with
// replacement) or distinct and in proportion to the weights left (without), seeded epochs that repeat,
// and a loader that hands out the sampled rows.
#include <cmath>
#include <set>

#include "data/data.h"
#include "tests/python_oracle.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

using data::samplers::WeightedRandomSampler;

class DataWeightedSamplerTest : public BackendTest {};

std::vector<size_t> epoch_of(WeightedRandomSampler& sampler, size_t batch_size = 7) {
  std::vector<size_t> all;
  while (auto batch = sampler.next(batch_size)) all.insert(all.end(), batch->begin(), batch->end());
  return all;
}

// Expects `count` of `total` draws within five standard deviations of probability p.
void expect_frequency(int64_t count, int64_t total, double p, const std::string& what) {
  const double mean = p * static_cast<double>(total);
  const double sigma = std::sqrt(static_cast<double>(total) * p * (1 - p));
  EXPECT_LE(std::abs(static_cast<double>(count) - mean), 5 * sigma + 1e-9) << what << ": " << count << " of " << total
                                                                          << ", expected about " << mean;
}

TEST_P(DataWeightedSamplerTest, BadArgumentsGetPythonsMessages) {
  const std::string script = R"(
import torch
from torch.utils.data import WeightedRandomSampler
def message(f):
    try:
        list(f())
        print('no error')
    except Exception as e:
        print(str(e))
    print('@@END@@')
message(lambda: WeightedRandomSampler([1.0, 2.0], 0))
message(lambda: WeightedRandomSampler([1.0, -2.0], 3))
message(lambda: WeightedRandomSampler([1.0, float('nan')], 3))
message(lambda: WeightedRandomSampler([0.0, 0.0], 3))
message(lambda: WeightedRandomSampler([1.0, float('inf')], 3))
message(lambda: WeightedRandomSampler([1.0, 2.0], 3, replacement=False))
message(lambda: WeightedRandomSampler([1.0, -2.0], 1, replacement=False))
message(lambda: WeightedRandomSampler([float('inf'), 1.0], 1, replacement=False))
message(lambda: WeightedRandomSampler([0.0, 0.0], 1, replacement=False))
)";
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, script, 9u);
  const std::vector<std::function<void()>> ours = {
      [] { WeightedRandomSampler({1.0, 2.0}, 0); },
      [] { WeightedRandomSampler({1.0, -2.0}, 3); },
      [] { WeightedRandomSampler({1.0, NAN}, 3); },
      [] { WeightedRandomSampler({0.0, 0.0}, 3); },
      [] { WeightedRandomSampler({1.0, INFINITY}, 3); },
      [] { WeightedRandomSampler({1.0, 2.0}, 3, false); },
      [] { WeightedRandomSampler({1.0, -2.0}, 1, false); },
      [] { WeightedRandomSampler({INFINITY, 1.0}, 1, false); },
      [] { WeightedRandomSampler({0.0, 0.0}, 1, false); },
  };
  for (size_t i = 0; i < ours.size(); ++i) expect_error<Error>(ours[i], answers[i]);
  // Fewer positive weights than samples without replacement: as Python 1.13, the zero weights come last.
  WeightedRandomSampler zeros_last({1.0, 0.0, 2.0}, 3, false);
  const std::vector<size_t> drawn = epoch_of(zeros_last);
  ASSERT_EQ(drawn.size(), 3u);
  EXPECT_EQ(drawn[2], 1u);
}

TEST_P(DataWeightedSamplerTest, DrawsFollowTheWeights) {
  const std::vector<double> weights = {0.1, 0.9, 0.4, 0.0, 3.0, 0.6};
  const double total = 5.0;
  Generator generator(5);
  WeightedRandomSampler with(weights, 60000, true, &generator);
  EXPECT_EQ(*with.size(), 60000u);
  std::vector<int64_t> counts(weights.size(), 0);
  for (size_t i : epoch_of(with, 1000)) ++counts.at(i);
  for (size_t i = 0; i < weights.size(); ++i) {
    expect_frequency(counts[i], 60000, weights[i] / total, "index " + std::to_string(i));
  }
  EXPECT_EQ(counts[3], 0);

  // Without replacement: five distinct indices per epoch, never the zero weight, the first in proportion
  // to the weights and the second in proportion to those left (summed over the first).
  WeightedRandomSampler without(weights, 5, false, &generator);
  std::vector<int64_t> first(weights.size(), 0), second(weights.size(), 0);
  const int epochs = 4000;
  for (int e = 0; e < epochs; ++e) {
    without.reset();
    const std::vector<size_t> drawn = epoch_of(without, 2);
    ASSERT_EQ(drawn.size(), 5u);
    ASSERT_EQ(std::set<size_t>(drawn.begin(), drawn.end()).size(), 5u);
    ASSERT_EQ(std::count(drawn.begin(), drawn.end(), size_t{3}), 0);
    ++first[drawn[0]];
    ++second[drawn[1]];
  }
  for (size_t i = 0; i < weights.size(); ++i) {
    double p_second = 0;
    for (size_t j = 0; j < weights.size(); ++j) {
      if (j != i) p_second += weights[j] / total * weights[i] / (total - weights[j]);
    }
    expect_frequency(first[i], epochs, weights[i] / total, "first draw " + std::to_string(i));
    expect_frequency(second[i], epochs, p_second, "second draw " + std::to_string(i));
  }
}

TEST_P(DataWeightedSamplerTest, SeedsRepeatEpochsAndLoadersHandOutTheRows) {
  const std::vector<double> weights = {1, 2, 3, 4, 5, 6, 7, 8};
  Generator a(21), b(21);
  WeightedRandomSampler first(weights, 12, true, &a), again(weights, 12, true, &b);
  const std::vector<size_t> epoch0 = epoch_of(first);
  first.reset();  // as a loader does when the next epoch starts
  const std::vector<size_t> epoch1 = epoch_of(first);
  EXPECT_EQ(epoch0, epoch_of(again));
  again.reset();
  EXPECT_EQ(epoch1, epoch_of(again));
  EXPECT_NE(epoch0, epoch1);
  // An epoch with replacement takes one Philox block per draw, as ember::randint's draws do.
  Generator c(21);
  c.advance(24);
  EXPECT_EQ(randint(1000, {4}, TensorOptions().device(device), &a).to_vector<int64_t>(),
            randint(1000, {4}, TensorOptions().device(device), &c).to_vector<int64_t>());

  // In a loader, as Python's sampler=: batches of the sampled rows, num_samples of them per epoch.
  Generator d(21);
  auto sampler = std::make_shared<WeightedRandomSampler>(weights, 12, true, &d);
  const TensorOptions f32 = TensorOptions(kFloat32).device(device);
  data::DataLoader loader(data::datasets::TensorPairDataset(arange(0, 16, f32).view({8, 2}),
                                                            arange(0, 8, TensorOptions(kInt64).device(device))),
                          sampler, data::DataLoaderOptions(5));
  EXPECT_EQ(loader.size(), 3u);
  std::vector<size_t> got;
  for (data::Example<>& batch : loader) {
    const std::vector<int64_t> targets = batch.target.to_vector<int64_t>();
    const std::vector<float> rows = batch.data.to_vector<float>();
    for (size_t k = 0; k < targets.size(); ++k) EXPECT_EQ(rows[2 * k], 2.0f * static_cast<float>(targets[k]));
    got.insert(got.end(), targets.begin(), targets.end());
  }
  EXPECT_EQ(got, epoch0);
}

INSTANTIATE_TEST_SUITE_P(Backends, DataWeightedSamplerTest, testing::Values("vulkan"), backend_test_name);

}  // namespace
}  // namespace ember::test
