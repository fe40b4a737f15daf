#pragma once
// Shared by the tests: backend parameterisation (a backend that is absent skips with its reason) and
// host-side helpers to move test data through device memory.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ember.h"
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/index.h"
#include "runtime/kernels/matmul.h"
#include "runtime/kernels/memory.h"
#include "runtime/kernels/random.h"
#include "runtime/kernels/reduce.h"

namespace ember::test {

// Fails the running test when Vulkan validation reported anything since the last check.
void expect_no_validation_messages();
// Expects `call` to throw an ember::Error whose message contains `fragment`.
void expect_error_containing(const std::function<void()>& call, const std::string& fragment);

// Base for tests that use a device: checks validation messages after every test.
class DeviceTest : public ::testing::Test {
 protected:
  void TearDown() override { expect_no_validation_messages(); }
};

// A test of the Vulkan device and its default stream; skips, printing why, where there is none.
class VulkanTest : public DeviceTest {
 protected:
  void SetUp() override;
  std::shared_ptr<Device> device;
  std::shared_ptr<Stream> stream;
};

// Runs once per backend name ("vulkan", "cuda"); skips, printing why, where the backend is absent.
class BackendTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override;
  void TearDown() override { expect_no_validation_messages(); }
  std::shared_ptr<Device> device;
  std::shared_ptr<Stream> stream;
};

std::string backend_test_name(const ::testing::TestParamInfo<std::string>& info);

template <class T>
std::shared_ptr<Allocation> upload(Device& device, Stream& stream, const std::vector<T>& values) {
  auto allocation = device.allocate(std::max<size_t>(values.size() * sizeof(T), 1),
                                    stream.shared_from_this());
  stream.copy_from_host(*allocation, 0, values.data(), values.size() * sizeof(T));
  return allocation;
}

template <class T>
std::vector<T> download(Stream& stream, const std::shared_ptr<Allocation>& allocation, size_t count,
                        uint64_t byte_offset = 0) {
  std::vector<std::byte> bytes = stream.copy_to_host(allocation, byte_offset, count * sizeof(T)).wait();
  std::vector<T> values(count);
  if (!bytes.empty()) std::memcpy(values.data(), bytes.data(), bytes.size());  // an empty vector's data is null
  return values;
}

// out (one element) = the float32 sum of every element of `in`, through the reduce kernels.
void sum_all(Device& device, Stream& stream, const TensorRef& out, const TensorRef& in);

// Runs `f`, which must throw exactly `E` (or a subclass) with message `message`.
template <class E>
void expect_error(const std::function<void()>& f, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected: " << message;
  } catch (const E& e) {
    EXPECT_EQ(std::string(e.what()), message);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what() << "\nexpected: " << message;
  }
}

// A strided view over `allocation` (null for host-only planning tests).
TensorRef view(Allocation* allocation, DType dtype, std::vector<int64_t> sizes,
               std::vector<int64_t> strides, uint64_t byte_offset = 0);

}  // namespace ember::test
