#pragma once
// Data loaders.
// - DataLoader: Python's torch.utils.data.DataLoader. A map-style dataset's batches follow a
//   BatchSampler (sequential, or shuffled every epoch from a Generator, batch_size, drop_last) or a batch
//   sampler of one's own; an IterableDataset's follow its stream. Each batch is collated (Stack by
//   default, or the given collate) on worker threads, prefetch_factor batches per worker ahead.
// - StatelessDataLoader and make_data_loader: LibTorch's, for datasets that collate through map(Stack).
// Both are ranges of batches: `for (auto& batch : loader)` runs one epoch; begin() starts the next.
//
// Worker threads prepare the next batches (and upload them, data/datasets/mnist.h) while the device
// computes the current step; the loop never waits for its input when the loader keeps up.
// Map-style datasets are copied into each worker (as LibTorch and Python's worker processes do); an
// IterableDataset is one stream, read by one worker at a time in batch order.
// Deviations: starting a new epoch while one is unfinished drops the rest of it (Python does so; LibTorch
// throws); with workers, an IterableDataset yields each example once (Python's worker processes each
// replay the stream unless the dataset splits it).
#include <condition_variable>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "data/dataloader_options.h"
#include "data/datasets/base.h"
#include "data/pipeline.h"
#include "data/iterator.h"
#include "data/samplers/batch.h"
#include "data/samplers/random.h"
#include "data/samplers/sequential.h"
#include "data/transforms/stack.h"

namespace ember::data {

template <typename Dataset, typename Sampler = samplers::RandomSampler>
class StatelessDataLoader {
  static_assert(!Dataset::is_stateful, "ember has no StatefulDataLoader: give a stateless dataset");

 public:
  using BatchType = typename Dataset::BatchType;
  using BatchRequestType = typename Sampler::BatchRequestType;

  StatelessDataLoader(Dataset dataset, Sampler sampler, DataLoaderOptions options)
      : options_(options),
        sampler_(std::move(sampler)),
        datasets_(std::max<size_t>(options_.workers, 1), dataset),
        pipeline_(options_.workers, options_.max_jobs, options_.timeout, options_.enforce_ordering,
                  [this](size_t worker, size_t, BatchRequestType request) -> std::optional<BatchType> {
                    return datasets_[worker].get_batch(std::move(request));
                  }) {}
  StatelessDataLoader(const StatelessDataLoader&) = delete;
  StatelessDataLoader& operator=(const StatelessDataLoader&) = delete;

  // Starts an epoch (the sampler starts over) and returns its first batch's iterator.
  Iterator<BatchType> begin() {
    pipeline_.drain();
    sampler_.reset();
    pipeline_.start([this]() -> std::optional<BatchRequestType> {
      auto indices = sampler_.next(options_.batch_size);
      if (!indices || indices->empty() || (indices->size() < options_.batch_size && options_.drop_last)) {
        return std::nullopt;
      }
      return indices;
    });
    return Iterator<BatchType>([this] { return pipeline_.next(); });
  }
  Iterator<BatchType> end() { return Iterator<BatchType>(); }

  // Stops the workers; the loader makes no more batches.
  void join() { pipeline_.join(); }
  const FullDataLoaderOptions& options() const noexcept { return options_; }

 private:
  const FullDataLoaderOptions options_;
  Sampler sampler_;
  std::vector<Dataset> datasets_;  // one per worker, or one for the calling thread
  detail::BatchPipeline<BatchType, BatchRequestType> pipeline_;
};

// make_data_loader as LibTorch's: with a sampler, or with a Sampler type built from the dataset's size.
template <typename Dataset, typename Sampler>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset, Sampler sampler,
                                                                          DataLoaderOptions options) {
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(std::move(dataset), std::move(sampler),
                                                                 std::move(options));
}

template <typename Sampler = samplers::RandomSampler, typename Dataset,
          typename = std::enable_if_t<std::is_constructible_v<Sampler, size_t>>>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(
    Dataset dataset, DataLoaderOptions options = DataLoaderOptions()) {
  const std::optional<size_t> size = dataset.size();
  if (!size) throw Error("Expected the dataset to be sized in order to construct the Sampler");
  Sampler sampler(*size);
  return make_data_loader(std::move(dataset), std::move(sampler), std::move(options));
}

template <typename Dataset, typename Collate = transforms::DefaultCollate>
class DataLoader {
  static constexpr bool kIterable = datasets::is_iterable_dataset_v<Dataset>;
  // What a worker asks for: a map-style batch's indices, or how many examples of the stream.
  using Request = std::conditional_t<kIterable, size_t, std::vector<size_t>>;

 public:
  using DatasetType = Dataset;
  using BatchType = std::invoke_result_t<Collate&, typename Dataset::BatchType>;

  explicit DataLoader(Dataset dataset, DataLoaderOptions options = DataLoaderOptions(),
                      Collate collate = Collate())
      : DataLoader(std::move(dataset), std::shared_ptr<samplers::Sampler<>>(), std::move(options),
                   std::move(collate)) {}

  // With a sampler of one's own (Python's sampler=): shuffle must be off.
  DataLoader(Dataset dataset, std::shared_ptr<samplers::Sampler<>> sampler, DataLoaderOptions options,
             Collate collate = Collate())
      : DataLoader(dataset, options, std::move(collate), [&](const FullDataLoaderOptions& full) {
          return make_batch_sampler(dataset, std::move(sampler), full);
        }) {}

  // With a batch sampler of one's own (Python's batch_sampler=), which picks each batch whole: batch_size,
  // shuffle and drop_last must keep their defaults, as Python requires.
  DataLoader(Dataset dataset, std::shared_ptr<samplers::BatchSamplerBase> batch_sampler, DataLoaderOptions options,
             Collate collate = Collate())
      : DataLoader(dataset, options, std::move(collate), [&](const FullDataLoaderOptions& full) {
          return checked_batch_sampler(std::move(batch_sampler), full);
        }) {}
  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;

 private:
  // Each worker gets a copy of `dataset`. `pick_batch_sampler` checks the options, completed once here,
  // and makes the batch sampler from them.
  template <typename PickBatchSampler>
  DataLoader(const Dataset& dataset, const DataLoaderOptions& options, Collate collate,
             PickBatchSampler pick_batch_sampler)
      : options_(options),
        batch_sampler_(pick_batch_sampler(options_)),
        datasets_(kIterable ? 1 : std::max<size_t>(options_.workers, 1), dataset),
        collates_(std::max<size_t>(options_.workers, 1), collate),
        pipeline_(options_.workers, options_.max_jobs, options_.timeout, options_.enforce_ordering,
                  [this](size_t worker, size_t sequence, Request request) {
                    return produce(worker, sequence, std::move(request));
                  }) {}

 public:
  // Starts an epoch: a new order when shuffling, the stream again for an IterableDataset.
  Iterator<BatchType> begin() {
    pipeline_.drain();
    if constexpr (kIterable) {
      datasets_[0].reset();
      std::lock_guard lock(stream_.mutex);
      stream_.turn = 0;
      stream_.ended = false;
    } else {
      // A new order at every epoch's start; the loader's own RandomSampler drew none before the first,
      // so epoch e takes the generator's e-th draw from where it stands now, as Python's.
      batch_sampler_->reset();
    }
    pipeline_.start([this]() -> std::optional<Request> {
      if constexpr (kIterable) {
        return options_.batch_size;
      } else {
        return batch_sampler_->next();
      }
    });
    return Iterator<BatchType>([this] { return pipeline_.next(); });
  }
  Iterator<BatchType> end() { return Iterator<BatchType>(); }

  // Batches per epoch (Python's len(loader)); throws for a stream of unknown length.
  size_t size() const {
    if constexpr (kIterable) {
      const std::optional<size_t> examples = datasets_[0].size();
      if (!examples) throw Error("DataLoader: the IterableDataset has no length");
      const size_t b = options_.batch_size;
      return options_.drop_last ? *examples / b : (*examples + b - 1) / b;
    } else {
      return batch_sampler_->size();
    }
  }

  const FullDataLoaderOptions& options() const noexcept { return options_; }
  const Dataset& dataset() const noexcept { return datasets_[0]; }
  // Batches requested and not yet handed out (what the workers prepare ahead).
  size_t in_flight() const { return pipeline_.in_flight(); }
  // Stops the workers; the loader makes no more batches.
  void join() { pipeline_.join(); }

 private:
  static std::shared_ptr<samplers::BatchSamplerBase> make_batch_sampler(
      const Dataset& dataset, std::shared_ptr<samplers::Sampler<>> sampler,
      const FullDataLoaderOptions& options) {
    if constexpr (kIterable) {
      if (options.shuffle) {
        throw Error("DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle=true");
      }
      if (sampler) {
        throw Error("DataLoader with IterableDataset: expected unspecified sampler option, but got a sampler");
      }
      return nullptr;
    } else {
      if (!sampler) {
        const std::optional<size_t> size = dataset.size();
        if (!size) throw Error("DataLoader: a map-style dataset must have a size");
        if (options.shuffle) {
          sampler = std::make_shared<samplers::RandomSampler>(
              samplers::RandomSampler::drawing_at_first_reset(static_cast<int64_t>(*size), options.generator));
        } else {
          sampler = std::make_shared<samplers::SequentialSampler>(*size);
        }
      } else if (options.shuffle) {
        throw Error("sampler option is mutually exclusive with shuffle");
      }
      return std::make_shared<samplers::BatchSampler>(std::move(sampler), options.batch_size,
                                                      options.drop_last);
    }
  }

  static std::shared_ptr<samplers::BatchSamplerBase> checked_batch_sampler(
      std::shared_ptr<samplers::BatchSamplerBase> batch_sampler, const FullDataLoaderOptions& options) {
    if constexpr (kIterable) {
      throw Error(
          "DataLoader with IterableDataset: expected unspecified batch_sampler option, but got a batch sampler");
    }
    if (!batch_sampler) throw Error("DataLoader: the batch sampler is null");
    if (options.batch_size != 1 || options.shuffle || options.drop_last) {
      throw Error("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last");
    }
    return batch_sampler;
  }

  std::optional<BatchType> produce([[maybe_unused]] size_t worker, [[maybe_unused]] size_t sequence,
                                   Request request) {
    if constexpr (kIterable) {
      typename Dataset::BatchType examples;
      {
        // One worker reads the stream at a time, in batch order, so batches hold the same examples
        // whatever the number of workers.
        std::unique_lock lock(stream_.mutex);
        stream_.turns.wait(lock, [&] { return stream_.turn == sequence; });
        struct NextTurn {
          StreamTurns& stream;
          ~NextTurn() {
            ++stream.turn;
            stream.turns.notify_all();
          }
        } next_turn{stream_};
        while (!stream_.ended && examples.size() < request) {
          auto example = datasets_[0].next();
          if (!example) {
            stream_.ended = true;
            break;
          }
          examples.push_back(std::move(*example));
        }
      }
      if (examples.empty() || (options_.drop_last && examples.size() < request)) return std::nullopt;
      return collates_[worker](std::move(examples));
    } else {
      return collates_[worker](datasets_[worker].get_batch(request));
    }
  }

  struct StreamTurns {
    std::mutex mutex;
    std::condition_variable turns;
    size_t turn = 0;  // the batch whose examples are read next
    bool ended = false;
  };

  const FullDataLoaderOptions options_;
  std::shared_ptr<samplers::BatchSamplerBase> batch_sampler_;  // map-style datasets only
  std::vector<Dataset> datasets_;  // one per worker (one for the calling thread), or the one stream
  std::vector<Collate> collates_;
  StreamTurns stream_;
  detail::BatchPipeline<BatchType, Request> pipeline_;
};

}  // namespace ember::data
