#pragma once
// ember's test helpers, opt-in: include it beside ember.h in tests. assert_close compares two tensors as
// torch.testing.assert_close (PyTorch 1.13) does and throws its report:
//
//   ember::testing::assert_close(actual, expected);
//   ember::testing::assert_close(actual, expected, {.rtol = 1e-3, .atol = 1e-5, .equal_nan = true});
//
// The comparison runs on the device with tensor ops; only the mismatch count (and, when it fails, the
// greatest differences and their positions) comes back to the host.
#include <optional>
#include <string>

#include "runtime/error.h"
#include "tensor/tensor.h"

namespace ember::testing {

// What assert_close throws when the tensors differ (PyTorch raises AssertionError).
class AssertionError : public Error {
 public:
  using Error::Error;
};

struct AssertCloseOptions {
  // Give both or neither. Without them each dtype's default applies, the larger of the two inputs':
  // float16 1e-3/1e-5, bfloat16 1.6e-2/1e-5, float32 1.3e-6/1e-5, float64 1e-7/1e-7, others exact.
  std::optional<double> rtol;
  std::optional<double> atol;
  bool equal_nan = false;     // NaN matches NaN
  bool check_device = true;   // else `expected` is compared on `actual`'s device
  bool check_dtype = true;    // else both are compared in their promoted dtype
  bool check_stride = false;  // strides must be equal too
  std::optional<std::string> msg;  // replaces the report of any failure
};

// Passes when the shapes (and, as asked, strides, devices and dtypes) match and every element satisfies
// |actual - expected| <= atol + rtol * |expected| (integers and bools: equal). Otherwise throws
// AssertionError with PyTorch's message, for example:
//
//   Tensor-likes are not close!
//
//   Mismatched elements: 3 / 12 (25.0%)
//   Greatest absolute difference: 0.5 at index (1, 2) (up to 1e-05 allowed)
//   Greatest relative difference: 0.25 at index (1, 2) (up to 1.3e-06 allowed)
//
// Only one of rtol and atol given throws ember::Error, as PyTorch's ValueError.
void assert_close(const Tensor& actual, const Tensor& expected, const AssertCloseOptions& options = {});

}  // namespace ember::testing
