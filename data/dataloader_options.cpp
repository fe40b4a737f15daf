#include "data/dataloader_options.h"

#include <string>

#include "data/detail/counts.h"
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
  detail::check_batch_size(batch_size);
  if (detail::is_negative_converted(workers)) {
    throw Error("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.");
  }
  if (workers > 0 && (max_jobs == 0 || detail::is_negative_converted(max_jobs))) {
    throw Error("DataLoader: with " + std::to_string(workers) +
                " workers, max_jobs and prefetch_factor must be positive");
  }
}

}  // namespace ember::data
