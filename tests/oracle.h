#pragma once
// The differential-testing oracle, LibTorch (CPU): moving tensors between ember and LibTorch with
// identical values and layouts, seeded random inputs per dtype, the layouts every op runs on,
// comparisons with per-dtype tolerances, exact error checks, and device copies of LibTorch storage for
// the kernel-level tests.
#include <ATen/ATen.h>

#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tests/test_support.h"

namespace ember::test {

at::ScalarType torch_dtype(DType dtype);
DType ember_dtype(at::ScalarType type);

// Same sizes, strides and values: a contiguous copy on the host, re-strided like `t`.
at::Tensor to_torch(const Tensor& t);
// A contiguous device copy of `t`'s values.
Tensor from_torch(const at::Tensor& t, const std::shared_ptr<Device>& device);

// Random values of `dtype`: floats uniform in [low, high), integers uniform in [low, high) (uint8 from
// max(low, 0)), bools half true. Without a range, floats take [-4, 4), signed integers [-50, 50) and
// uint8 [0, 100).
struct ValueRange {
  double low;
  double high;
};
at::Tensor random_torch(at::IntArrayRef sizes, DType dtype, at::Generator& generator,
                        std::optional<ValueRange> range = std::nullopt);
// The same from a generator seeded with `seed`: deterministic per seed.
at::Tensor random_torch(at::IntArrayRef sizes, DType dtype, uint64_t seed, double low, double high);
at::Tensor random_torch(at::IntArrayRef sizes, DType dtype, uint64_t seed);

// A pair of tensors with equal values and equal layout on both sides.
struct Pair {
  Tensor ember;
  at::Tensor torch;
  std::string layout;  // for failure messages
};
Pair pair_from(const at::Tensor& torch, const std::shared_ptr<Device>& device);

// The layouts every op is run on, for logical shape `sizes`: contiguous, transposed (last two dims),
// sliced with step 2 along the last dim, and broadcast (stride 0) along dim 0.
std::vector<Pair> layouts(at::IntArrayRef sizes, DType dtype, const std::shared_ptr<Device>& device,
                          at::Generator& generator);

// The same values as `t` on the device in several layouts: contiguous, transposed storage (2 dims or
// more), and every other element of a larger buffer along the last dim (at an offset). Broadcasts are
// made by the tests with expand.
struct Layout {
  std::string name;
  Tensor tensor;
};
std::vector<Layout> layouts_of(const at::Tensor& t, const std::shared_ptr<Device>& device);

// The shapes every op is run on: 0-dim, empty, sizes that are not multiples of the workgroup size.
std::vector<std::vector<int64_t>> test_shapes();

// |actual - expected| <= atol + rtol |expected|, per dtype (0 for exact dtypes).
struct Tolerance {
  double rtol = 0;
  double atol = 0;
};
Tolerance tolerance_for(DType dtype);

// Same dtype, sizes and values within tolerance; NaN only where expected, infinities equal. rtol or atol
// below zero take tolerance_for(dtype)'s.
void expect_tensor_eq(const Tensor& actual, const at::Tensor& expected, double rtol = -1, double atol = -1,
                      const std::string& context = "");

// expect_tensor_eq with the failing line and expression in the trace.
#define EXPECT_TENSOR_EQ(actual, ...)                     \
  do {                                                    \
    SCOPED_TRACE(#actual);                                \
    ::ember::test::expect_tensor_eq(actual, __VA_ARGS__); \
  } while (0)

// The message LibTorch throws from `f` (c10's, without its backtrace); a failure, and "", when `f`
// throws nothing.
std::string torch_error(const std::function<void()>& f);

// A device copy of an at::Tensor's storage, for the kernel-level tests: every view of it (transposed,
// sliced with steps, expanded) becomes a TensorRef with the same sizes, strides and offset, and what a
// kernel wrote reads back as the same view.
class DeviceStorage {
 public:
  DeviceStorage(Device& device, Stream& stream, const at::Tensor& tensor);
  // `view` (a view of the uploaded storage) as a TensorRef of the device copy.
  TensorRef ref(const at::Tensor& view) const;
  // The device's values of `view`, as a contiguous tensor.
  at::Tensor read(Stream& stream, const at::Tensor& view) const;
  const std::shared_ptr<Allocation>& allocation() const { return allocation_; }

 private:
  at::Storage storage_;
  DType dtype_;
  std::shared_ptr<Allocation> allocation_;
};

// True when the backend has the kernel that `probe` calls (with empty tensors); false, with the
// reason in `why`, when it throws UnsupportedError.
bool has_kernel(const std::function<void()>& probe, std::string& why);

}  // namespace ember::test

// Skips the running test, printing why, when the backend lacks the kernel that `call` reaches.
#define REQUIRE_KERNEL(call)                                                  \
  do {                                                                        \
    std::string why_;                                                         \
    if (!::ember::test::has_kernel([&] { call; }, why_)) GTEST_SKIP() << why_; \
  } while (0)
