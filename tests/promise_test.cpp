// Promises: futures completed by the user's own work (std::threads here), joined with then() and
// collect_all beside ember's device futures; values, void and errors; setting twice, broken promises
// (destroyed unset, also by a thread that exits without setting), and where continuations run.
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "runtime/promise.h"
#include "test_support.h"

namespace ember::test {
namespace {

using namespace std::chrono_literals;

const std::string kAlreadySatisfied =
    "ember::Promise: the promise was already satisfied (set_value or set_exception may be called once)";
const std::string kBroken =
    "ember::Promise: the promise was destroyed before it set a value or an exception (broken promise)";

TEST(Promise, SetValueCompletesItsFuture) {
  Promise<int> promise;
  Future<int> future = promise.get_future();
  EXPECT_TRUE(future.valid());
  EXPECT_FALSE(future.ready());
  EXPECT_FALSE(promise.is_set());
  promise.set_value(41);
  EXPECT_TRUE(promise.is_set());
  EXPECT_TRUE(future.ready());
  EXPECT_EQ(future.wait(), 41);
  EXPECT_EQ(promise.get_future().wait(), 41) << "every get_future() is the same future";
}

TEST(Promise, VoidAndMoveOnlyValues) {
  Promise<void> done;
  int runs = 0;
  auto after = done.get_future().then([&] { ++runs; });
  EXPECT_EQ(runs, 0);
  done.set_value();
  EXPECT_EQ(runs, 1) << "the continuation ran when the promise was set";
  after.wait();
  EXPECT_EQ(runs, 1);

  Promise<std::unique_ptr<int>> boxed;
  auto unboxed = boxed.get_future().then([](std::unique_ptr<int>& p) { return *p + 1; });
  boxed.set_value(std::make_unique<int>(6));
  EXPECT_EQ(unboxed.wait(), 7);
}

TEST(Promise, SetFromAnotherThreadWakesTheWaiter) {
  Promise<std::string> promise;
  Future<std::string> future = promise.get_future();
  std::thread worker([p = std::move(promise)]() mutable {
    std::this_thread::sleep_for(30ms);
    p.set_value("from the worker");
  });
  EXPECT_EQ(future.wait(), "from the worker");  // blocks until the worker sets it
  worker.join();
}

TEST(Promise, ThenChainsRunOnTheSettingThread) {
  Promise<int> promise;
  std::atomic<std::thread::id> ran_on{};
  auto chained = promise.get_future()
                     .then([&](int& v) {
                       ran_on = std::this_thread::get_id();
                       return v * 2;
                     })
                     .then([](int& v) { return std::to_string(v); });
  std::thread::id worker_id;
  std::thread worker([&, p = std::move(promise)]() mutable { p.set_value(21); });
  worker_id = worker.get_id();
  worker.join();
  EXPECT_TRUE(chained.ready()) << "the chain completed without anyone waiting";
  EXPECT_EQ(chained.wait(), "42");
  EXPECT_EQ(ran_on.load(), worker_id);
}

TEST(Promise, ErrorsReachWaitAndContinuations) {
  Promise<int> promise;
  bool ran = false;
  auto child = promise.get_future().then([&](int& v) {
    ran = true;
    return v;
  });
  promise.set_exception(std::make_exception_ptr(std::invalid_argument("bad input in the worker")));
  EXPECT_THROW(promise.get_future().wait(), std::invalid_argument);
  EXPECT_THROW(child.wait(), std::invalid_argument);
  EXPECT_FALSE(ran);
  expect_error<Error>([&] { promise.set_exception(nullptr); },
                              "ember::Promise::set_exception: the exception_ptr is null");

  // A continuation that throws fails its own future; set_value itself succeeds.
  Promise<int> other;
  auto failing = other.get_future().then([](int&) -> int { throw std::runtime_error("continuation failed"); });
  other.set_value(1);
  EXPECT_EQ(other.get_future().wait(), 1);
  EXPECT_THROW(failing.wait(), std::runtime_error);
}

TEST(Promise, SettingTwiceThrows) {
  Promise<int> promise;
  promise.set_value(1);
  expect_error<PromiseAlreadySatisfiedError>([&] { promise.set_value(2); }, kAlreadySatisfied);
  expect_error<PromiseAlreadySatisfiedError>(
      [&] { promise.set_exception(std::make_exception_ptr(std::runtime_error("late"))); }, kAlreadySatisfied);
  EXPECT_EQ(promise.get_future().wait(), 1) << "the first value stays";

  Promise<void> done;
  done.set_exception(std::make_exception_ptr(std::runtime_error("first")));
  expect_error<PromiseAlreadySatisfiedError>([&] { done.set_value(); }, kAlreadySatisfied);
}

TEST(Promise, DestroyedUnsetBreaksItsFuture) {
  Future<int> orphan;
  bool continued = false;
  Future<int> child;
  {
    Promise<int> promise;
    orphan = promise.get_future();
    child = orphan.then([&](int& v) {
      continued = true;
      return v;
    });
  }
  EXPECT_TRUE(orphan.ready());
  expect_error<BrokenPromiseError>([&] { orphan.wait(); }, kBroken);
  expect_error<BrokenPromiseError>([&] { child.wait(); }, kBroken);
  EXPECT_FALSE(continued);

  // A worker that returns without setting its promise wakes the waiter with the same error.
  Promise<int> forgotten;
  Future<int> waited = forgotten.get_future();
  std::thread worker([p = std::move(forgotten)]() mutable { std::this_thread::sleep_for(20ms); });
  expect_error<BrokenPromiseError>([&] { waited.wait(); }, kBroken);
  worker.join();

  // Assigning over an unset promise breaks the old one; a moved-from promise refuses use.
  Promise<int> first;
  Future<int> first_future = first.get_future();
  Promise<int> second;
  second.set_value(2);
  first = std::move(second);
  expect_error<BrokenPromiseError>([&] { first_future.wait(); }, kBroken);
  EXPECT_EQ(first.get_future().wait(), 2);
  expect_error<Error>([&] { second.get_future(); }, "ember::Promise: this promise was moved from");
}

TEST(Promise, CollectAllOfThreadResults) {
  constexpr int kWorkers = 8;
  std::vector<Future<int>> futures;
  std::vector<std::thread> workers;
  for (int i = 0; i < kWorkers; ++i) {
    Promise<int> promise;
    futures.push_back(promise.get_future().then([](int& v) { return v * v; }));
    workers.emplace_back([i, p = std::move(promise)]() mutable {
      std::this_thread::sleep_for(std::chrono::milliseconds(5 * (kWorkers - i)));
      p.set_value(i);
    });
  }
  const std::vector<int> squares = collect_all(futures).wait();
  for (auto& worker : workers) worker.join();
  ASSERT_EQ(squares.size(), static_cast<size_t>(kWorkers));
  for (int i = 0; i < kWorkers; ++i) EXPECT_EQ(squares[i], i * i);

  // One failing worker fails the join.
  Promise<int> ok, failed;
  auto joined = collect_all(std::vector<Future<int>>{ok.get_future(), failed.get_future()});
  std::thread a([p = std::move(ok)]() mutable { p.set_value(1); });
  std::thread b([p = std::move(failed)]() mutable {
    p.set_exception(std::make_exception_ptr(DeviceLostError("worker lost its device")));
  });
  a.join();
  b.join();
  EXPECT_THROW(joined.wait(), DeviceLostError);
}

class DevicePromiseTest : public BackendTest {};

// A thread's result and a device read, joined: the continuation sees both.
TEST_P(DevicePromiseTest, CollectAllWithDeviceFutures) {
  constexpr int64_t n = 256;
  auto allocation = device->allocate(n * sizeof(float));
  TensorRef ref = TensorRef::contiguous(*allocation, DType::Float32, {n});
  device->kernels().get<MemoryKernels>().fill(*stream, {ref, 2.5});
  Future<float> from_device = stream->copy_to_host(allocation, 0, n * sizeof(float)).then([](std::vector<std::byte>& bytes) {
    float last;
    std::memcpy(&last, bytes.data() + (n - 1) * sizeof(float), sizeof last);
    return last;
  });
  Promise<float> promise;
  Future<float> from_thread = promise.get_future();
  std::thread worker([p = std::move(promise)]() mutable {
    std::this_thread::sleep_for(10ms);
    p.set_value(4.0f);
  });
  auto total = collect_all(std::vector<Future<float>>{from_device, from_thread}).then([](std::vector<float>& values) {
    return values[0] + values[1];
  });
  EXPECT_EQ(total.wait(), 6.5f);
  worker.join();

  // The other way round: a device future's continuation fulfils a promise that a thread waits on.
  Promise<float> relay;
  Future<float> relayed = relay.get_future();
  float seen = 0;
  std::thread waiter([&] { seen = relayed.wait(); });
  auto done = stream->copy_to_host(allocation, 0, sizeof(float)).then([&](std::vector<std::byte>& bytes) {
    float first;
    std::memcpy(&first, bytes.data(), sizeof first);
    relay.set_value(first * 2);
  });
  done.wait();
  waiter.join();
  EXPECT_EQ(seen, 5.0f);
}

INSTANTIATE_TEST_SUITE_P(Backends, DevicePromiseTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
