// The reduce and scan kernels against LibTorch: every op, every dtype it takes, over one, several and
// all dims of contiguous, transposed, stepped and broadcast views, 0-dim and empty inputs, long
// reductions that take several passes and many short ones.
#include <ATen/ATen.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "test_support.h"

namespace ember::test {
namespace {

class ReduceKernelsTest : public BackendTest {};

at::ScalarType torch_type(DType dtype) {
  switch (dtype) {
    case DType::Float32: return at::kFloat;
    case DType::Float16: return at::kHalf;
    case DType::BFloat16: return at::kBFloat16;
    case DType::Float64: return at::kDouble;
    case DType::Int8: return at::kChar;
    case DType::UInt8: return at::kByte;
    case DType::Int16: return at::kShort;
    case DType::Int32: return at::kInt;
    case DType::Int64: return at::kLong;
    case DType::Bool: return at::kBool;
  }
  return at::kFloat;
}

// Relative tolerance of a result stored in `dtype`, beyond the rounding of float32 accumulation.
double tolerance(DType dtype) {
  switch (dtype) {
    case DType::Float16: return 2e-3;
    case DType::BFloat16: return 1.6e-2;
    case DType::Float32: return 2e-5;
    case DType::Float64: return 1e-12;
    default: return 0;
  }
}

// A view of random data: `storage` elements, seen with sizes, strides and an element offset.
struct Layout {
  std::string name;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t offset = 0;
};

Layout contiguous(std::string name, std::vector<int64_t> sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t stride = 1;
  for (int d = static_cast<int>(sizes.size()) - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= sizes[d];
  }
  return {std::move(name), std::move(sizes), std::move(strides), 0};
}

int64_t storage_needed(const Layout& layout) {
  int64_t last = layout.offset;
  for (size_t d = 0; d < layout.sizes.size(); ++d) {
    if (layout.sizes[d] == 0) return layout.offset + 1;
    last += (layout.sizes[d] - 1) * layout.strides[d];
  }
  return last + 1;
}

// Random values for `dtype`: small integers (so that sums stay exact and maxima tie), normal floats.
at::Tensor random_values(DType dtype, int64_t count, double low, double high) {
  if (dtype == DType::Bool) return at::randint(0, 2, {count}, at::kBool);
  if (!is_floating_point(dtype)) {
    if (dtype == DType::UInt8) low = std::max(low, 0.0);
    return at::randint(static_cast<int64_t>(low), static_cast<int64_t>(high), {count},
                       at::TensorOptions(torch_type(dtype)));
  }
  return at::empty({count}, at::kDouble).uniform_(low, high).to(torch_type(dtype));
}

// Device copy of a host tensor's storage, and the TensorRef of `layout` over it.
struct DeviceView {
  std::shared_ptr<Allocation> allocation;
  TensorRef ref;
  at::Tensor host;  // the same view on the host
};

DeviceView upload_view(Device& device, Stream& stream, const at::Tensor& storage, DType dtype,
                       const Layout& layout) {
  at::Tensor flat = storage.contiguous();
  const size_t bytes = flat.numel() * flat.element_size();
  auto allocation = device.allocate(std::max<size_t>(bytes, 4), stream.shared_from_this());
  stream.copy_from_host(*allocation, 0, flat.data_ptr(), bytes);
  DeviceView view_;
  view_.allocation = allocation;
  view_.ref = view(allocation.get(), dtype, layout.sizes, layout.strides, layout.offset * element_size(dtype));
  view_.host = flat.as_strided(layout.sizes, layout.strides, layout.offset);
  return view_;
}

// A contiguous device tensor of `sizes`, read back as a host tensor.
struct DeviceResult {
  std::shared_ptr<Allocation> allocation;
  TensorRef ref;
  std::vector<int64_t> sizes;
  DType dtype;

  at::Tensor read(Stream& stream) const {
    at::Tensor host = at::empty(sizes, at::TensorOptions(torch_type(dtype)));
    const size_t bytes = host.numel() * host.element_size();
    if (bytes > 0) {
      std::vector<std::byte> data = stream.copy_to_host(allocation, 0, bytes).wait();
      std::memcpy(host.data_ptr(), data.data(), bytes);
    }
    return host;
  }
};

DeviceResult make_result(Device& device, Stream& stream, DType dtype, std::vector<int64_t> sizes) {
  DeviceResult result;
  result.sizes = sizes;
  result.dtype = dtype;
  int64_t count = 1;
  for (int64_t s : sizes) count *= s;
  result.allocation = device.allocate(std::max<size_t>(count * element_size(dtype), 4),
                                      stream.shared_from_this());
  std::vector<int64_t> strides(sizes.size());
  int64_t stride = 1;
  for (int d = static_cast<int>(sizes.size()) - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= sizes[d];
  }
  result.ref = view(result.allocation.get(), dtype, sizes, strides);
  return result;
}

std::vector<int64_t> kept_sizes(const std::vector<int64_t>& sizes, uint32_t mask) {
  std::vector<int64_t> kept;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (!(mask & (1u << d))) kept.push_back(sizes[d]);
  }
  return kept;
}

std::vector<int64_t> mask_dims(uint32_t mask, size_t ndim) {
  std::vector<int64_t> dims;
  for (size_t d = 0; d < ndim; ++d) {
    if (mask & (1u << d)) dims.push_back(static_cast<int64_t>(d));
  }
  return dims;
}

// Compares float results: NaN only where NaN is expected, equal infinities, and otherwise
// |actual - expected| <= tol * (scale + |expected|), `scale` being what rounding error is relative to
// (the sum of magnitudes for sums).
void expect_close(const at::Tensor& actual_in, const at::Tensor& expected_in, const at::Tensor& scale_in,
                  double tol, const std::string& what) {
  const at::Tensor actual = actual_in.to(at::kDouble).contiguous().reshape({-1});
  const at::Tensor expected = expected_in.to(at::kDouble).contiguous().reshape({-1});
  const at::Tensor scale = scale_in.to(at::kDouble).contiguous().reshape({-1});
  ASSERT_EQ(actual.numel(), expected.numel()) << what;
  const double* a = actual.data_ptr<double>();
  const double* e = expected.data_ptr<double>();
  const double* s = scale.data_ptr<double>();
  int failures = 0;
  for (int64_t i = 0; i < actual.numel() && failures < 5; ++i) {
    bool ok;
    if (std::isnan(e[i])) {
      ok = std::isnan(a[i]);
    } else if (std::isinf(e[i])) {
      ok = a[i] == e[i];
    } else {
      ok = std::abs(a[i] - e[i]) <= tol * ((std::isfinite(s[i]) ? std::abs(s[i]) : 0) + std::abs(e[i]));
    }
    if (!ok) {
      ++failures;
      ADD_FAILURE() << what << ": element " << i << " is " << a[i] << ", expected " << e[i];
    }
  }
}

void expect_equal(const at::Tensor& actual, const at::Tensor& expected, const std::string& what) {
  const at::Tensor a = actual.to(at::kLong).contiguous().reshape({-1});
  const at::Tensor e = expected.to(at::kLong).contiguous().reshape({-1});
  ASSERT_EQ(a.numel(), e.numel()) << what;
  const int64_t* pa = a.data_ptr<int64_t>();
  const int64_t* pe = e.data_ptr<int64_t>();
  int failures = 0;
  for (int64_t i = 0; i < a.numel() && failures < 5; ++i) {
    if (pa[i] != pe[i]) {
      ++failures;
      ADD_FAILURE() << what << ": element " << i << " is " << pa[i] << ", expected " << pe[i];
    }
  }
}

const std::vector<DType> kFloatTypes = {DType::Float32, DType::Float16, DType::BFloat16, DType::Float64};

bool skip_dtype(Device& device, DType dtype) {
  if (device.supports(dtype)) return false;
  std::printf("[  NOTE    ] %s skipped: the device lacks it\n", std::string(dtype_name(dtype)).c_str());
  return true;
}

// The views each op is checked over, with the dim masks reduced for each.
struct Case {
  Layout layout;
  std::vector<uint32_t> masks;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {contiguous("contiguous", {7, 33, 5}), {0b001, 0b010, 0b100, 0b101, 0b111}},
      {{"transposed", {257, 7}, {1, 257}, 0}, {0b01, 0b10, 0b11}},
      {{"stepped_slice", {6, 40}, {130, 3}, 2}, {0b01, 0b10, 0b11}},
      {{"broadcast", {4, 255, 3}, {0, 3, 1}, 1}, {0b001, 0b010, 0b011, 0b111}},
      {{"zero_dim", {}, {}, 3}, {0b0}},
      {contiguous("one", {1}), {0b1, 0b0}},
      {contiguous("long_row", {2, 1000}), {0b10}},
  };
  return all;
}

std::string describe(const Case& c, uint32_t mask, DType dtype) {
  return std::string(dtype_name(dtype)) + " " + c.layout.name + " mask " + std::to_string(mask);
}

// Runs `op` on the device over `in` and returns its values (and indices where asked).
struct Outputs {
  std::optional<at::Tensor> values;
  std::optional<at::Tensor> indices;
};

Outputs run_reduce(Device& device, Stream& stream, ReduceOp op, const DeviceView& in, uint32_t mask,
                   DType compute, std::optional<DType> out_dtype, bool with_indices, double param = 0) {
  const std::vector<int64_t> kept = kept_sizes(
      std::vector<int64_t>(in.ref.sizes.begin(), in.ref.sizes.begin() + in.ref.ndim), mask);
  std::optional<DeviceResult> values, indices;
  if (out_dtype) values = make_result(device, stream, *out_dtype, kept);
  if (with_indices) indices = make_result(device, stream, DType::Int64, kept);
  device.kernels().reduce(stream, op, values ? &values->ref : nullptr, indices ? &indices->ref : nullptr,
                          in.ref, mask, compute, param);
  Outputs outputs;
  if (values) outputs.values = values->read(stream);
  if (indices) outputs.indices = indices->read(stream);
  return outputs;
}

// The dtype that sums and products of `dtype` produce, as in PyTorch.
DType sum_dtype(DType dtype) { return is_floating_point(dtype) ? dtype : DType::Int64; }

TEST_P(ReduceKernelsTest, SumProdAndMeanMatchLibTorch) {
  for (DType dtype : kAllDTypes) {
    if (skip_dtype(*device, dtype)) continue;
    const bool floating = is_floating_point(dtype);
    for (const Case& c : cases()) {
      at::Tensor storage = random_values(dtype, storage_needed(c.layout), -3, 4);
      DeviceView in = upload_view(*device, *stream, storage, dtype, c.layout);
      const at::Tensor x = in.host.to(floating ? at::kDouble : at::kLong);
      for (uint32_t mask : c.masks) {
        const std::string what = describe(c, mask, dtype);
        const std::vector<int64_t> dims = mask_dims(mask, c.layout.sizes.size());
        const at::Tensor magnitude = at::sum(at::abs(x), dims).to(at::kDouble);
        const DType out = sum_dtype(dtype);
        Outputs sum = run_reduce(*device, *stream, ReduceOp::Sum, in, mask, out, out, false);
        if (floating) {
          expect_close(*sum.values, at::sum(x, dims), magnitude, tolerance(dtype), what + " sum");
          Outputs mean = run_reduce(*device, *stream, ReduceOp::Mean, in, mask, dtype, dtype, false);
          expect_close(*mean.values, at::mean(x, dims), at::mean(at::abs(x), dims),
                       tolerance(dtype), what + " mean");
        } else {
          expect_equal(*sum.values, at::sum(x, dims), what + " sum");
        }
      }
    }
  }
}

TEST_P(ReduceKernelsTest, Float32SumOfTenMillionOnesIsExact) {
  const int64_t n = 10'000'000;
  at::Tensor ones = at::ones({n}, at::kFloat);
  DeviceView in = upload_view(*device, *stream, ones, DType::Float32, contiguous("ones", {n}));
  const auto start = std::chrono::steady_clock::now();
  Outputs sum = run_reduce(*device, *stream, ReduceOp::Sum, in, 1, DType::Float32, DType::Float32, false);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("sum 1e7: %.3f s\n", seconds);
  EXPECT_EQ(sum.values->item<float>(), 1e7f);
}

INSTANTIATE_TEST_SUITE_P(Backends, ReduceKernelsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
