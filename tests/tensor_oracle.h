#pragma once
// Helpers of the tensor-level tests over torch_oracle.h: seeded random data, the same given values in
// several memory layouts, comparisons with a context line, and exact error checks.
#include <ATen/ATen.h>

#include <functional>
#include <string>
#include <vector>

#include "tests/oracle_tensors.h"
#include "tests/torch_oracle.h"

namespace ember::test {

// random_tensor's values (oracle_tensors.h), deterministic per seed; uint8 values start at 0.
at::Tensor random_torch(std::vector<int64_t> sizes, DType dtype, uint64_t seed, double low = -4, double high = 4);

// Relative tolerance of results stored in `dtype` (0 for exact dtypes).
double tolerance(DType dtype);

// Same dtype, sizes and values; |a - e| <= atol + rtol |e|, NaN only where expected, infinities equal.
// rtol < 0 takes tolerance(dtype); atol < 0 takes rtol.
void expect_tensor_eq(const Tensor& actual, const at::Tensor& expected, double rtol = -1, double atol = -1,
                      const std::string& context = "");

// expect_tensor_eq with the failing line and expression in the trace.
#define EXPECT_TENSOR_EQ(actual, ...)                         \
  do {                                                        \
    SCOPED_TRACE(#actual);                                    \
    ::ember::test::expect_tensor_eq(actual, __VA_ARGS__);     \
  } while (0)

// The same values as `t` on the device in several layouts: contiguous, transposed storage (2 dims or
// more), every other element of a larger buffer along the last dim (at an offset), and, where `t` has a
// dim of size 1, nothing else (broadcasts are made by the tests with expand).
struct Layouts {
  std::string name;
  Tensor tensor;
};
std::vector<Layouts> layouts_of(const at::Tensor& t, const std::shared_ptr<Device>& device);

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

}  // namespace ember::test
