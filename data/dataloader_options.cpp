#include "data/dataloader_options.h"

#include <string>

#include "runtime/error.h"

namespace ember::data {

FullDataLoaderOptions::FullDataLoaderOptions(const DataLoaderOptions& options)
    : batch_size(options.batch_size()),
      workers(options.workers()),
      max_jobs(options.max_jobs().value_or(options.prefetch_factor() * options.workers())),
      timeout(options.timeout()),
      enforce_ordering(options.enforce_ordering()),
      drop_last(options.drop_last()),
      shuffle(options.shuffle()),
      generator(options.generator()) {
  if (batch_size == 0) {
    throw Error("batch_size should be a positive integer value, but got batch_size=0");
  }
  if (workers > 0 && max_jobs == 0) {
    throw Error("DataLoader: with " + std::to_string(workers) +
                " workers, max_jobs and prefetch_factor must be positive");
  }
}

}  // namespace ember::data
