#pragma once
// The differential-testing oracle: moves tensors between ember and LibTorch (CPU) with identical
// values and layouts, generates random inputs per dtype, and compares with per-dtype tolerances.
#include <ATen/ATen.h>

#include <functional>
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

// Random values suited to `dtype`: normal floats, small signed or unsigned integers, coin flips.
at::Tensor random_torch(at::IntArrayRef sizes, DType dtype, at::Generator& generator);

// A pair of tensors with equal values and equal layout on both sides.
struct Pair {
  Tensor ember;
  at::Tensor torch;
  std::string layout;  // for failure messages
};

// The layouts every op is run on, for logical shape `sizes`: contiguous, transposed (last two dims),
// sliced with step 2 along the last dim, and broadcast (stride 0) along dim 0 where that is a size-1
// expansion. Shapes with fewer dims get the layouts that apply.
std::vector<Pair> layouts(at::IntArrayRef sizes, DType dtype, const std::shared_ptr<Device>& device,
                          at::Generator& generator);
Pair pair_from(const at::Tensor& torch, const std::shared_ptr<Device>& device);

// The shapes every op is run on: 0-dim, empty, sizes that are not multiples of the workgroup size.
std::vector<std::vector<int64_t>> test_shapes();

struct Tolerance {
  double rtol = 0;
  double atol = 0;
};
Tolerance tolerance_for(DType dtype);

// Expects equal dtype, sizes and values within tolerance; NaN matches NaN only at the same place.
void expect_matches(const Tensor& actual, const at::Tensor& expected, Tolerance tolerance = {-1, -1});

}  // namespace ember::test
