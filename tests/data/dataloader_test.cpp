// The loaders: order, partial last batch and drop_last against LibTorch's data loader; shuffling
// repeated by a seed; a sampler with replacement; a batch sampler of one's own, and one whose collate pads
// the sequences it buckets; worker threads giving the batches of no workers, in order; prefetch bounds;
// collate; a dataset's exception reaching the caller; IterableDataset; epochs restarted midway; a worker
// thread that cannot start.
#include <sys/resource.h>
#include <torch/torch.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <numeric>
#include <set>
#include <string>
#include <thread>

#include "data/data.h"
#include "nn/utils/rnn.h"
#include "tests/oracle.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

using data::DataLoader;
using data::DataLoaderOptions;
using data::Example;
using data::datasets::TensorPairDataset;

class DataLoaderTest : public BackendTest {
 protected:
  // Row i of data is (3i, 3i + 1, 3i + 2); target i is i, so a batch's targets name its indices.
  TensorPairDataset numbered(int64_t n) {
    return TensorPairDataset(arange(0, 3 * n, TensorOptions(kFloat32).device(device)).view({n, 3}),
                             arange(0, n, TensorOptions(kInt64).device(device)));
  }
};

// Each batch's targets, checking that its data rows are the rows those targets number.
template <typename Loader>
std::vector<std::vector<int64_t>> epoch(Loader& loader) {
  std::vector<std::vector<int64_t>> batches;
  for (Example<>& batch : loader) {
    const std::vector<int64_t> targets = batch.target.template to_vector<int64_t>();
    const std::vector<float> data = batch.data.template to_vector<float>();
    EXPECT_EQ(batch.data.sizes(), IntArrayRef({static_cast<int64_t>(targets.size()), 3}));
    for (size_t i = 0; i < targets.size(); ++i) {
      for (size_t j = 0; j < 3; ++j) EXPECT_EQ(data[3 * i + j], 3 * targets[i] + j);
    }
    batches.push_back(targets);
  }
  return batches;
}

// LibTorch's loader over indices 0..n-1 in order: the expected batches.
std::vector<std::vector<int64_t>> libtorch_sequential(int64_t n, size_t batch_size, bool drop_last) {
  auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      torch::data::datasets::TensorDataset(torch::arange(n)).map(torch::data::transforms::Stack<torch::data::TensorExample>()),
      torch::data::DataLoaderOptions(batch_size).drop_last(drop_last));
  std::vector<std::vector<int64_t>> batches;
  for (auto& batch : *loader) {
    const at::Tensor t = batch.data.contiguous();
    batches.emplace_back(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + t.numel());
  }
  return batches;
}

// Python's batch_sampler=[[0, 1, 2], [5], [3, 4]] and the like: the listed batches, of any size, in order;
// without `sized` it has no length, as an iterator in Python.
class ListedBatches : public data::samplers::BatchSamplerBase {
 public:
  ListedBatches(std::vector<std::vector<size_t>> batches, bool sized) : batches_(std::move(batches)), sized_(sized) {}
  void reset() override {
    next_ = 0;
    ++resets;
  }
  std::optional<std::vector<size_t>> next() override {
    if (next_ == batches_.size()) return std::nullopt;
    return batches_[next_++];
  }
  size_t size() const override { return sized_ ? batches_.size() : BatchSamplerBase::size(); }
  int resets = 0;

 private:
  std::vector<std::vector<size_t>> batches_;
  bool sized_;
  size_t next_ = 0;
};

TEST_P(DataLoaderTest, SequentialOrderPartialLastBatchAndDropLastAsLibTorch) {
  for (int64_t n : {1, 9, 10, 12}) {
    for (size_t batch_size : {1, 4, 16}) {
      for (bool drop_last : {false, true}) {
        SCOPED_TRACE(std::to_string(n) + " " + std::to_string(batch_size) + " " + std::to_string(drop_last));
        DataLoader loader(numbered(n), DataLoaderOptions(batch_size).drop_last(drop_last));
        const auto expected = libtorch_sequential(n, batch_size, drop_last);
        EXPECT_EQ(epoch(loader), expected);
        EXPECT_EQ(loader.size(), expected.size());
        EXPECT_EQ(epoch(loader), expected);  // a second epoch, the same
      }
    }
  }
}

TEST_P(DataLoaderTest, ShuffleFollowsTheGeneratorAndASeedRepeatsIt) {
  const int64_t n = 50;
  Generator generator(42), again(42), reference(42);
  DataLoader loader(numbered(n), DataLoaderOptions(8).shuffle(true).generator(&generator));
  DataLoader repeat(numbered(n), DataLoaderOptions(8).shuffle(true).generator(&again));
  for (int e = 0; e < 3; ++e) {
    SCOPED_TRACE(e);
    const auto batches = epoch(loader);
    EXPECT_EQ(epoch(repeat), batches);
    // Epoch e is the generator's e-th permutation, as Python's RandomSampler draws one per epoch.
    const std::vector<int64_t> perm = randperm(n, TensorOptions().device(device), &reference).to_vector<int64_t>();
    std::vector<int64_t> order;
    for (const auto& b : batches) order.insert(order.end(), b.begin(), b.end());
    EXPECT_EQ(order, perm);
    EXPECT_EQ(batches.size(), 7u);
    EXPECT_EQ(batches.back().size(), 2u);
  }
}

// DataLoader(dataset, batch_size=8, sampler=RandomSampler(dataset, replacement=True, num_samples=20)):
// three batches of randint's draws, the last of 4, with or without worker threads. The sampler draws when
// the epoch starts, as Python's.
TEST_P(DataLoaderTest, ASamplerWithReplacementDrawsNumSamplesRows) {
  for (size_t workers : {0, 2}) {
    SCOPED_TRACE(workers);
    Generator generator(11), reference(11);
    auto sampler = std::make_shared<data::samplers::RandomSampler>(
        data::samplers::RandomSampler::drawing_at_first_reset(
            10, data::samplers::RandomSamplerOptions().replacement(true).num_samples(20), &generator));
    DataLoader loader(numbered(10), sampler, DataLoaderOptions(8).workers(workers));
    EXPECT_EQ(loader.size(), 3u);
    const auto batches = epoch(loader);
    std::vector<int64_t> order;
    for (const auto& b : batches) order.insert(order.end(), b.begin(), b.end());
    EXPECT_EQ(order, randint(10, {20}, TensorOptions().device(device), &reference).to_vector<int64_t>());
    EXPECT_EQ(batches.back().size(), 4u);
  }
}

// DataLoader(dataset, batch_sampler=...): the batch sampler's batches whole, reset each epoch, with or
// without workers; its length is the loader's.
TEST_P(DataLoaderTest, ABatchSamplerOfOnesOwnPicksEachBatchWhole) {
  const std::vector<std::vector<size_t>> listed = {{0, 1, 2}, {5}, {3, 4}};
  const std::vector<std::vector<int64_t>> expected = {{0, 1, 2}, {5}, {3, 4}};
  for (size_t workers : {0, 2}) {
    SCOPED_TRACE(workers);
    auto batches = std::make_shared<ListedBatches>(listed, true);
    DataLoader loader(numbered(6), batches, DataLoaderOptions().workers(workers));
    EXPECT_EQ(loader.size(), 3u);
    EXPECT_EQ(epoch(loader), expected);
    EXPECT_EQ(epoch(loader), expected);
    EXPECT_EQ(batches->resets, 2);
  }
  DataLoader unsized(numbered(6), std::make_shared<ListedBatches>(listed, false), DataLoaderOptions());
  expect_error<Error>([&] { unsized.size(); }, "DataLoader: the batch sampler has no length");
  EXPECT_EQ(epoch(unsized), expected);
  // Python's BatchSampler given as batch_sampler= makes the batches of sampler= with batch_size=.
  DataLoader through_batch_sampler(
      numbered(10),
      std::make_shared<data::samplers::BatchSampler>(std::make_shared<data::samplers::SequentialSampler>(10), 4, true),
      DataLoaderOptions());
  EXPECT_EQ(epoch(through_batch_sampler), libtorch_sequential(10, 4, true));
}

// An empty batch from a batch sampler reaches the collate as an empty list, as in Python; the default
// collate has nothing to stack and says so, with LibTorch's message (Python's default_collate fails
// with an IndexError there).
TEST_P(DataLoaderTest, AnEmptyBatchFromABatchSamplerReachesTheCollate) {
  const std::vector<std::vector<size_t>> listed = {{0, 1}, {}, {2}};
  for (size_t workers : {0, 2}) {
    SCOPED_TRACE(workers);
    DataLoader counting(numbered(3), std::make_shared<ListedBatches>(listed, true),
                        DataLoaderOptions().workers(workers),
                        [](std::vector<Example<>> examples) { return examples.size(); });
    std::vector<size_t> sizes;
    for (size_t size : counting) sizes.push_back(size);
    EXPECT_EQ(sizes, (std::vector<size_t>{2, 0, 1}));

    DataLoader stacking(numbered(3), std::make_shared<ListedBatches>(listed, true),
                        DataLoaderOptions().workers(workers));
    auto batch = stacking.begin();
    EXPECT_EQ((*batch).target.to_vector<int64_t>(), (std::vector<int64_t>{0, 1}));
    const std::string message = torch_error([] { torch::stack(std::vector<at::Tensor>{}); });
    expect_error<Error>([&] { ++batch; },
                        workers ? "Caught exception in DataLoader worker thread. Original message: " + message : message);
    ++batch;  // the epoch goes on after the failed batch
    EXPECT_EQ((*batch).target.to_vector<int64_t>(), (std::vector<int64_t>{2}));
  }
}

// Sequences of different lengths, batched by length through a batch sampler of one's own and padded to
// one length by the collate (Python's batch_sampler= with collate_fn=pad_sequence), as LibTorch pads them.
TEST_P(DataLoaderTest, ACollateThatPadsBucketedSequencesOfDifferentLengths) {
  const std::vector<int64_t> lengths = {3, 1, 4, 1, 5, 2};
  // Sequence i is 10i, 10i + 1, ... of lengths[i] steps; its target is its length.
  struct Sentences : data::datasets::Dataset<Sentences> {
    Sentences(std::shared_ptr<Device> device, std::vector<int64_t> lengths)
        : device(std::move(device)), lengths(std::move(lengths)) {}
    Example<> get(size_t index) override {
      const auto start = static_cast<double>(10 * index);
      return {arange(start, start + static_cast<double>(lengths[index]), TensorOptions(kFloat32).device(device)),
              full({}, lengths[index], TensorOptions(kInt64).device(device))};
    }
    std::optional<size_t> size() const override { return lengths.size(); }
    std::shared_ptr<Device> device;
    std::vector<int64_t> lengths;
  };
  const std::vector<std::vector<size_t>> buckets = {{1, 3}, {0, 5}, {2, 4}};
  for (size_t workers : {0, 2}) {
    SCOPED_TRACE(workers);
    DataLoader loader(Sentences(device, lengths), std::make_shared<ListedBatches>(buckets, true),
                      DataLoaderOptions().workers(workers), [](std::vector<Example<>> examples) {
                        std::vector<Tensor> sequences, sizes;
                        for (Example<>& e : examples) {
                          sequences.push_back(e.data);
                          sizes.push_back(e.target);
                        }
                        return Example<>(nn::utils::rnn::pad_sequence(sequences, true, -1), stack(sizes));
                      });
    size_t batch_number = 0;
    for (Example<>& batch : loader) {
      ASSERT_LT(batch_number, buckets.size());
      std::vector<at::Tensor> sequences;
      std::vector<int64_t> expected_sizes;
      for (size_t i : buckets[batch_number]) {
        const auto start = static_cast<double>(10 * i);
        sequences.push_back(torch::arange(start, start + static_cast<double>(lengths[i]), torch::kFloat32));
        expected_sizes.push_back(lengths[i]);
      }
      EXPECT_TENSOR_EQ(batch.data, torch::nn::utils::rnn::pad_sequence(sequences, true, -1));
      EXPECT_EQ(batch.target.to_vector<int64_t>(), expected_sizes);
      ++batch_number;
    }
    EXPECT_EQ(batch_number, buckets.size());
  }
}

// As Python's loader, shuffling draws the order when an epoch starts, not when the loader is built: a seed
// set and draws made in between (a model's initial weights) come first. Python repeats the order when
// seeded after construction (torch.manual_seed or generator.manual_seed); so does ember.
TEST_P(DataLoaderTest, TheOrderIsDrawnWhenTheEpochStarts) {
  const int64_t n = 50;
  Generator generator(42), reference(5);
  DataLoader loader(numbered(n), DataLoaderOptions(8).shuffle(true).generator(&generator));
  EXPECT_EQ(generator.offset(), 0u);
  EXPECT_EQ(loader.size(), 7u);
  generator.manual_seed(5);
  const TensorOptions options = TensorOptions().device(device);
  const Tensor weights = randn({4, 3}, options, &generator);
  EXPECT_TRUE(weights.equal(randn({4, 3}, options, &reference)));
  const std::vector<int64_t> perm = randperm(n, options, &reference).to_vector<int64_t>();
  std::vector<int64_t> order;
  for (const auto& b : epoch(loader)) order.insert(order.end(), b.begin(), b.end());
  EXPECT_EQ(order, perm);
  // Seeded again, the next epoch repeats the first.
  generator.manual_seed(5);
  randn({4, 3}, options, &generator);
  order.clear();
  for (const auto& b : epoch(loader)) order.insert(order.end(), b.begin(), b.end());
  EXPECT_EQ(order, perm);
}

// join() in the middle of an epoch: the batches still due are never made, so asking for one is an error,
// not a wait that never ends; so is a new epoch.
TEST_P(DataLoaderTest, AJoinedLoaderRefusesToGoOn) {
  for (size_t workers : {0, 2}) {
    SCOPED_TRACE(workers);
    DataLoader loader(numbered(40), DataLoaderOptions(4).workers(workers));
    auto it = loader.begin();
    EXPECT_EQ((*it).target.to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3}));
    loader.join();
    expect_error<Error>([&] { ++it; }, "DataLoader: the loader was joined; it makes no more batches");
    expect_error<Error>([&] { loader.begin(); }, "DataLoader: the loader was joined; it makes no more batches");
  }
}

TEST_P(DataLoaderTest, WorkersKeepOrderAndGiveTheBatchesOfNoWorkers) {
  for (bool drop_last : {false, true}) {
    Generator g0(5);
    DataLoader serial(numbered(103), DataLoaderOptions(10).shuffle(true).generator(&g0).drop_last(drop_last));
    const auto first = epoch(serial), second = epoch(serial);
    EXPECT_NE(first, second);
    for (size_t workers : {1, 2, 3}) {
      SCOPED_TRACE(std::to_string(workers) + " workers, drop_last " + std::to_string(drop_last));
      Generator g(5);
      DataLoader threaded(numbered(103),
                          DataLoaderOptions(10).shuffle(true).generator(&g).drop_last(drop_last).workers(workers));
      EXPECT_EQ(epoch(threaded), first);
      EXPECT_EQ(epoch(threaded), second);
      // Without enforce_ordering the same batches come, in any order.
      Generator g2(5);
      DataLoader unordered(numbered(103), DataLoaderOptions(10).shuffle(true).generator(&g2).drop_last(drop_last)
                                              .workers(workers).enforce_ordering(false));
      auto any_order = epoch(unordered);
      auto sorted_first = first;
      std::sort(any_order.begin(), any_order.end());
      std::sort(sorted_first.begin(), sorted_first.end());
      EXPECT_EQ(any_order, sorted_first);
    }
  }
}

// A map-style dataset of per-example device tensors that records which threads and indices get() saw,
// and throws for one index.
struct Recorder {
  std::mutex mutex;
  std::vector<size_t> indices;
  std::set<std::thread::id> threads;
};

struct RecordingDataset : data::datasets::Dataset<RecordingDataset> {
  RecordingDataset(std::shared_ptr<Device> device, size_t size, std::shared_ptr<Recorder> recorder,
                   std::optional<size_t> throw_at = std::nullopt)
      : device(std::move(device)), count(size), recorder(std::move(recorder)), throw_at(throw_at) {}
  Example<> get(size_t index) override {
    {
      std::lock_guard lock(recorder->mutex);
      recorder->indices.push_back(index);
      recorder->threads.insert(std::this_thread::get_id());
    }
    if (throw_at && index == *throw_at) throw std::out_of_range("bad sample " + std::to_string(index));
    const auto i = static_cast<int64_t>(index);
    return {full({2}, static_cast<double>(i), TensorOptions(kFloat32).device(device)),
            full({}, i, TensorOptions(kInt64).device(device))};
  }
  std::optional<size_t> size() const override { return count; }

  std::shared_ptr<Device> device;
  size_t count;
  std::shared_ptr<Recorder> recorder;
  std::optional<size_t> throw_at;
};

TEST_P(DataLoaderTest, CollateReceivesTheExamplesInOrderOnTheWorkers) {
  struct Collated {
    std::vector<int64_t> ids;
    Tensor data;
    std::thread::id thread;
  };
  for (size_t workers : {0, 2}) {
    SCOPED_TRACE(workers);
    auto recorder = std::make_shared<Recorder>();
    DataLoader loader(RecordingDataset(device, 7, recorder), DataLoaderOptions(3).workers(workers),
                      [](std::vector<Example<>> examples) {
                        Collated out{{}, {}, std::this_thread::get_id()};
                        std::vector<Tensor> rows;
                        for (auto& e : examples) {
                          out.ids.push_back(e.target.item<int64_t>());
                          rows.push_back(e.data);
                        }
                        out.data = cat(rows);  // a collate of one's own: concatenated, not stacked
                        return out;
                      });
    std::vector<std::vector<int64_t>> ids;
    for (Collated& batch : loader) {
      ids.push_back(batch.ids);
      EXPECT_EQ(batch.data.sizes(), IntArrayRef({static_cast<int64_t>(2 * batch.ids.size())}));
      EXPECT_EQ(batch.thread == std::this_thread::get_id(), workers == 0);
    }
    EXPECT_EQ(ids, (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}, {6}}));
    EXPECT_EQ(recorder->threads.count(std::this_thread::get_id()), workers == 0 ? 1u : 0u);
  }
}

TEST_P(DataLoaderTest, PrefetchRequestsPrefetchFactorBatchesPerWorkerAhead) {
  for (auto [workers, factor, max_jobs] : std::vector<std::tuple<size_t, size_t, std::optional<size_t>>>{
           {2, 2, std::nullopt}, {1, 3, std::nullopt}, {2, 2, 1}}) {
    const size_t ahead = max_jobs.value_or(workers * factor);
    SCOPED_TRACE(std::to_string(workers) + " workers, ahead " + std::to_string(ahead));
    auto recorder = std::make_shared<Recorder>();
    DataLoader loader(RecordingDataset(device, 100, recorder),
                      DataLoaderOptions(1).workers(workers).prefetch_factor(factor).max_jobs(max_jobs));
    auto it = loader.begin();  // requests the first batches; nothing is consumed yet
    EXPECT_EQ(loader.in_flight(), ahead);
    auto made = [&] {
      std::lock_guard lock(recorder->mutex);
      return recorder->indices.size();
    };
    for (int i = 0; i < 1000 && made() < ahead; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(made(), ahead);  // the workers made what was requested, and no more
    EXPECT_EQ(it->target.item<int64_t>(), 0);
    EXPECT_EQ(loader.in_flight(), ahead);  // taking a batch requested the next one
    for (int i = 0; i < 1000 && made() < ahead + 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_EQ(made(), ahead + 1);
  }
}

TEST_P(DataLoaderTest, ADatasetExceptionReachesTheCaller) {
  for (size_t workers : {0, 2}) {
    SCOPED_TRACE(workers);
    auto recorder = std::make_shared<Recorder>();
    DataLoader loader(RecordingDataset(device, 12, recorder, 5), DataLoaderOptions(4).workers(workers));
    auto it = loader.begin();
    EXPECT_EQ(it->target[0].item<int64_t>(), 0);
    try {
      ++it;  // the batch of 4..7 fails at 5
      ADD_FAILURE() << "no exception";
    } catch (const data::WorkerException& e) {
      EXPECT_GT(workers, 0u);
      EXPECT_EQ(std::string(e.what()), "Caught exception in DataLoader worker thread. Original message: bad sample 5");
      EXPECT_THROW(std::rethrow_exception(e.original_exception), std::out_of_range);
    } catch (const std::out_of_range& e) {
      EXPECT_EQ(workers, 0u);  // without workers, the dataset's own exception, as LibTorch and Python
      EXPECT_EQ(std::string(e.what()), "bad sample 5");
    }
    // The loader goes on with the batch after the failed one, then ends the epoch; a new one starts.
    EXPECT_FALSE(it == loader.end());
    ++it;
    EXPECT_EQ(it->target[0].item<int64_t>(), 8);
    ++it;
    EXPECT_TRUE(it == loader.end());
    EXPECT_EQ(loader.begin()->target[0].item<int64_t>(), 0);
  }
}

TEST_P(DataLoaderTest, TimeoutThrowsLibTorchsMessage) {
  struct Slow : data::datasets::Dataset<Slow> {
    Example<> get(size_t) override {
      std::this_thread::sleep_for(std::chrono::milliseconds(400));
      return {};
    }
    std::optional<size_t> size() const override { return 4; }
  };
  DataLoader loader(Slow(), DataLoaderOptions(1).workers(1).timeout(std::chrono::milliseconds(20)),
                    [](std::vector<Example<>> e) { return e.size(); });
  expect_error<Error>([&] { *loader.begin(); },
                      "Timeout in DataLoader queue while waiting for next batch (timeout was 20 ms)");
}

TEST_P(DataLoaderTest, ANewEpochStartsOverMidway) {
  DataLoader loader(numbered(20), DataLoaderOptions(4).workers(2));
  for (auto& batch : loader) {
    EXPECT_EQ(batch.target[0].item<int64_t>(), 0);
    break;
  }
  EXPECT_EQ(epoch(loader).size(), 5u);
  EXPECT_EQ(epoch(loader)[0], (std::vector<int64_t>{0, 1, 2, 3}));
}

// A stream of n examples; reset() starts it again.
struct Counting : data::datasets::IterableDataset<Counting> {
  Counting(std::shared_ptr<Device> device, int64_t n, bool sized) : device(std::move(device)), n(n), sized(sized) {}
  std::optional<Example<>> next() override {
    if (at == n) return std::nullopt;
    const int64_t i = at++;
    return Example<>(arange(3 * i, 3 * i + 3, TensorOptions(kFloat32).device(device)),
                     full({}, i, TensorOptions(kInt64).device(device)));
  }
  void reset() override { at = 0; }
  std::optional<size_t> size() const override { return sized ? std::optional<size_t>(n) : std::nullopt; }
  std::shared_ptr<Device> device;
  int64_t n;
  bool sized;
  int64_t at = 0;
};

TEST_P(DataLoaderTest, IterableDatasetBatchesTheStreamWithAnyWorkers) {
  for (size_t workers : {0, 1, 3}) {
    for (bool drop_last : {false, true}) {
      SCOPED_TRACE(std::to_string(workers) + " workers, drop_last " + std::to_string(drop_last));
      DataLoader loader(Counting(device, 10, true), DataLoaderOptions(4).workers(workers).drop_last(drop_last));
      const auto expected = libtorch_sequential(10, 4, drop_last);
      EXPECT_EQ(epoch(loader), expected);
      EXPECT_EQ(epoch(loader), expected);  // reset() each epoch
      EXPECT_EQ(loader.size(), expected.size());
    }
  }
  DataLoader unsized(Counting(device, 3, false), DataLoaderOptions(2));
  expect_error<Error>([&] { unsized.size(); }, "DataLoader: the IterableDataset has no length");
  expect_error<Error>([&] { DataLoader(Counting(device, 3, false), DataLoaderOptions(2).shuffle(true)); },
                      "DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle=true");
  auto listed = std::make_shared<ListedBatches>(std::vector<std::vector<size_t>>{{0}}, true);
  expect_error<Error>(
      [&] { DataLoader(Counting(device, 3, false), listed, DataLoaderOptions()); },
      "DataLoader with IterableDataset: expected unspecified batch_sampler option, but got a batch sampler");
}

TEST_P(DataLoaderTest, MakeDataLoaderAsLibTorchWithTransforms) {
  namespace transforms = data::transforms;
  // Normalize then Stack, as the LibTorch MNIST example writes it, against LibTorch on the same rows.
  const at::Tensor values = random_torch({12, 2, 3, 3}, kFloat32, 3);
  const at::Tensor labels = torch::arange(12);
  auto ours = data::make_data_loader<data::samplers::SequentialSampler>(
      TensorPairDataset(from_torch(values, device), from_torch(labels, device))
          .map(transforms::Normalize<>({0.5, -1.0}, {2.0, 0.25}))
          .map(transforms::Stack<>()),
      DataLoaderOptions(5).workers(2));
  struct Pairs : torch::data::datasets::Dataset<Pairs> {
    at::Tensor x, y;
    torch::data::Example<> get(size_t i) override { return {x[i], y[i]}; }
    torch::optional<size_t> size() const override { return x.size(0); }
  };
  Pairs pairs;
  pairs.x = values;
  pairs.y = labels;
  auto theirs = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      std::move(pairs).map(torch::data::transforms::Normalize<>({0.5, -1.0}, {2.0, 0.25}))
          .map(torch::data::transforms::Stack<>()),
      torch::data::DataLoaderOptions(5));
  std::vector<Example<>> got;
  for (auto& batch : *ours) got.push_back(batch);
  size_t i = 0;
  for (auto& batch : *theirs) {
    ASSERT_LT(i, got.size());
    EXPECT_TENSOR_EQ(got[i].data, batch.data);
    EXPECT_TENSOR_EQ(got[i].target, batch.target);
    ++i;
  }
  EXPECT_EQ(i, got.size());
  // The default sampler is random, with a size from the dataset.
  auto shuffled = data::make_data_loader(TensorPairDataset(from_torch(values, device), from_torch(labels, device))
                                             .map(transforms::Stack<>()), 12);
  std::vector<int64_t> order = shuffled->begin()->target.to_vector<int64_t>();
  std::sort(order.begin(), order.end());
  std::vector<int64_t> all(12);
  std::iota(all.begin(), all.end(), 0);
  EXPECT_EQ(order, all);
}

TEST_P(DataLoaderTest, BadOptionsAreRefused) {
  expect_error<Error>([&] { DataLoader(numbered(3), DataLoaderOptions(0)); },
                      "batch_size should be a positive integer value, but got batch_size=0");
  // A negative count, converted to the size_t the options take, gets Python's message for it.
  const auto minus_one = static_cast<size_t>(-1);
  expect_error<Error>([&] { DataLoader(numbered(3), DataLoaderOptions(minus_one)); },
                      "batch_size should be a positive integer value, but got batch_size=-1");
  expect_error<Error>([&] { DataLoader(numbered(3), DataLoaderOptions(1).num_workers(minus_one)); },
                      "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.");
  expect_error<Error>([&] { DataLoader(numbered(3), DataLoaderOptions(1).workers(2).prefetch_factor(minus_one)); },
                      "DataLoader: with 2 workers, max_jobs and prefetch_factor must be positive");
  expect_error<Error>([&] {
    DataLoader(numbered(3), std::make_shared<data::samplers::SequentialSampler>(3), DataLoaderOptions(1).shuffle(true));
  }, "sampler option is mutually exclusive with shuffle");
  expect_error<Error>([&] { DataLoader(numbered(3), DataLoaderOptions(1).workers(2).max_jobs(0)); },
                      "DataLoader: with 2 workers, max_jobs and prefetch_factor must be positive");
  auto listed = std::make_shared<ListedBatches>(std::vector<std::vector<size_t>>{{0}}, true);
  for (const DataLoaderOptions& options :
       {DataLoaderOptions(2), DataLoaderOptions().shuffle(true), DataLoaderOptions().drop_last(true)}) {
    expect_error<Error>([&] { DataLoader(numbered(3), listed, options); },
                        "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last");
  }
  expect_error<Error>(
      [&] { DataLoader(numbered(3), std::shared_ptr<data::samplers::BatchSamplerBase>(), DataLoaderOptions()); },
      "DataLoader: the batch sampler is null");
}

// The process's address space is capped just above what it uses, so that the thread stacks of a few
// workers fit and the rest do not: the constructor must join the workers it started (else a joinable
// std::thread is destroyed and the process ends) and say why it failed.
TEST_P(DataLoaderTest, AWorkerThatCannotStartIsAnErrorThatNamesIt) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the sanitizer's own mappings need address space that this test takes away";
#else
  auto address_space_kib = [] {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("VmSize:", 0) == 0) return std::stoull(line.substr(7));
    }
    return 0ull;
  };
  TensorPairDataset dataset = numbered(8);
  rlimit old_limit{};
  ASSERT_EQ(getrlimit(RLIMIT_AS, &old_limit), 0);
  const unsigned long long in_use = address_space_kib() * 1024;
  ASSERT_GT(in_use, 0u);
  rlimit capped = old_limit;
  capped.rlim_cur = in_use + (64ull << 20);  // room for the loader's own allocations and a few stacks
  if (old_limit.rlim_cur != RLIM_INFINITY && old_limit.rlim_cur < capped.rlim_cur) {
    GTEST_SKIP() << "the address space is already capped at " << old_limit.rlim_cur << " bytes";
  }
  ASSERT_EQ(setrlimit(RLIMIT_AS, &capped), 0);
  std::string message;
  try {
    DataLoader loader(dataset, DataLoaderOptions(2).workers(256));
  } catch (const Error& e) {
    message = e.what();
  } catch (const std::exception& e) {
    message = std::string("another exception: ") + e.what();
  }
  ASSERT_EQ(setrlimit(RLIMIT_AS, &old_limit), 0);
  EXPECT_NE(message.find("DataLoader: could not start worker thread "), std::string::npos) << message;
  EXPECT_NE(message.find(" of 256 ("), std::string::npos) << message;
  EXPECT_NE(message.find("; ask for fewer workers"), std::string::npos) << message;
  // The memory is back: the same loader starts and gives every batch.
  DataLoader loader(dataset, DataLoaderOptions(2).workers(4));
  EXPECT_EQ(epoch(loader).size(), 4u);
#endif
}

INSTANTIATE_TEST_SUITE_P(Backends, DataLoaderTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
