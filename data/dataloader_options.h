#pragma once
// DataLoaderOptions: LibTorch's fields (batch_size, workers, max_jobs, timeout, enforce_ordering,
// drop_last) and Python's DataLoader arguments that LibTorch lacks (shuffle, prefetch_factor, generator;
// num_workers is another name for workers). max_jobs, the batches in flight, defaults to
// prefetch_factor * workers: LibTorch's 2 * workers, Python's prefetch.
#include <chrono>
#include <cstddef>
#include <optional>

#include "nn/arg.h"

namespace ember {
class Generator;
}

namespace ember::data {

struct DataLoaderOptions {
  using GeneratorPointer = Generator*;  // EMBER_ARG spells `const Type&`, which a bare pointer type breaks

  DataLoaderOptions() = default;
  /* implicit */ DataLoaderOptions(size_t batch_size) : batch_size_(batch_size) {}

  DataLoaderOptions& num_workers(size_t count) { return workers(count); }

  EMBER_ARG(size_t, batch_size) = 1;
  // Threads that make batches; 0 makes each batch on the calling thread when it is asked for.
  EMBER_ARG(size_t, workers) = 0;
  // Batches requested ahead of the one being consumed (with workers).
  EMBER_ARG(std::optional<size_t>, max_jobs);
  // How long the calling thread waits for a worker's batch before throwing.
  EMBER_ARG(std::optional<std::chrono::milliseconds>, timeout);
  // Batches come in the sampler's order; false hands out whichever is ready first.
  EMBER_ARG(bool, enforce_ordering) = true;
  // Leaves out a last batch smaller than batch_size.
  EMBER_ARG(bool, drop_last) = false;
  // (DataLoader) a new random order every epoch, from `generator` (nullptr: the default generator).
  EMBER_ARG(bool, shuffle) = false;
  EMBER_ARG(GeneratorPointer, generator) = nullptr;
  // Batches each worker has requested ahead, when max_jobs is not given.
  EMBER_ARG(size_t, prefetch_factor) = 2;
};

struct FullDataLoaderOptions {
  explicit FullDataLoaderOptions(const DataLoaderOptions& options);

  size_t batch_size;
  size_t workers;
  size_t max_jobs;
  std::optional<std::chrono::milliseconds> timeout;
  bool enforce_ordering;
  bool drop_last;
  bool shuffle;
  Generator* generator;
};

}  // namespace ember::data
