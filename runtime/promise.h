#pragma once
// Promise<T>: a Future<T> that the user's own work completes, so work ember does not run (a std::thread,
// another library's callback) joins ember's futures through then() and collect_all.
//
//   ember::Promise<int> promise;
//   ember::Future<int> answer = promise.get_future();
//   std::thread worker([p = std::move(promise)]() mutable { p.set_value(42); });
//   answer.then([](int& v) { ... }).wait();
//
// set_value() or set_exception() completes the future once; the continuations waiting on it run on the
// thread that sets it (or on one that observed completion first through wait() or ready()). A second
// set throws PromiseAlreadySatisfiedError. A promise destroyed before it was set completes its future
// with BrokenPromiseError, so no waiter blocks forever.
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>

#include "runtime/error.h"
#include "runtime/future.h"

namespace ember {

// set_value() or set_exception() on a promise that was already set.
class PromiseAlreadySatisfiedError : public Error {
 public:
  using Error::Error;
};

// What a promise's future holds when the promise was destroyed before it was set.
class BrokenPromiseError : public Error {
 public:
  using Error::Error;
};

namespace detail {

// What a promise shares with its future: the outcome once set, and a condition variable for waiters,
// since a promise's future has no device timeline to block on.
template <class T>
struct PromiseShared {
  std::mutex mutex;
  std::condition_variable changed;
  bool ready = false;  // `outcome` is in place; a second set is refused
  std::function<Stored<T>()> outcome;

  void wait() {
    std::unique_lock lock(mutex);
    changed.wait(lock, [this] { return ready; });
  }
  bool is_ready() {
    std::lock_guard lock(mutex);
    return ready;
  }
  // The future's value (or its error, thrown), once ready; the future calls it once.
  Stored<T> produce() {
    std::function<Stored<T>()> take;
    {
      std::lock_guard lock(mutex);
      take = std::move(outcome);
    }
    return take();
  }
};

}  // namespace detail

template <class T>
class Promise {
 public:
  Promise() : shared_(std::make_shared<detail::PromiseShared<T>>()) {
    auto shared = shared_;
    future_ = Future<T>::make([shared] { return shared->is_ready(); }, [shared] { shared->wait(); },
                              [shared] { return shared->produce(); });
  }
  Promise(Promise&&) noexcept = default;
  Promise& operator=(Promise&& other) noexcept {
    if (this != &other) {
      abandon();
      shared_ = std::move(other.shared_);
      future_ = std::move(other.future_);
    }
    return *this;
  }
  Promise(const Promise&) = delete;
  Promise& operator=(const Promise&) = delete;
  ~Promise() { abandon(); }

  // The future this promise completes. Futures are shared handles: every call returns the same one.
  Future<T> get_future() const {
    check_valid();
    return future_;
  }

  void set_value(detail::Stored<T> value)
    requires(!std::is_void_v<T>)
  {
    auto stored = std::make_shared<detail::Stored<T>>(std::move(value));
    settle([stored]() -> detail::Stored<T> { return std::move(*stored); });
  }

  void set_value()
    requires std::is_void_v<T>
  {
    settle([]() -> detail::Stored<T> { return {}; });
  }

  void set_exception(std::exception_ptr error) {
    if (!error) throw Error("ember::Promise::set_exception: the exception_ptr is null");
    settle([error]() -> detail::Stored<T> { std::rethrow_exception(error); });
  }

  // Whether set_value or set_exception has been called.
  bool is_set() const {
    check_valid();
    std::lock_guard lock(shared_->mutex);
    return shared_->ready;
  }

 private:
  void check_valid() const {
    if (!shared_) throw Error("ember::Promise: this promise was moved from");
  }

  // Installs `outcome` as what the future produces, wakes its waiters and completes it here.
  void settle(std::function<detail::Stored<T>()> outcome) {
    check_valid();
    {
      std::lock_guard lock(shared_->mutex);
      if (shared_->ready) {
        throw PromiseAlreadySatisfiedError("ember::Promise: the promise was already satisfied (set_value or "
                                           "set_exception may be called once)");
      }
      shared_->outcome = std::move(outcome);
      shared_->ready = true;
    }
    shared_->changed.notify_all();
    future_.ready();  // completes it and runs its continuations on this thread
  }

  void abandon() noexcept {
    if (!shared_) return;
    try {
      if (is_set()) return;
      settle([]() -> detail::Stored<T> {
        throw BrokenPromiseError("ember::Promise: the promise was destroyed before it set a value or an "
                                 "exception (broken promise)");
      });
    } catch (...) {
      // A continuation's failure is stored in its own future; nothing may escape a destructor.
    }
  }

  std::shared_ptr<detail::PromiseShared<T>> shared_;
  Future<T> future_;
};

}  // namespace ember
