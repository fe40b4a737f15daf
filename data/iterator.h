#pragma once
// The DataLoader's input iterator, as LibTorch's torch::data::Iterator: begin() starts an epoch, and the
// first batch is fetched when the iterator is first read or compared, so `for (auto& batch : loader)`
// works.
#include <cstddef>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <utility>

#include "runtime/error.h"

namespace ember::data {

template <typename Batch>
class Iterator {
 public:
  using difference_type = std::ptrdiff_t;
  using value_type = Batch;
  using pointer = Batch*;
  using reference = Batch&;
  using iterator_category = std::input_iterator_tag;

  // The end sentinel.
  Iterator() = default;
  explicit Iterator(std::function<std::optional<Batch>()> next_batch)
      : state_(std::make_shared<State>(State{std::move(next_batch), std::nullopt, false, false})) {}

  // Fetches the next batch. After a batch failed (the exception reached the caller), ++ goes on with
  // the one after it.
  Iterator& operator++() {
    if (!state_) throw Error("Incrementing the DataLoader's past-the-end iterator is not allowed");
    fetch_first();
    if (!state_->batch && !state_->failed) throw Error("Attempted to increment iterator past the end");
    state_->batch.reset();  // the last batch's memory goes back before the next one is made
    fetch();
    return *this;
  }
  Batch& operator*() {
    if (!state_) throw Error("Dereferencing the DataLoader's past-the-end iterator is not allowed");
    fetch_first();
    if (!state_->batch) throw Error("Attempted to dereference iterator that was past the end");
    return *state_->batch;
  }
  Batch* operator->() { return &**this; }

  bool operator==(const Iterator& other) const {
    if (!state_ && !other.state_) return true;
    if (state_ && other.state_) return state_ == other.state_;
    const State& valid = state_ ? *state_ : *other.state_;
    const_cast<Iterator&>(state_ ? *this : other).fetch_first();
    return !valid.batch && !valid.failed;
  }
  bool operator!=(const Iterator& other) const { return !(*this == other); }

 private:
  struct State {
    std::function<std::optional<Batch>()> next_batch;
    std::optional<Batch> batch;
    bool fetched = false;
    bool failed = false;  // the last fetch threw
  };
  void fetch() {
    state_->failed = true;
    state_->batch = state_->next_batch();
    state_->failed = false;
  }
  void fetch_first() {
    if (!state_->fetched) {
      state_->fetched = true;
      fetch();
    }
  }

  std::shared_ptr<State> state_;
};

}  // namespace ember::data
