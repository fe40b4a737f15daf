// Futures: continuations, joins, errors, and what they keep alive.
#include "test_support.h"

namespace ember::test {
namespace {

TEST(Future, ThenContinuationsRunOnceAndInOrder) {
  bool done = false;
  auto source = Future<int>::make([&] { return done; }, [&] { done = true; }, [] { return 41; });
  std::vector<int> order;
  auto first = source.then([&](int& v) {
    order.push_back(1);
    return v + 1;
  });
  auto second = source.then([&](int&) { order.push_back(2); });
  auto third = first.then([&](int& v) {
    order.push_back(3);
    return v * 2;
  });
  EXPECT_FALSE(third.ready());
  EXPECT_TRUE(order.empty()) << "nothing runs before the work completes";
  EXPECT_EQ(third.wait(), 84);
  EXPECT_EQ(first.wait(), 42);
  second.wait();
  EXPECT_TRUE(source.ready());
  EXPECT_EQ(order, (std::vector<int>{1, 3, 2}))
      << "first's continuation runs as part of first, before source's second continuation";
  auto late = source.then([&](int& v) { return v; });  // added after completion: runs at once
  EXPECT_TRUE(late.ready());
  EXPECT_EQ(order.size(), 3u);
}

TEST(Future, CollectAllJoinsAndPropagatesErrors) {
  std::vector<Future<int>> futures;
  for (int i = 0; i < 4; ++i) futures.push_back(Future<int>::ready_value(i * i));
  EXPECT_EQ(collect_all(futures).wait(), (std::vector<int>{0, 1, 4, 9}));
  futures.push_back(Future<int>::make([] { return true; }, [] {},
                                      []() -> int { throw DeviceLostError("lost in a test"); }));
  EXPECT_THROW(collect_all(futures).wait(), DeviceLostError);
}

TEST(Future, ErrorsSurfaceFromWaitAndReachContinuations) {
  auto failing = Future<int>::make([] { return false; },
                                   [] { throw DeviceLostError("device lost while waiting"); },
                                   [] { return 1; });
  bool ran = false;
  auto child = failing.then([&](int& v) {
    ran = true;
    return v;
  });
  EXPECT_THROW(failing.wait(), DeviceLostError);
  EXPECT_THROW(failing.wait(), DeviceLostError) << "the error stays stored";
  EXPECT_THROW(child.wait(), DeviceLostError);
  EXPECT_FALSE(ran);
}

class DeviceFutureTest : public BackendTest {};

TEST_P(DeviceFutureTest, CollectAllOfDeviceReads) {
  std::vector<std::shared_ptr<Allocation>> tensors;
  std::vector<Future<std::vector<std::byte>>> reads;
  for (int i = 0; i < 3; ++i) {
    tensors.push_back(device->allocate(64 * sizeof(float)));
    TensorRef ref = TensorRef::contiguous(*tensors.back(), DType::Float32, {64});
    device->kernels().get<MemoryKernels>().fill(*stream, {ref, i + 0.5});
    reads.push_back(stream->copy_to_host(tensors.back(), 0, 64 * sizeof(float)));
  }
  auto all = collect_all(reads).wait();
  ASSERT_EQ(all.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    float v;
    std::memcpy(&v, all[i].data() + 10 * sizeof(float), sizeof v);
    EXPECT_EQ(v, i + 0.5f);
  }
}

TEST_P(DeviceFutureTest, FutureThatOutlivesItsTensorKeepsItsMemory) {
  constexpr int64_t n = 1 << 16;
  const uint64_t bytes = n * sizeof(float);
  device->synchronize();
  const uint64_t before = device->allocator().stats().allocated_bytes;
  auto tensor = device->allocate(bytes);
  TensorRef ref = TensorRef::contiguous(*tensor, DType::Float32, {n});
  device->kernels().get<MemoryKernels>().fill(*stream, {ref, 3.0});
  auto read = stream->copy_to_host(tensor, 0, bytes);
  const auto place = std::make_pair(tensor->handle(), tensor->offset());
  tensor.reset();
  EXPECT_GE(device->allocator().stats().allocated_bytes, before + bytes)
      << "the future holds the tensor's memory";
  auto other = device->allocate(bytes);
  EXPECT_NE(std::make_pair(other->handle(), other->offset()), place);
  TensorRef other_ref = TensorRef::contiguous(*other, DType::Float32, {n});
  device->kernels().get<MemoryKernels>().fill(*stream, {other_ref, 9.0});
  std::vector<std::byte> data = read.wait();
  std::vector<float> values(n);
  std::memcpy(values.data(), data.data(), bytes);
  for (float v : values) ASSERT_EQ(v, 3.0f);
  other.reset();
  EXPECT_EQ(device->allocator().stats().allocated_bytes, before)
      << "completing the future released the memory";
}

TEST_P(DeviceFutureTest, StreamCompletionFuture) {
  auto a = device->allocate(1024 * sizeof(float));
  TensorRef ref = TensorRef::contiguous(*a, DType::Float32, {1024});
  device->kernels().get<MemoryKernels>().fill(*stream, {ref, 1.0});
  int runs = 0;
  auto done = stream->completion().then([&] { ++runs; });
  done.wait();
  done.wait();
  EXPECT_TRUE(done.ready());
  EXPECT_EQ(runs, 1);
}

INSTANTIATE_TEST_SUITE_P(Backends, DeviceFutureTest, testing::Values("vulkan", "cuda"),
                         backend_test_name);

}  // namespace
}  // namespace ember::test
