#pragma once
// Future<T>: the result of device work that completes at some point of a stream's timeline.
//
// A future knows how to poll and how to block for the work it stands for, and how to produce its value
// once that work is done (for example, reading a mapped buffer). It holds what must stay alive until then.
// Continuations added with then() run exactly once, in the order they were added, on the thread that first
// observes completion through wait() or ready(). Errors (a lost device, a throwing continuation) are stored
// and rethrown from wait().
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace ember {

class Stream;

template <class T>
class Future;

namespace detail {

template <class T>
using Stored = std::conditional_t<std::is_void_v<T>, std::monostate, T>;

// The result type of a continuation F added to a Future<T>.
template <class T, class F>
struct ContinuationResult {
  using type = std::invoke_result_t<F, T&>;
};
template <class F>
struct ContinuationResult<void, F> {
  using type = std::invoke_result_t<F>;
};

template <class T>
struct FutureState {
  std::function<bool()> poll;                // true when the underlying work is done; never blocks
  std::function<void()> block;               // waits for the underlying work; may throw
  std::function<Stored<T>()> produce;        // builds the value once the work is done; may throw
  std::vector<std::shared_ptr<const void>> keep_alive;
  // The stream point whose completion the future waits for, when it stands for stream work.
  std::shared_ptr<Stream> stream;
  uint64_t stream_value = 0;

  std::recursive_mutex mutex;
  bool completed = false;
  std::optional<Stored<T>> value;
  std::exception_ptr error;
  std::vector<std::function<void()>> continuations;

  // Runs `produce` and then the continuations, once. Caller holds no lock.
  void complete() {
    std::vector<std::function<void()>> to_run;
    {
      std::lock_guard lock(mutex);
      if (completed) return;
      try {
        value.emplace(produce ? produce() : Stored<T>{});
      } catch (...) {
        error = std::current_exception();
      }
      completed = true;
      keep_alive.clear();
      produce = nullptr;
      poll = nullptr;
      block = nullptr;
      to_run.swap(continuations);
    }
    for (auto& continuation : to_run) continuation();
  }
};

}  // namespace detail

template <class T>
class Future {
 public:
  using value_type = T;

  Future() = default;

  static Future make(std::function<bool()> poll, std::function<void()> block,
                     std::function<detail::Stored<T>()> produce,
                     std::vector<std::shared_ptr<const void>> keep_alive = {}) {
    Future future;
    future.state_ = std::make_shared<detail::FutureState<T>>();
    future.state_->poll = std::move(poll);
    future.state_->block = std::move(block);
    future.state_->produce = std::move(produce);
    future.state_->keep_alive = std::move(keep_alive);
    return future;
  }

  static Future ready_value(detail::Stored<T> value) {
    Future future = make([] { return true; }, [] {}, nullptr);
    future.state_->value.emplace(std::move(value));
    future.state_->completed = true;
    future.state_->poll = nullptr;
    future.state_->block = nullptr;
    return future;
  }

  // Marks the future as standing for the work on `stream` up to timeline `value`, so that GPU work can
  // wait for that point (ember/vulkan.h's timeline_point) instead of the host.
  Future& at_stream_point(std::shared_ptr<Stream> stream, uint64_t value) {
    state_->stream = std::move(stream);
    state_->stream_value = value;
    return *this;
  }
  // The stream and value set by at_stream_point (inherited through then()), or null and 0.
  const std::shared_ptr<Stream>& stream() const { return state_->stream; }
  uint64_t stream_value() const { return state_->stream_value; }

  bool valid() const { return state_ != nullptr; }

  // Non-blocking. Completes the future (running continuations) if the work has finished.
  bool ready() const {
    std::function<bool()> poll;
    {
      std::lock_guard lock(state_->mutex);
      if (state_->completed) return true;
      poll = state_->poll;
    }
    bool done = false;
    try {
      done = !poll || poll();
    } catch (...) {
      fail(std::current_exception());
      return true;
    }
    if (done) state_->complete();
    return done;
  }

  // Blocks until the value is available; rethrows a stored error.
  decltype(auto) wait() const {
    std::function<void()> block;
    {
      std::lock_guard lock(state_->mutex);
      if (!state_->completed) block = state_->block;
    }
    if (block) {
      try {
        block();
      } catch (...) {
        fail(std::current_exception());
      }
    }
    state_->complete();
    if (state_->error) std::rethrow_exception(state_->error);
    if constexpr (std::is_void_v<T>) {
      return;
    } else {
      return static_cast<T&>(*state_->value);
    }
  }

  // Returns a future of f's result. f receives T& (nothing for Future<void>) and runs once, after this
  // future completes and after the continuations added before it.
  template <class F>
  auto then(F f) const {
    using R = typename detail::ContinuationResult<T, F>::type;
    auto parent = state_;
    auto child = std::make_shared<detail::FutureState<R>>();
    Future<R> result;
    result.state_ = child;
    child->stream = parent->stream;
    child->stream_value = parent->stream_value;
    child->poll = [parent_future = *this] { return parent_future.ready(); };
    child->block = [parent_future = *this] { parent_future.wait(); };
    auto run = [parent, child, f = std::move(f)]() mutable {
      {
        std::lock_guard lock(child->mutex);
        child->produce = [parent, &f]() -> detail::Stored<R> {
          if (parent->error) std::rethrow_exception(parent->error);
          if constexpr (std::is_void_v<R>) {
            if constexpr (std::is_void_v<T>) f(); else f(static_cast<T&>(*parent->value));
            return {};
          } else {
            if constexpr (std::is_void_v<T>) return f(); else return f(static_cast<T&>(*parent->value));
          }
        };
      }
      child->complete();
    };
    bool already = false;
    {
      std::lock_guard lock(parent->mutex);
      already = parent->completed;
      if (!already) parent->continuations.push_back(run);
    }
    if (already) run();
    return result;
  }

 private:
  template <class U>
  friend class Future;

  void fail(std::exception_ptr error) const {
    {
      std::lock_guard lock(state_->mutex);
      if (state_->completed) return;
      state_->produce = [error]() -> detail::Stored<T> { std::rethrow_exception(error); };
    }
    state_->complete();
  }

  std::shared_ptr<detail::FutureState<T>> state_;
};

// Joins several futures into one whose value holds their values, in order. Errors propagate.
template <class T>
Future<std::vector<detail::Stored<T>>> collect_all(std::vector<Future<T>> futures) {
  auto shared = std::make_shared<std::vector<Future<T>>>(std::move(futures));
  return Future<std::vector<detail::Stored<T>>>::make(
      [shared] {
        for (auto& future : *shared) {
          if (!future.ready()) return false;
        }
        return true;
      },
      [shared] {
        for (auto& future : *shared) future.wait();
      },
      [shared] {
        std::vector<detail::Stored<T>> values;
        values.reserve(shared->size());
        for (auto& future : *shared) {
          if constexpr (std::is_void_v<T>) {
            future.wait();
            values.emplace_back();
          } else {
            values.push_back(future.wait());
          }
        }
        return values;
      });
}

}  // namespace ember
