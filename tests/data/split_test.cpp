// Subset, random_split, ConcatDataset and SubsetRandomSampler: random_split's lengths from fractions and
// its messages as Python's, its order ember::randperm's from the same generator state; a loader over a
// Subset or a ConcatDataset gives the rows LibTorch indexes; SubsetRandomSampler's epochs are the
// generator's successive permutations of its indices.
#include <torch/torch.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "data/data.h"
#include "tests/python_oracle.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

using data::DataLoader;
using data::DataLoaderOptions;
using data::Example;
using data::datasets::ConcatDataset;
using data::datasets::Subset;
using data::datasets::TensorPairDataset;
using data::samplers::SubsetRandomSampler;

class DataSplitTest : public BackendTest {
 protected:
  // Row i of data is (3(first + i), ...); target i is first + i, so a batch's targets name its rows.
  TensorPairDataset numbered(int64_t n, int64_t first = 0) {
    return TensorPairDataset(
        arange(3 * first, 3 * (first + n), TensorOptions(kFloat32).device(device)).view({n, 3}),
        arange(first, first + n, TensorOptions(kInt64).device(device)));
  }
};

// Each batch's targets, checking that its data rows are the rows those targets number.
template <typename Loader>
std::vector<int64_t> targets_in_order(Loader& loader) {
  std::vector<int64_t> all;
  for (Example<>& batch : loader) {
    const std::vector<int64_t> targets = batch.target.template to_vector<int64_t>();
    const std::vector<float> data = batch.data.template to_vector<float>();
    EXPECT_EQ(data.size(), 3 * targets.size());
    for (size_t i = 0; i < targets.size() && 3 * i + 2 < data.size(); ++i) {
      EXPECT_EQ(data[3 * i], static_cast<float>(3 * targets[i]));
    }
    all.insert(all.end(), targets.begin(), targets.end());
  }
  return all;
}

TEST_P(DataSplitTest, RandomSplitLengthsFromFractionsAndMessagesAsPythons) {
  struct Case {
    int64_t n;
    std::vector<double> fractions;
  };
  const std::vector<Case> cases = {{10, {0.5, 0.3, 0.2}}, {7, {0.5, 0.3, 0.2}}, {11, {1.0 / 3, 1.0 / 3, 1.0 / 3}},
                                   {5, {0.1, 0.9}},        {3, {0.25, 0.25, 0.25, 0.25}}, {4, {1.0}}};
  std::string script = R"(
import warnings
warnings.simplefilter("ignore")
from torch.utils.data import random_split
def lengths(n, fractions):
    print(' '.join(str(len(s)) for s in random_split(range(n), fractions)))
    print('@@END@@')
def message(n, lengths):
    try:
        random_split(range(n), lengths)
        print('no error')
    except ValueError as e:
        print(e)
    print('@@END@@')
)";
  for (const Case& c : cases) {
    std::string list = "[";
    for (double f : c.fractions) list += nlohmann::json(f).dump() + ",";
    script += "lengths(" + std::to_string(c.n) + ", " + list + "])\n";
  }
  script += "message(10, [3, 4])\nmessage(10, [1.2, -0.2])\n";
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, script, cases.size() + 2);
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    SCOPED_TRACE("n " + std::to_string(c.n) + " case " + std::to_string(i));
    std::ostringstream sizes;
    for (const auto& subset : data::datasets::random_split(numbered(c.n), c.fractions)) {
      sizes << (sizes.tellp() > 0 ? " " : "") << *subset.size();
    }
    EXPECT_EQ(sizes.str(), answers[i]);
  }
  expect_error<Error>([&] { data::datasets::random_split(numbered(10), {3, 4}); }, answers[cases.size()]);
  expect_error<Error>([&] { data::datasets::random_split(numbered(10), {1.2, -0.2}); }, answers[cases.size() + 1]);
  // Where Python goes on (and fails later, or makes odd subsets), ember says what is wrong.
  expect_error<Error>([&] { data::datasets::random_split(numbered(10), {0.5, 0.4}); },
                      "random_split: the fractions add up to 0.900000, not 1");
  expect_error<Error>([&] { data::datasets::random_split(numbered(10), {12, -2}); },
                      "random_split: the length at index 1 is negative (-2)");
}

TEST_P(DataSplitTest, RandomSplitCutsRandpermOfTheSameGeneratorAndLoadsThroughTheDataset) {
  const int64_t n = 23;
  Generator ours(99), reference(99);
  const auto parts = data::datasets::random_split(numbered(n), {10, 0, 13}, &ours);
  const std::vector<int64_t> order = randperm(n, TensorOptions().device(device), &reference).to_vector<int64_t>();
  ASSERT_EQ(parts.size(), 3u);
  std::vector<size_t> cut;
  for (const auto& part : parts) cut.insert(cut.end(), part.indices().begin(), part.indices().end());
  EXPECT_TRUE(std::equal(cut.begin(), cut.end(), order.begin(), order.end()));
  EXPECT_EQ(parts[1].size(), 0u);
  // The generator moved on as randperm moves it.
  EXPECT_EQ(ours.offset(), reference.offset());

  // A loader over a subset, with workers: the rows at the subset's indices, gathered by the dataset.
  for (size_t workers : {0, 2}) {
    SCOPED_TRACE(workers);
    DataLoader loader(parts[2], DataLoaderOptions(4).workers(workers));
    EXPECT_EQ(loader.size(), 4u);
    const std::vector<int64_t> got = targets_in_order(loader);
    EXPECT_TRUE(std::equal(got.begin(), got.end(), parts[2].indices().begin(), parts[2].indices().end()));
  }
  Subset<TensorPairDataset> picked(numbered(n), {4, 4, 22});
  EXPECT_EQ(picked.get(2).target.item<int64_t>(), 22);
  expect_error<Error>([&] { picked.get(3); }, "Subset: index 3 is out of range for a subset of 3 examples");
  expect_error<Error>([&] { Subset<TensorPairDataset>(numbered(n), {0, 23}); },
                      "Subset: indices[1] = 23 is out of range for a dataset of 23 examples");
}

TEST_P(DataSplitTest, ConcatDatasetLoadsTheRowsLibTorchConcatenates) {
  ConcatDataset<TensorPairDataset> both({numbered(3), numbered(4, 100), numbered(2, 200)});
  EXPECT_EQ(both.cumulative_sizes(), (std::vector<size_t>{3, 7, 9}));
  EXPECT_EQ(*both.size(), 9u);
  const at::Tensor targets = torch::cat({torch::arange(0, 3), torch::arange(100, 104), torch::arange(200, 202)});
  for (size_t workers : {0, 2}) {
    SCOPED_TRACE(workers);
    Generator generator(5), reference(5);
    DataLoader loader(both, DataLoaderOptions(4).shuffle(true).generator(&generator).workers(workers));
    const std::vector<int64_t> got = targets_in_order(loader);
    const std::vector<int64_t> order = randperm(9, TensorOptions().device(device), &reference).to_vector<int64_t>();
    ASSERT_EQ(got.size(), order.size());
    for (size_t k = 0; k < order.size(); ++k) EXPECT_EQ(got[k], targets[order[k]].item<int64_t>()) << k;
  }
  EXPECT_EQ(both.get(7).target.item<int64_t>(), 200);
  expect_error<Error>([&] { both.get(9); }, "ConcatDataset: index 9 is out of range for 9 examples");
  expect_error<Error>([] { ConcatDataset<TensorPairDataset>(std::vector<TensorPairDataset>{}); },
                      "datasets should not be an empty iterable");
}

TEST_P(DataSplitTest, SubsetRandomSamplerPermutesItsIndicesEachEpoch) {
  const std::vector<size_t> indices = {40, 41, 7, 8, 9, 1000, 3};
  Generator ours(11), reference(11);
  auto sampler = std::make_shared<SubsetRandomSampler>(indices, &ours);
  EXPECT_EQ(*sampler->size(), indices.size());
  for (int epoch = 0; epoch < 2; ++epoch) {
    SCOPED_TRACE(epoch);
    sampler->reset();
    std::vector<size_t> got;
    while (auto batch = sampler->next(3)) got.insert(got.end(), batch->begin(), batch->end());
    const std::vector<int64_t> order = randperm(7, TensorOptions().device(device), &reference).to_vector<int64_t>();
    ASSERT_EQ(got.size(), order.size());
    for (size_t k = 0; k < order.size(); ++k) EXPECT_EQ(got[k], indices[order[k]]) << k;
  }
  expect_error<Error>([&] { sampler->reset(3); },
                      "SubsetRandomSampler: its size is its 7 indices'; it cannot be reset to 3");
  // In a loader, as Python's sampler=: the dataset's rows at those indices.
  DataLoader loader(numbered(1001), sampler, DataLoaderOptions(2));
  const std::vector<int64_t> got = targets_in_order(loader);
  std::vector<int64_t> sorted_got(got.begin(), got.end());
  std::sort(sorted_got.begin(), sorted_got.end());
  std::vector<int64_t> sorted_indices(indices.begin(), indices.end());
  std::sort(sorted_indices.begin(), sorted_indices.end());
  EXPECT_EQ(sorted_got, sorted_indices);
}

INSTANTIATE_TEST_SUITE_P(Backends, DataSplitTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
