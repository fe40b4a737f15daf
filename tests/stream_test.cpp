// Streams: batched submits, hazard barriers, ordering across streams with events.
#include "test_support.h"

namespace ember::test {
namespace {

class StreamTest : public BackendTest {};

TEST_P(StreamTest, TenThousandDependentDispatchesNeedFewSubmits) {
  auto own = device->create_stream();
  constexpr int64_t n = 64;
  auto x = device->allocate(n * sizeof(float), own);
  auto one = device->allocate(n * sizeof(float), own);
  TensorRef x_ref = TensorRef::contiguous(*x, DType::Float32, {n});
  TensorRef one_ref = TensorRef::contiguous(*one, DType::Float32, {n});
  device->kernels().get<MemoryKernels>().fill(*own, {x_ref, 0.0});
  device->kernels().get<MemoryKernels>().fill(*own, {one_ref, 1.0});
  constexpr int kSteps = 10'000;
  for (int i = 0; i < kSteps; ++i) device->kernels().get<ElementwiseKernels>().binary(*own, {.op = BinaryOp::Add, .out = x_ref, .a = x_ref, .b = one_ref, .compute = DType::Float32});
  for (float v : download<float>(*own, x, n)) ASSERT_EQ(v, static_cast<float>(kSteps));
  const StreamStats stats = own->stats();
  EXPECT_GE(stats.dispatches, static_cast<uint64_t>(kSteps));
  EXPECT_LE(stats.submits * 100, stats.dispatches) << stats.submits << " submits";
  EXPECT_GE(stats.submits, 2u) << "batches are bounded";
  EXPECT_LE(stats.host_waits, 1u) << "only the final read waits";
}

TEST_P(StreamTest, BarriersOnlyWhereWorkDepends) {
  if (device->backend() != Backend::Vulkan) GTEST_SKIP() << "barriers are a Vulkan notion";
  auto own = device->create_stream();
  constexpr int64_t n = 1000;
  auto a = device->allocate(n * sizeof(float), own);
  auto b = device->allocate(n * sizeof(float), own);
  auto c = device->allocate(n * sizeof(float), own);
  TensorRef a_ref = TensorRef::contiguous(*a, DType::Float32, {n});
  TensorRef b_ref = TensorRef::contiguous(*b, DType::Float32, {n});
  TensorRef c_ref = TensorRef::contiguous(*c, DType::Float32, {n});
  device->kernels().get<MemoryKernels>().fill(*own, {a_ref, 1.0});
  device->kernels().get<MemoryKernels>().fill(*own, {b_ref, 2.0});
  EXPECT_EQ(own->stats().barriers, 0u) << "independent writes";
  device->kernels().get<ElementwiseKernels>().binary(*own, {.op = BinaryOp::Add, .out = c_ref, .a = a_ref, .b = b_ref, .compute = DType::Float32});
  EXPECT_EQ(own->stats().barriers, 1u) << "reads after writes";
  device->kernels().get<ElementwiseKernels>().binary(*own, {.op = BinaryOp::Mul, .out = a_ref, .a = b_ref, .b = b_ref, .compute = DType::Float32});
  EXPECT_EQ(own->stats().barriers, 2u) << "write after read";
  for (float v : download<float>(*own, c, n)) ASSERT_EQ(v, 3.0f);
  for (float v : download<float>(*own, a, n)) ASSERT_EQ(v, 4.0f);
}

TEST_P(StreamTest, EventOrdersTwoStreams) {
  auto producer = device->create_stream();
  auto consumer = device->create_stream();
  constexpr int64_t n = 1 << 14;
  auto a = device->allocate(n * sizeof(float), producer);
  auto one = device->allocate(n * sizeof(float), producer);
  auto b = device->allocate(n * sizeof(float), consumer);
  TensorRef a_ref = TensorRef::contiguous(*a, DType::Float32, {n});
  TensorRef one_ref = TensorRef::contiguous(*one, DType::Float32, {n});
  TensorRef b_ref = TensorRef::contiguous(*b, DType::Float32, {n});
  device->kernels().get<MemoryKernels>().fill(*producer, {a_ref, 1.0});
  device->kernels().get<MemoryKernels>().fill(*producer, {one_ref, 1.0});
  for (int i = 0; i < 100; ++i) device->kernels().get<ElementwiseKernels>().binary(*producer, {.op = BinaryOp::Add, .out = a_ref, .a = a_ref, .b = one_ref, .compute = DType::Float32});
  Event ready = producer->record_event();
  consumer->wait_event(ready);
  device->kernels().get<ElementwiseKernels>().binary(*consumer, {.op = BinaryOp::Add, .out = b_ref, .a = a_ref, .b = a_ref, .compute = DType::Float32});
  consumer->synchronize();
  EXPECT_TRUE(ready.query());
  for (float v : download<float>(*consumer, b, n)) ASSERT_EQ(v, 202.0f);
}

TEST_P(StreamTest, CopyToHostSeesTheValueAtTheTimeOfTheCall) {
  constexpr int64_t n = 256;
  auto a = device->allocate(n * sizeof(float));
  TensorRef a_ref = TensorRef::contiguous(*a, DType::Float32, {n});
  device->kernels().get<MemoryKernels>().fill(*stream, {a_ref, 1.0});
  auto first = stream->copy_to_host(a, 0, n * sizeof(float));
  device->kernels().get<MemoryKernels>().fill(*stream, {a_ref, 2.0});
  auto second = stream->copy_to_host(a, 0, n * sizeof(float));
  std::vector<std::byte> one = first.wait();
  std::vector<std::byte> two = second.wait();
  float v1, v2;
  std::memcpy(&v1, one.data() + 100 * sizeof(float), sizeof v1);
  std::memcpy(&v2, two.data() + 100 * sizeof(float), sizeof v2);
  EXPECT_EQ(v1, 1.0f);
  EXPECT_EQ(v2, 2.0f);
}

TEST_P(StreamTest, RawCopyAndBoundsChecks) {
  std::vector<int32_t> values(1000);
  for (int i = 0; i < 1000; ++i) values[i] = i * 7;
  auto src = upload(*device, *stream, values);
  auto dst = device->allocate(1000 * sizeof(int32_t));
  stream->copy(*dst, 0, *src, 0, 1000 * sizeof(int32_t));
  EXPECT_EQ(download<int32_t>(*stream, dst, 1000), values);
  EXPECT_THROW(stream->copy(*dst, 8, *src, 0, 1000 * sizeof(int32_t)), Error);
  EXPECT_THROW(stream->copy_from_host(*dst, 0, values.data(), 2000 * sizeof(int32_t)), Error);
}

INSTANTIATE_TEST_SUITE_P(Backends, StreamTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
