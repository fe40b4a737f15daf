#pragma once
// The loaders' engine. The calling thread turns the sampler's order into requests; worker threads make
// batches from them (load, transform, collate, upload), at most max_jobs ahead of the batch being
// consumed; batches come back in request order (or as they finish, without enforce_ordering). With no
// workers, each batch is made on the calling thread when it is asked for.
//
// Uploads made on a worker are recorded on the device's stream before the batch is handed over, so the
// step that uses the batch is ordered after them without any host wait.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "data/worker_exception.h"
#include "runtime/error.h"
#include "runtime/record_function.h"

namespace ember::data::detail {

template <typename Batch, typename Request>
class BatchPipeline {
 public:
  // Makes the batch of the epoch's request number `sequence` on worker `worker` (0 without workers).
  // nullopt means there is no such batch (a stream ran out): the epoch ends once none is in flight.
  using Produce = std::function<std::optional<Batch>(size_t worker, size_t sequence, Request request)>;
  // The next request of the epoch, or nullopt when there is none; called on the consuming thread only.
  using Requests = std::function<std::optional<Request>()>;

  BatchPipeline(size_t workers, size_t max_jobs, std::optional<std::chrono::milliseconds> timeout,
                bool enforce_ordering, Produce produce)
      : max_jobs_(max_jobs), timeout_(timeout), ordered_(enforce_ordering), produce_(std::move(produce)) {
    threads_.reserve(workers);
    for (size_t w = 0; w < workers; ++w) {
      try {
        threads_.emplace_back([this, w] { work(w); });
      } catch (const std::system_error& e) {
        // A destructor does not run for a half-built object, and a joinable std::thread destroyed unjoined
        // ends the process: the workers started so far are joined here.
        join();
        throw Error("DataLoader: could not start worker thread " + std::to_string(w + 1) + " of " +
                    std::to_string(workers) + " (" + e.what() + "); ask for fewer workers");
      }
    }
  }
  ~BatchPipeline() { join(); }
  BatchPipeline(const BatchPipeline&) = delete;
  BatchPipeline& operator=(const BatchPipeline&) = delete;

  size_t workers() const { return threads_.size(); }

  // Waits for the batches being made to finish and drops every batch of the epoch that is not yet
  // handed out. Afterwards no worker touches the dataset until start().
  void drain() {
    std::unique_lock lock(mutex_);
    queue_.clear();
    done_.wait(lock, [&] { return busy_ == 0; });
    results_.clear();
    issued_ = handed_ = 0;
  }

  // Starts an epoch: drains the last one and requests the first max_jobs batches.
  void start(Requests requests) {
    if (joined_) throw Error("DataLoader: the loader was joined; it makes no more batches");
    drain();
    requests_ = std::move(requests);
    requests_done_ = false;
    sequence_ = 0;
    if (!threads_.empty()) request(max_jobs_);
  }

  // The next batch, or nullopt when the epoch is over. Rethrows a worker's exception as WorkerException.
  std::optional<Batch> next() {
    // PyTorch's profiler region around each fetch, the one that finds the epoch over included.
    const profiler::RecordFunction region(!profiler::recording() ? ""
                                          : threads_.empty()
                                              ? "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
                                              : "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__");
    // join() dropped the queued jobs, so a batch still due would never come.
    if (joined_) throw Error("DataLoader: the loader was joined; it makes no more batches");
    if (threads_.empty()) {
      while (!requests_done_) {
        std::optional<Request> request = requests_();
        if (!request) break;
        if (std::optional<Batch> batch = produce_(0, sequence_++, std::move(*request))) return batch;
        requests_done_ = true;
      }
      requests_done_ = true;
      return std::nullopt;
    }
    while (true) {
      Result result;
      {
        std::unique_lock lock(mutex_);
        if (handed_ == issued_) return std::nullopt;
        auto ready = [&] { return ordered_ ? results_.count(handed_) > 0 : !results_.empty(); };
        if (timeout_) {
          if (!done_.wait_for(lock, *timeout_, ready)) {
            throw Error("Timeout in DataLoader queue while waiting for next batch (timeout was " +
                        std::to_string(timeout_->count()) + " ms)");
          }
        } else {
          done_.wait(lock, ready);
        }
        auto entry = ordered_ ? results_.find(handed_) : results_.begin();
        result = std::move(entry->second);
        results_.erase(entry);
        ++handed_;
      }
      if (result.error) {
        request(1);
        throw WorkerException(result.error);
      }
      if (result.batch) {
        request(1);
        return std::move(result.batch);
      }
      requests_done_ = true;  // the stream ran out: hand out what is in flight, request nothing more
    }
  }

  // Jobs requested and not yet handed out.
  size_t in_flight() const {
    std::lock_guard lock(mutex_);
    return issued_ - handed_;
  }

  // Stops the workers once their current batch is made; the pipeline makes no more batches.
  void join() {
    if (joined_) return;
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
      queue_.clear();
    }
    work_.notify_all();
    for (std::thread& thread : threads_) thread.join();
    joined_ = true;
  }

 private:
  struct Job {
    size_t sequence;
    Request request;
  };
  struct Result {
    std::optional<Batch> batch;
    std::exception_ptr error;
  };

  void request(size_t count) {
    for (size_t i = 0; i < count && !requests_done_; ++i) {
      std::optional<Request> request = requests_();
      if (!request) {
        requests_done_ = true;
        break;
      }
      {
        std::lock_guard lock(mutex_);
        queue_.push_back(Job{issued_++, std::move(*request)});
      }
      work_.notify_one();
    }
  }

  void work(size_t worker) {
    while (true) {
      std::optional<Job> job;
      {
        std::unique_lock lock(mutex_);
        work_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (stop_) return;
        job.emplace(std::move(queue_.front()));
        queue_.pop_front();
        ++busy_;
      }
      Result result;
      try {
        result.batch = produce_(worker, job->sequence, std::move(job->request));
      } catch (...) {
        result.error = std::current_exception();
      }
      {
        std::lock_guard lock(mutex_);
        results_.emplace(job->sequence, std::move(result));
        --busy_;
      }
      done_.notify_all();
    }
  }

  const size_t max_jobs_;
  const std::optional<std::chrono::milliseconds> timeout_;
  const bool ordered_;
  const Produce produce_;
  Requests requests_;
  bool requests_done_ = true;  // consuming thread only
  size_t sequence_ = 0;        // without workers
  bool joined_ = false;

  mutable std::mutex mutex_;
  std::condition_variable work_;  // a job was queued, or stop_
  std::condition_variable done_;  // a result arrived, or a worker went idle
  std::deque<Job> queue_;
  std::map<size_t, Result> results_;
  size_t busy_ = 0;
  size_t issued_ = 0;
  size_t handed_ = 0;
  bool stop_ = false;
  std::vector<std::thread> threads_;  // last: started once everything above exists
};

}  // namespace ember::data::detail
