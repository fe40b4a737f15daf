// The reduce and scan kernels against LibTorch: every op, every dtype it takes, over one, several and
// all dims of contiguous, transposed, stepped and broadcast views, 0-dim and empty inputs, long
// reductions that take several passes and many short ones.
#include <ATen/ATen.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "runtime/scoped_environment.h"
#include "tests/oracle.h"

namespace ember::test {
namespace {

// Random inputs differ per test but not per run: EMBER_TEST_SEED picks another draw.
class ReduceKernelsTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    const char* seed = std::getenv("EMBER_TEST_SEED");
    at::manual_seed(seed ? std::strtoull(seed, nullptr, 10) : 20240601);
  }
};

// A view of a flat storage: sizes, strides and the offset of its first element, in elements.
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
                       at::TensorOptions(torch_dtype(dtype)));
  }
  return at::empty({count}, at::kDouble).uniform_(low, high).to(torch_dtype(dtype));
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
  view_.ref =
      view(allocation.get(), dtype, layout.sizes, layout.strides, layout.offset * element_size(dtype));
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
    at::Tensor host = at::empty(sizes, at::TensorOptions(torch_dtype(dtype)));
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
  result.allocation =
      device.allocate(std::max<size_t>(count * element_size(dtype), 4), stream.shared_from_this());
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

// Compares float results: NaN only where NaN is expected, equal infinities, and otherwise
// |actual - expected| <= tol * (scale + |expected|), `scale` being what rounding error is relative to
// (the sum of magnitudes for sums).
void expect_close(const at::Tensor& actual_in, const at::Tensor& expected_in, const at::Tensor& scale_in,
                  double tol, const std::string& what, double atol = 0) {
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
      ok =
          std::abs(a[i] - e[i]) <= tol * ((std::isfinite(s[i]) ? std::abs(s[i]) : 0) + std::abs(e[i])) + atol;
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

// The spacing of `dtype`'s subnormals, where relative tolerances stop making sense.
double subnormal_step(DType dtype) {
  switch (dtype) {
    case DType::Float16: return std::ldexp(1.0, -24);
    case DType::BFloat16: return std::ldexp(1.0, -133);
    case DType::Float32: return std::ldexp(1.0, -149);
    default: return 0;
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
      // Contiguous runs of whole blocks of four, which 32-bit inputs read a block at a time, one of them
      // in two reduced dims; and the same rows off the block grid, which read element by element.
      {contiguous("blocks", {3, 4, 8}), {0b100, 0b101, 0b110, 0b111}},
      {{"block_aligned_rows", {5, 12}, {16, 1}, 4}, {0b10, 0b11}},
      {{"unaligned_rows", {5, 12}, {16, 1}, 1}, {0b10, 0b11}},
      // Reductions over the outer dims of rows of whole blocks of four, which 32-bit inputs read four
      // outputs at a time (reduce.comp's READS_COLUMNS): one pass, one whose groups span a subgroup and
      // chunks that merge their states in a second pass, and rows off the block grid, read as before.
      {contiguous("columns", {9, 3, 8}), {0b001, 0b011, 0b010}},
      {contiguous("long_columns", {1500, 8}), {0b01}},
      {{"aligned_columns", {6, 8}, {12, 1}, 4}, {0b01}},
      {{"unaligned_columns", {6, 8}, {12, 1}, 2}, {0b01}},
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
  const std::vector<int64_t> kept =
      kept_sizes(std::vector<int64_t>(in.ref.sizes.begin(), in.ref.sizes.begin() + in.ref.ndim), mask);
  std::optional<DeviceResult> values, indices;
  if (out_dtype) values = make_result(device, stream, *out_dtype, kept);
  if (with_indices) indices = make_result(device, stream, DType::Int64, kept);
  ReduceArgs args{.op = op, .in = in.ref, .reduce_mask = mask, .compute = compute, .correction = param, .p = param};
  if (values) args.out = values->ref;
  if (indices) args.indices = indices->ref;
  device.kernels().get<ReduceKernels>().reduce(stream, args);
  Outputs outputs;
  if (values) outputs.values = values->read(stream);
  if (indices) outputs.indices = indices->read(stream);
  return outputs;
}

// x seen as its kept dims followed by one dim that holds every reduced element in the input's order,
// which is the order the arg-ops count in. Reducing its last dim is the reduction over `mask`.
at::Tensor flatten_reduced(const at::Tensor& x, uint32_t mask) {
  std::vector<int64_t> order, shape;
  int64_t reduced = 1;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (!(mask & (1u << d))) {
      order.push_back(d);
      shape.push_back(x.size(d));
    }
  }
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (mask & (1u << d)) {
      order.push_back(d);
      reduced *= x.size(d);
    }
  }
  shape.push_back(reduced);
  return x.permute(order).reshape(shape);
}

// Sets about `fraction` of the elements to `value`.
at::Tensor sprinkle(at::Tensor values, double fraction, double value) {
  const at::Tensor where = at::rand({values.numel()}, at::kDouble) < fraction;
  return values.masked_fill(where, value);
}

// The dtype that sums and products of `dtype` produce, as in PyTorch.
DType sum_dtype(DType dtype) { return is_floating_point(dtype) ? dtype : DType::Int64; }

// One float reduction to check: what LibTorch gives over the flattened dim (a double tensor of
// kept sizes + [reduced]), and what rounding error is relative to besides the result itself.
struct FloatCheck {
  std::string label;
  ReduceOp op;
  double param;
  std::function<at::Tensor(const at::Tensor&)> expected;
  std::function<at::Tensor(const at::Tensor&)> scale;
  double float64_tolerance = 1e-12;
};

at::Tensor no_scale(const at::Tensor& flat) {
  return at::zeros(flat.sizes().slice(0, flat.dim() - 1), at::kDouble);
}

// Uploads values drawn by `draw` for every float dtype and layout and runs each check over each mask.
void check_float_reductions(Device& device, Stream& stream, const std::vector<FloatCheck>& checks,
                            const std::function<at::Tensor(DType, int64_t)>& draw) {
  for (DType dtype : kFloatTypes) {
    if (skip_dtype(device, dtype)) continue;
    for (const Case& c : cases()) {
      DeviceView in = upload_view(device, stream, draw(dtype, storage_needed(c.layout)), dtype, c.layout);
      const at::Tensor x = in.host.to(at::kDouble);
      for (uint32_t mask : c.masks) {
        const at::Tensor flat = flatten_reduced(x, mask);
        for (const FloatCheck& check : checks) {
          const std::string what = describe(c, mask, dtype) + " " + check.label;
          Outputs result = run_reduce(device, stream, check.op, in, mask, dtype, dtype, false, check.param);
          const double tol = dtype == DType::Float64 ? check.float64_tolerance : tolerance_for(dtype).rtol;
          // Rounded to the result's dtype first, so that both sides overflow to inf alike.
          expect_close(*result.values, check.expected(flat).to(torch_dtype(dtype)), check.scale(flat), tol,
                       what, subnormal_step(dtype));
        }
      }
    }
  }
}

TEST_P(ReduceKernelsTest, IntegerAndBoolSumsAndProductsAreExact) {
  for (DType dtype : kAllDTypes) {
    if (is_floating_point(dtype) || skip_dtype(*device, dtype)) continue;
    for (const Case& c : cases()) {
      for (bool product : {false, true}) {
        // Products of 1 and 2 wrap in int64 as PyTorch's do, and wrapping is exact in any order.
        at::Tensor storage = product ? random_values(dtype, storage_needed(c.layout), 1, 3)
                                     : random_values(dtype, storage_needed(c.layout), -50, 50);
        DeviceView in = upload_view(*device, *stream, storage, dtype, c.layout);
        const at::Tensor x = in.host.to(at::kLong);
        for (uint32_t mask : c.masks) {
          const std::string what = describe(c, mask, dtype) + (product ? " prod" : " sum");
          const at::Tensor flat = flatten_reduced(x, mask);
          const ReduceOp op = product ? ReduceOp::Prod : ReduceOp::Sum;
          Outputs result = run_reduce(*device, *stream, op, in, mask, DType::Int64, DType::Int64, false);
          expect_equal(*result.values, product ? at::prod(flat, -1) : at::sum(flat, -1), what);
        }
      }
    }
  }
}

TEST_P(ReduceKernelsTest, FloatSumsMeansVariancesAndNormsMatchLibTorch) {
  const auto abs_sum = [](const at::Tensor& f) { return at::sum(at::abs(f), -1); };
  const auto abs_mean = [](const at::Tensor& f) { return at::mean(at::abs(f), -1); };
  std::vector<FloatCheck> checks = {
      {"sum", ReduceOp::Sum, 0, [](const at::Tensor& f) { return at::sum(f, -1); }, abs_sum},
      {"mean", ReduceOp::Mean, 0, [](const at::Tensor& f) { return at::mean(f, -1); }, abs_mean},
      {"nansum", ReduceOp::NanSum, 0, [](const at::Tensor& f) { return at::nansum(f, -1); }, abs_sum},
      {"logsumexp", ReduceOp::LogSumExp, 0, [](const at::Tensor& f) { return at::logsumexp(f, -1); },
       [](const at::Tensor& f) { return 1 + std::get<0>(at::max(at::abs(f), -1)); }, 1e-12},
  };
  for (int64_t correction : {0, 1, 2}) {
    checks.push_back({"var correction " + std::to_string(correction), ReduceOp::Var,
                      static_cast<double>(correction),
                      [correction](const at::Tensor& f) {
                        return at::var(f, at::IntArrayRef{-1}, c10::optional<int64_t>(correction), false);
                      },
                      no_scale});
  }
  checks.push_back(
      {"std correction 1", ReduceOp::Std, 1,
       [](const at::Tensor& f) { return at::std(f, at::IntArrayRef{-1}, c10::optional<int64_t>(1), false); },
       no_scale});
  const double inf = std::numeric_limits<double>::infinity();
  for (double p : {0.0, 1.0, 2.0, inf, -inf, 3.0, 0.5}) {
    checks.push_back(
        {"norm " + std::to_string(p), ReduceOp::Norm, p,
         [p](const at::Tensor& f) { return at::linalg_vector_norm(f, p, at::IntArrayRef{-1}, false); },
         no_scale, 1e-12});
  }
  check_float_reductions(*device, *stream, checks,
                         [](DType dtype, int64_t count) { return random_values(dtype, count, -3, 4); });
  // Products of values near 1 neither overflow nor vanish over a thousand elements.
  check_float_reductions(
      *device, *stream,
      {{"prod", ReduceOp::Prod, 0, [](const at::Tensor& f) { return at::prod(f, -1); }, no_scale}},
      [](DType dtype, int64_t count) { return random_values(dtype, count, 0.9, 1.1); });
}

// Float32 inputs read in blocks of four go through a texel view on Vulkan where the window allows it
// (reduce.comp's TEXEL_READS), and through storage buffers with EMBER_TEXEL_READS=0: both, over every
// layout (the "blocks" cases take the block reads).
TEST_P(ReduceKernelsTest, BlockReadsThroughTexelsAndStorageBuffers) {
  for (const char* texel_reads : {"1", "0"}) {
    SCOPED_TRACE(std::string("EMBER_TEXEL_READS=") + texel_reads);
    ScopedEnvironment scoped_texels("EMBER_TEXEL_READS", texel_reads);
    check_float_reductions(
        *device, *stream,
        {{"sum", ReduceOp::Sum, 0, [](const at::Tensor& f) { return at::sum(f, -1); },
          [](const at::Tensor& f) { return at::sum(at::abs(f), -1); }},
         {"var", ReduceOp::Var, 1,
          [](const at::Tensor& f) { return at::var(f, at::IntArrayRef{-1}, c10::optional<int64_t>(1), false); },
          no_scale}},
        [](DType dtype, int64_t count) { return random_values(dtype, count, -3, 4); });
  }
}

TEST_P(ReduceKernelsTest, NaNsPropagateOrAreSkippedAsInLibTorch) {
  const auto nan_abs_sum = [](const at::Tensor& f) { return at::nansum(at::abs(f), -1); };
  const std::vector<FloatCheck> checks = {
      {"sum", ReduceOp::Sum, 0, [](const at::Tensor& f) { return at::sum(f, -1); }, nan_abs_sum},
      {"nansum", ReduceOp::NanSum, 0, [](const at::Tensor& f) { return at::nansum(f, -1); }, nan_abs_sum},
      {"nanmean", ReduceOp::NanMean, 0, [](const at::Tensor& f) { return at::nanmean(f, -1); },
       [](const at::Tensor& f) { return at::nanmean(at::abs(f), -1); }},
      {"var", ReduceOp::Var, 1,
       [](const at::Tensor& f) { return at::var(f, at::IntArrayRef{-1}, c10::optional<int64_t>(1), false); },
       no_scale},
      {"amax", ReduceOp::Amax, 0, [](const at::Tensor& f) { return at::amax(f, -1); }, no_scale},
      {"amin", ReduceOp::Amin, 0, [](const at::Tensor& f) { return at::amin(f, -1); }, no_scale},
      {"norm inf", ReduceOp::Norm, std::numeric_limits<double>::infinity(),
       [](const at::Tensor& f) {
         return at::linalg_vector_norm(f, std::numeric_limits<double>::infinity(), at::IntArrayRef{-1},
                                       false);
       },
       no_scale},
      {"logsumexp", ReduceOp::LogSumExp, 0, [](const at::Tensor& f) { return at::logsumexp(f, -1); },
       [](const at::Tensor& f) { return 1 + std::get<0>(at::max(at::abs(f), -1)); }, 1e-12},
  };
  check_float_reductions(*device, *stream, checks, [](DType dtype, int64_t count) {
    return sprinkle(random_values(DType::Float64, count, -3, 4), 0.02, NAN).to(torch_dtype(dtype));
  });
}

TEST_P(ReduceKernelsTest, LogSumExpOfInfinitiesMatchesLibTorch) {
  const double inf = std::numeric_limits<double>::infinity();
  // Rows: all -inf, one +inf, +inf and -inf, both infinities and NaN, finite with -inf, finite.
  const at::Tensor rows = at::tensor({-inf, -inf, -inf, 1.0, inf, 2.0, inf, -inf, 3.0, inf, -inf, NAN, -inf,
                                      5.0, -inf, 1.0, 2.0, 3.0},
                                     at::kDouble)
                              .reshape({6, 3});
  for (DType dtype : kFloatTypes) {
    if (skip_dtype(*device, dtype)) continue;
    DeviceView in = upload_view(*device, *stream, rows.reshape({-1}).to(torch_dtype(dtype)), dtype,
                                contiguous("rows", {6, 3}));
    Outputs result = run_reduce(*device, *stream, ReduceOp::LogSumExp, in, 0b10, dtype, dtype, false);
    expect_close(*result.values, at::logsumexp(in.host.to(at::kDouble), 1), at::ones({6}, at::kDouble),
                 dtype == DType::Float64 ? 1e-12 : tolerance_for(dtype).rtol, std::string(dtype_name(dtype)));
  }
}

TEST_P(ReduceKernelsTest, MaxMinAndArgOpsReportTheFirstOccurrenceAndNaN) {
  for (DType dtype : kAllDTypes) {
    if (skip_dtype(*device, dtype)) continue;
    const bool floating = is_floating_point(dtype);
    for (const Case& c : cases()) {
      // Few distinct values, so that maxima tie; NaN in a few places for the float types.
      at::Tensor storage = random_values(DType::Int64, storage_needed(c.layout), -3, 4).to(at::kDouble) / 2;
      if (floating) storage = sprinkle(storage, 0.01, NAN);
      DeviceView in = upload_view(*device, *stream, storage.to(torch_dtype(dtype)), dtype, c.layout);
      const at::Tensor x = in.host.to(floating ? at::kDouble : at::kLong);
      for (uint32_t mask : c.masks) {
        const at::Tensor flat = flatten_reduced(x, mask);
        if (flat.size(-1) == 0) continue;
        for (bool is_max : {true, false}) {
          const std::string what = describe(c, mask, dtype) + (is_max ? " max" : " min");
          const auto [values, indices] = is_max ? at::max(flat, -1) : at::min(flat, -1);
          Outputs both = run_reduce(*device, *stream, is_max ? ReduceOp::Max : ReduceOp::Min, in, mask, dtype,
                                    dtype, true);
          expect_close(*both.values, values, no_scale(flat), 0, what + " values");
          expect_equal(*both.indices, indices, what + " indices");
          Outputs arg = run_reduce(*device, *stream, is_max ? ReduceOp::Argmax : ReduceOp::Argmin, in, mask,
                                   dtype, std::nullopt, true);
          expect_equal(*arg.indices, indices, what + " arg");
          Outputs bound = run_reduce(*device, *stream, is_max ? ReduceOp::Amax : ReduceOp::Amin, in, mask,
                                     dtype, dtype, false);
          expect_close(*bound.values, is_max ? at::amax(flat, -1) : at::amin(flat, -1), no_scale(flat), 0,
                       what + " amax/amin");
        }
      }
    }
  }
}

TEST_P(ReduceKernelsTest, AllAnyAndCountNonzeroForEveryDtype) {
  for (DType dtype : kAllDTypes) {
    if (skip_dtype(*device, dtype)) continue;
    for (const Case& c : cases()) {
      // Zeros are rare so that short rows are sometimes all true; NaN counts as true.
      at::Tensor storage = sprinkle(random_values(DType::Float64, storage_needed(c.layout), 1, 3), 0.05, 0);
      if (is_floating_point(dtype)) storage = sprinkle(storage, 0.01, NAN);
      if (dtype == DType::Float16 || dtype == DType::BFloat16 || dtype == DType::Float32)
        storage = storage / 1e6;
      DeviceView in = upload_view(*device, *stream, storage.to(torch_dtype(dtype)), dtype, c.layout);
      for (uint32_t mask : c.masks) {
        const at::Tensor flat = flatten_reduced(in.host, mask);
        const std::string what = describe(c, mask, dtype);
        Outputs all = run_reduce(*device, *stream, ReduceOp::All, in, mask, dtype, DType::Bool, false);
        expect_equal(*all.values, at::all(flat, -1), what + " all");
        Outputs any = run_reduce(*device, *stream, ReduceOp::Any, in, mask, dtype, DType::Bool, false);
        expect_equal(*any.values, at::any(flat, -1), what + " any");
        Outputs count =
            run_reduce(*device, *stream, ReduceOp::CountNonzero, in, mask, dtype, DType::Int64, false);
        expect_equal(*count.values, at::count_nonzero(flat, c10::optional<int64_t>(-1)),
                     what + " count_nonzero");
      }
    }
  }
}

TEST_P(ReduceKernelsTest, EmptyReductionsGiveTheIdentities) {
  const at::Tensor empty = at::empty({3, 0}, at::kFloat);
  DeviceView in =
      upload_view(*device, *stream, at::empty({0}, at::kFloat), DType::Float32, {"empty", {3, 0}, {0, 1}, 0});
  struct Expectation {
    ReduceOp op;
    DType out;
    at::Tensor expected;
  };
  const std::vector<Expectation> expectations = {
      {ReduceOp::Sum, DType::Float32, at::sum(empty, 1)},
      {ReduceOp::Prod, DType::Float32, at::prod(empty, 1)},
      {ReduceOp::Mean, DType::Float32, at::mean(empty, 1)},
      {ReduceOp::NanSum, DType::Float32, at::nansum(empty, 1)},
      {ReduceOp::NanMean, DType::Float32, at::nanmean(empty, 1)},
      {ReduceOp::Var, DType::Float32, at::var(empty, at::IntArrayRef{1}, c10::optional<int64_t>(1), false)},
      {ReduceOp::Std, DType::Float32, at::std(empty, at::IntArrayRef{1}, c10::optional<int64_t>(1), false)},
      {ReduceOp::LogSumExp, DType::Float32, at::logsumexp(empty, 1)},
      {ReduceOp::Norm, DType::Float32, at::linalg_vector_norm(empty, 2, at::IntArrayRef{1}, false)},
      {ReduceOp::All, DType::Bool, at::all(empty, 1)},
      {ReduceOp::Any, DType::Bool, at::any(empty, 1)},
      {ReduceOp::CountNonzero, DType::Int64, at::count_nonzero(empty, c10::optional<int64_t>(1))},
  };
  for (const Expectation& e : expectations) {
    const std::string what(reduce_op_name(e.op));
    Outputs result = run_reduce(*device, *stream, e.op, in, 0b10, DType::Float32, e.out, false, 2);
    if (e.out == DType::Float32) {
      expect_close(*result.values, e.expected, no_scale(e.expected.unsqueeze(-1)), 0, what);
    } else {
      expect_equal(*result.values, e.expected, what);
    }
    // Reducing the non-empty dim leaves no outputs; reducing both gives one.
    Outputs none = run_reduce(*device, *stream, e.op, in, 0b01, DType::Float32, e.out, false, 2);
    EXPECT_EQ(none.values->numel(), 0) << what;
    Outputs one = run_reduce(*device, *stream, e.op, in, 0b11, DType::Float32, e.out, false, 2);
    EXPECT_EQ(one.values->numel(), 1) << what;
  }
  EXPECT_THROW(run_reduce(*device, *stream, ReduceOp::Max, in, 0b10, DType::Float32, DType::Float32, true),
               Error);
}

TEST_P(ReduceKernelsTest, Float32SumOfTenMillionOnesIsExact) {
  const int64_t n = 10'000'000;
  DeviceView in =
      upload_view(*device, *stream, at::ones({n}, at::kFloat), DType::Float32, contiguous("ones", {n}));
  Outputs sum = run_reduce(*device, *stream, ReduceOp::Sum, in, 1, DType::Float32, DType::Float32, false);
  EXPECT_EQ(sum.values->item<float>(), 1e7f);
}

TEST_P(ReduceKernelsTest, Float32SumOfAMillionRandomValuesIsNearFloat64) {
  const int64_t n = int64_t{1} << 20;
  // Positive values are the hard case for sequential sums: the total grows and each addition rounds.
  const at::Tensor values = at::rand({n}, at::kFloat);
  DeviceView in = upload_view(*device, *stream, values, DType::Float32, contiguous("random", {n}));
  Outputs sum = run_reduce(*device, *stream, ReduceOp::Sum, in, 1, DType::Float32, DType::Float32, false);
  const double exact = at::sum(values.to(at::kDouble)).item<double>();
  const double error = std::abs(sum.values->item<float>() - exact) / exact;
  // A sequential float32 sum of these is off by about 5e-6; chains of 64 under a tree stay far below.
  EXPECT_LT(error, 1e-6) << "relative error " << error;
}

TEST_P(ReduceKernelsTest, LongReductionsMergePartialStatesAcrossPasses) {
  // 100000 and a million elements per output take two passes.
  const std::vector<std::pair<Layout, uint32_t>> shapes = {
      {contiguous("rows", {3, 100000}), 0b10},
      {{"columns", {100000, 3}, {1, 100000}, 0}, 0b01},
      {contiguous("million", {1000000}), 0b1},
  };
  for (const auto& [layout, mask] : shapes) {
    const at::Tensor storage = at::round(at::empty({storage_needed(layout)}, at::kFloat).uniform_(-8, 8)) / 4;
    DeviceView in = upload_view(*device, *stream, storage, DType::Float32, layout);
    const at::Tensor flat = flatten_reduced(in.host.to(at::kDouble), mask);
    const std::string what = layout.name;
    Outputs sum =
        run_reduce(*device, *stream, ReduceOp::Sum, in, mask, DType::Float32, DType::Float32, false);
    expect_close(*sum.values, at::sum(flat, -1), at::sum(at::abs(flat), -1), 1e-6, what + " sum");
    Outputs max = run_reduce(*device, *stream, ReduceOp::Max, in, mask, DType::Float32, DType::Float32, true);
    const auto [values, indices] = at::max(flat, -1);
    expect_close(*max.values, values, no_scale(flat), 0, what + " max");
    expect_equal(*max.indices, indices, what + " max indices");
    Outputs var =
        run_reduce(*device, *stream, ReduceOp::Var, in, mask, DType::Float32, DType::Float32, false, 1);
    expect_close(*var.values, at::var(flat, at::IntArrayRef{-1}, c10::optional<int64_t>(1), false),
                 no_scale(flat), 1e-5, what + " var");
    Outputs lse =
        run_reduce(*device, *stream, ReduceOp::LogSumExp, in, mask, DType::Float32, DType::Float32, false);
    expect_close(*lse.values, at::logsumexp(flat, -1), no_scale(flat), 1e-5, what + " logsumexp");
    Outputs count =
        run_reduce(*device, *stream, ReduceOp::CountNonzero, in, mask, DType::Float32, DType::Int64, false);
    expect_equal(*count.values, at::count_nonzero(flat, c10::optional<int64_t>(-1)), what + " count_nonzero");
  }
}

TEST_P(ReduceKernelsTest, ThreePassReductionOfABroadcastView) {
  // 70000 copies of one row of 1000: 7e7 elements, past the 8192^2 that two passes reach, in 4 KB.
  const int64_t copies = 70000;
  const at::Tensor row = at::round(at::empty({1000}, at::kFloat).uniform_(-8, 8)) / 4;
  DeviceView in =
      upload_view(*device, *stream, row, DType::Float32, {"broadcast", {copies, 1000}, {0, 1}, 0});
  const at::Tensor x = row.to(at::kDouble);
  Outputs sum = run_reduce(*device, *stream, ReduceOp::Sum, in, 0b11, DType::Float32, DType::Float32, false);
  expect_close(*sum.values, at::sum(x) * copies, at::sum(at::abs(x)) * copies, 1e-6, "sum");
  Outputs max = run_reduce(*device, *stream, ReduceOp::Argmax, in, 0b11, DType::Float32, std::nullopt, true);
  expect_equal(*max.indices, at::argmax(x), "argmax: the first copy's");
  Outputs var =
      run_reduce(*device, *stream, ReduceOp::Var, in, 0b11, DType::Float32, DType::Float32, false, 1);
  const double n = static_cast<double>(copies * 1000);
  const at::Tensor expected_var =
      at::var(x, at::IntArrayRef{0}, c10::optional<int64_t>(0), false) * n / (n - 1);
  expect_close(*var.values, expected_var, at::zeros({}, at::kDouble), 1e-5, "var");
}

TEST_P(ReduceKernelsTest, ManyShortReductions) {
  const at::Tensor storage = at::randn({100000 * 10}, at::kFloat);
  for (const Layout& layout :
       {contiguous("rows", {100000, 10}), Layout{"columns", {100000, 10}, {1, 100000}, 0}}) {
    DeviceView in = upload_view(*device, *stream, storage, DType::Float32, layout);
    const at::Tensor x = in.host.to(at::kDouble);
    Outputs sum =
        run_reduce(*device, *stream, ReduceOp::Sum, in, 0b10, DType::Float32, DType::Float32, false);
    expect_close(*sum.values, at::sum(x, 1), at::sum(at::abs(x), 1), 1e-6, layout.name + " sum");
    Outputs min = run_reduce(*device, *stream, ReduceOp::Min, in, 0b10, DType::Float32, DType::Float32, true);
    const auto [values, indices] = at::min(x, 1);
    expect_equal(*min.indices, indices, layout.name + " min indices");
    Outputs std =
        run_reduce(*device, *stream, ReduceOp::Std, in, 0b10, DType::Float32, DType::Float32, false, 1);
    expect_close(*std.values, at::std(x, at::IntArrayRef{1}, c10::optional<int64_t>(1), false), no_scale(x),
                 1e-5, layout.name + " std");
  }
}

TEST_P(ReduceKernelsTest, DimsThatCannotMergeAreSplitIntoSeveralLaunches) {
  // Sixteen dims of two, every other one reduced: eight kept and eight reduced dims that no merging
  // joins, more than one launch's push constants hold.
  std::vector<int64_t> sizes(16, 2);
  const Layout layout = contiguous("sixteen_dims", sizes);
  const at::Tensor storage = at::randn({1 << 16}, at::kFloat);
  DeviceView in = upload_view(*device, *stream, storage, DType::Float32, layout);
  const at::Tensor x = in.host.to(at::kDouble);
  for (uint32_t mask : {0xAAAAu, 0x5555u}) {
    const at::Tensor flat = flatten_reduced(x, mask);
    Outputs max = run_reduce(*device, *stream, ReduceOp::Max, in, mask, DType::Float32, DType::Float32, true);
    const auto [values, indices] = at::max(flat, -1);
    expect_equal(*max.indices, indices.reshape({-1}), "mask " + std::to_string(mask));
    Outputs sum =
        run_reduce(*device, *stream, ReduceOp::Sum, in, mask, DType::Float32, DType::Float32, false);
    expect_close(*sum.values, at::sum(flat, -1), at::sum(at::abs(flat), -1), 1e-5, "sum");
  }
}

TEST_P(ReduceKernelsTest, ReduceAndScanRejectWhatTheyCannotDo) {
  DeviceView in =
      upload_view(*device, *stream, at::ones({6}, at::kInt), DType::Int32, contiguous("ints", {2, 3}));
  DeviceResult out = make_result(*device, *stream, DType::Int32, {2});
  DeviceResult wrong = make_result(*device, *stream, DType::Int32, {3});
  ReduceKernels& kernels = device->kernels().get<ReduceKernels>();
  auto reduce = [&](ReduceOp op, std::optional<TensorRef> out, uint32_t mask) {
    kernels.reduce(*stream, {.op = op, .out = out, .in = in.ref, .reduce_mask = mask, .compute = DType::Int32});
  };
  auto scan = [&](ScanOp op, const TensorRef& out, int dim) {
    kernels.scan(*stream, {.op = op, .out = out, .in = in.ref, .dim = dim, .compute = DType::Int32});
  };
  EXPECT_THROW(reduce(ReduceOp::Mean, out.ref, 0b10), Error);
  EXPECT_THROW(reduce(ReduceOp::Argmax, std::nullopt, 0b10), Error);
  EXPECT_THROW(reduce(ReduceOp::Sum, wrong.ref, 0b10), Error);
  EXPECT_THROW(reduce(ReduceOp::Sum, out.ref, 0b100), Error);
  DeviceResult same = make_result(*device, *stream, DType::Int32, {2, 3});
  EXPECT_THROW(scan(ScanOp::LogCumSumExp, same.ref, 1), Error);
  EXPECT_THROW(scan(ScanOp::CumMax, same.ref, 1), Error);
  EXPECT_THROW(scan(ScanOp::CumSum, same.ref, 2), Error);
  EXPECT_THROW(scan(ScanOp::CumSum, wrong.ref, 1), Error);
}

// ---- scans ----

struct ScanCase {
  Layout layout;
  std::vector<int> dims;
};

const std::vector<ScanCase>& scan_cases() {
  static const std::vector<ScanCase> all = {
      {contiguous("contiguous", {7, 33, 5}), {0, 1, 2}},
      {{"transposed", {257, 7}, {1, 257}, 0}, {0, 1}},
      {{"stepped_slice", {6, 40}, {130, 3}, 2}, {0, 1}},
      {{"broadcast", {4, 255, 3}, {0, 3, 1}, 1}, {0, 1}},
      {{"zero_dim", {}, {}, 3}, {0}},
      {contiguous("long_row", {2, 3000}), {1}},
  };
  return all;
}

at::Tensor torch_scan(ScanOp op, const at::Tensor& x, int64_t dim, at::Tensor* indices) {
  switch (op) {
    case ScanOp::CumSum: return at::cumsum(x, dim);
    case ScanOp::CumProd: return at::cumprod(x, dim);
    case ScanOp::LogCumSumExp: return at::logcumsumexp(x, dim);
    case ScanOp::CumMax:
    case ScanOp::CumMin: {
      auto [values, idx] = op == ScanOp::CumMax ? at::cummax(x, dim) : at::cummin(x, dim);
      *indices = idx;
      return values;
    }
  }
  return x;
}

// Runs a scan into outputs whose dims are reversed in memory, so that writes are strided too.
Outputs run_scan(Device& device, Stream& stream, ScanOp op, const DeviceView& in, int dim, DType compute,
                 DType out_dtype) {
  const std::vector<int64_t> sizes(in.ref.sizes.begin(), in.ref.sizes.begin() + in.ref.ndim);
  std::vector<int64_t> reversed(sizes.rbegin(), sizes.rend());
  DeviceResult values = make_result(device, stream, out_dtype, reversed);
  DeviceResult indices = make_result(device, stream, DType::Int64, reversed);
  auto transpose = [&](TensorRef ref) {
    TensorRef t = ref;
    for (int d = 0; d < ref.ndim; ++d) {
      t.sizes[d] = ref.sizes[ref.ndim - 1 - d];
      t.strides[d] = ref.strides[ref.ndim - 1 - d];
    }
    return t;
  };
  const bool with_indices = op == ScanOp::CumMax || op == ScanOp::CumMin;
  ScanArgs args{.op = op, .out = transpose(values.ref), .in = in.ref, .dim = dim, .compute = compute};
  if (with_indices) args.indices = transpose(indices.ref);
  device.kernels().get<ReduceKernels>().scan(stream, args);
  std::vector<int64_t> back(sizes.size());
  for (size_t d = 0; d < sizes.size(); ++d) back[d] = static_cast<int64_t>(sizes.size() - 1 - d);
  Outputs outputs;
  outputs.values = values.read(stream).permute(back);
  if (with_indices) outputs.indices = indices.read(stream).permute(back);
  return outputs;
}

TEST_P(ReduceKernelsTest, ScansMatchLibTorchForEveryDtype) {
  for (DType dtype : kAllDTypes) {
    if (skip_dtype(*device, dtype)) continue;
    const bool floating = is_floating_point(dtype);
    for (const ScanCase& c : scan_cases()) {
      const int64_t storage_size = storage_needed(c.layout);
      // Sums see a wide range; products values near 1 (floats) or 1 and 2 (integers, which wrap
      // exactly); max and min ties and NaN.
      const at::Tensor wide = random_values(floating ? DType::Float64 : dtype, storage_size, -3, 4);
      const at::Tensor near_one = floating ? random_values(DType::Float64, storage_size, 0.9, 1.1)
                                           : random_values(dtype, storage_size, 1, 3);
      at::Tensor ties = random_values(DType::Int64, storage_size, -3, 4).to(at::kDouble) / 2;
      if (floating) ties = sprinkle(ties, 0.01, NAN);
      for (ScanOp op :
           {ScanOp::CumSum, ScanOp::CumProd, ScanOp::CumMax, ScanOp::CumMin, ScanOp::LogCumSumExp}) {
        if (op == ScanOp::LogCumSumExp && !floating) continue;
        const bool extremum = op == ScanOp::CumMax || op == ScanOp::CumMin;
        const at::Tensor& data = op == ScanOp::CumProd ? near_one : extremum ? ties : wide;
        DeviceView in = upload_view(*device, *stream, data.to(torch_dtype(dtype)), dtype, c.layout);
        const at::Tensor x = in.host.to(floating ? at::kDouble : at::kLong);
        // Integer sums and products go to int64, as PyTorch's do; the rest keep the input's dtype.
        const DType out = extremum ? dtype : sum_dtype(dtype);
        for (int dim : c.dims) {
          const std::string what = std::string(dtype_name(dtype)) + " " + c.layout.name + " dim " +
                                   std::to_string(dim) + " " + std::string(scan_op_name(op));
          Outputs result = run_scan(*device, *stream, op, in, dim, out, out);
          at::Tensor indices;
          const at::Tensor expected = torch_scan(op, x, x.dim() == 0 ? 0 : dim, &indices);
          if (!floating) {
            expect_equal(*result.values, expected, what);
          } else if (op == ScanOp::CumSum) {
            expect_close(*result.values, expected, at::cumsum(at::abs(x), x.dim() == 0 ? 0 : dim),
                         tolerance_for(dtype).rtol, what);
          } else {
            expect_close(*result.values, expected.to(torch_dtype(dtype)),
                         op == ScanOp::LogCumSumExp ? at::ones_like(x) : at::zeros_like(x),
                         dtype == DType::Float64 && op == ScanOp::LogCumSumExp ? 1e-12 : tolerance_for(dtype).rtol,
                         what, subnormal_step(dtype));
          }
          if (extremum) expect_equal(*result.indices, indices, what + " indices");
        }
      }
    }
  }
}

TEST_P(ReduceKernelsTest, LogCumSumExpOfInfinities) {
  const double inf = std::numeric_limits<double>::infinity();
  const at::Tensor x = at::tensor({-inf, -inf, 1.0, inf, 2.0, -inf, NAN, 3.0}, at::kFloat);
  DeviceView in = upload_view(*device, *stream, x, DType::Float32, contiguous("row", {8}));
  Outputs result = run_scan(*device, *stream, ScanOp::LogCumSumExp, in, 0, DType::Float32, DType::Float32);
  expect_close(*result.values, at::logcumsumexp(x.to(at::kDouble), 0), at::ones({8}, at::kDouble), 1e-6,
               "row");
}

TEST_P(ReduceKernelsTest, LongAndManyShortScans) {
  // A million-element row and three long columns are cut into chunks that separate workgroups scan;
  // many short rows take one invocation or a few each.
  const std::vector<std::pair<Layout, int>> shapes = {
      {contiguous("million", {1, 1000000}), 1},
      {{"long_columns", {200000, 3}, {1, 200000}, 0}, 0},
      {contiguous("short_rows", {100000, 10}), 1},
      {{"short_columns", {100000, 10}, {1, 100000}, 0}, 1},
  };
  for (const auto& [layout, dim] : shapes) {
    // Few distinct values, so that maxima tie across chunks.
    const at::Tensor storage =
        at::round(at::empty({storage_needed(layout)}, at::kDouble).uniform_(-8, 8)) / 4;
    const std::string what = layout.name;
    DeviceView in = upload_view(*device, *stream, storage.to(at::kFloat), DType::Float32, layout);
    const at::Tensor x = in.host.to(at::kDouble);
    Outputs sum = run_scan(*device, *stream, ScanOp::CumSum, in, dim, DType::Float32, DType::Float32);
    expect_close(*sum.values, at::cumsum(x, dim), at::cumsum(at::abs(x), dim), 1e-6, what + " cumsum");
    Outputs max = run_scan(*device, *stream, ScanOp::CumMax, in, dim, DType::Float32, DType::Float32);
    const auto [values, indices] = at::cummax(x, dim);
    expect_equal(*max.indices, indices, what + " cummax indices");
    Outputs lse = run_scan(*device, *stream, ScanOp::LogCumSumExp, in, dim, DType::Float32, DType::Float32);
    expect_close(*lse.values, at::logcumsumexp(x, dim), at::ones_like(x), 1e-5, what + " logcumsumexp");
    // Signs alone, so that long products stay exact.
    DeviceView sign_values =
        upload_view(*device, *stream, (at::sign(storage) >= 0).to(at::kLong) * 2 - 1, DType::Int64, layout);
    Outputs prod = run_scan(*device, *stream, ScanOp::CumProd, sign_values, dim, DType::Int64, DType::Int64);
    expect_equal(*prod.values, at::cumprod(sign_values.host, dim), what + " int64 cumprod");
    if (device->supports(DType::Float64)) {
      DeviceView doubles = upload_view(*device, *stream, storage, DType::Float64, layout);
      Outputs dsum = run_scan(*device, *stream, ScanOp::CumSum, doubles, dim, DType::Float64, DType::Float64);
      expect_close(*dsum.values, at::cumsum(x, dim), at::cumsum(at::abs(x), dim), 1e-12,
                   what + " float64 cumsum");
    }
  }
}

TEST_P(ReduceKernelsTest, ChunkedScansCarryNaNAndTiesAcrossChunks) {
  // NaN in a long row: every later cummax is NaN with the index of the last NaN so far.
  at::Tensor row = at::round(at::empty({300000}, at::kDouble).uniform_(-8, 8)) / 4;
  row.index_put_({70000}, NAN);
  row.index_put_({150000}, NAN);
  DeviceView in =
      upload_view(*device, *stream, row.to(at::kFloat), DType::Float32, contiguous("row", {300000}));
  for (ScanOp op : {ScanOp::CumMax, ScanOp::CumMin}) {
    Outputs result = run_scan(*device, *stream, op, in, 0, DType::Float32, DType::Float32);
    at::Tensor indices;
    const at::Tensor expected = torch_scan(op, row, 0, &indices);
    expect_close(*result.values, expected, at::zeros_like(row), 0, std::string(scan_op_name(op)));
    expect_equal(*result.indices, indices, std::string(scan_op_name(op)) + " indices");
  }
}

TEST_P(ReduceKernelsTest, ScansOfManyUnmergeableDimsAndEmptyInputs) {
  // Twelve dims of two, reversed in memory: eleven dims besides the scanned one, none mergeable.
  std::vector<int64_t> sizes(12, 2), strides(12);
  for (int d = 0; d < 12; ++d) strides[d] = int64_t{1} << d;
  const at::Tensor storage = at::randn({1 << 12}, at::kFloat);
  DeviceView in = upload_view(*device, *stream, storage, DType::Float32, {"reversed", sizes, strides, 0});
  const at::Tensor x = in.host.to(at::kDouble);
  for (int dim : {0, 5, 11}) {
    Outputs sum = run_scan(*device, *stream, ScanOp::CumSum, in, dim, DType::Float32, DType::Float32);
    expect_close(*sum.values, at::cumsum(x, dim), at::cumsum(at::abs(x), dim), 1e-6,
                 "dim " + std::to_string(dim));
  }
  DeviceView empty =
      upload_view(*device, *stream, at::empty({0}, at::kFloat), DType::Float32, {"empty", {3, 0}, {0, 1}, 0});
  for (int dim : {0, 1}) {
    Outputs sum = run_scan(*device, *stream, ScanOp::CumSum, empty, dim, DType::Float32, DType::Float32);
    EXPECT_EQ(sum.values->numel(), 0);
  }
}

TEST_P(ReduceKernelsTest, Int64ValuesBeyondFloatPrecisionStayExact) {
  // Values near 2^62 differ in bits that float32 and float64 both lose.
  const at::Tensor storage = at::randint(-1000, 1000, {3 * 77}, at::kLong) + (int64_t{1} << 62) / 1000;
  DeviceView in = upload_view(*device, *stream, storage, DType::Int64, contiguous("large", {3, 77}));
  Outputs sum = run_reduce(*device, *stream, ReduceOp::Sum, in, 0b10, DType::Int64, DType::Int64, false);
  expect_equal(*sum.values, at::sum(in.host, 1), "sum");
  Outputs max = run_reduce(*device, *stream, ReduceOp::Max, in, 0b10, DType::Int64, DType::Int64, true);
  const auto [values, indices] = at::max(in.host, 1);
  expect_equal(*max.values, values, "max values");
  expect_equal(*max.indices, indices, "max indices");
  Outputs cumsum = run_scan(*device, *stream, ScanOp::CumSum, in, 1, DType::Int64, DType::Int64);
  expect_equal(*cumsum.values, at::cumsum(in.host, 1), "cumsum");
}

TEST_P(ReduceKernelsTest, ResultsMayTakeAnotherDtypeThanTheInput) {
  // sum(dtype=float32) of bfloat16 and mean of float16 into float32: the store converts once.
  for (DType dtype : {DType::BFloat16, DType::Float16}) {
    const at::Tensor storage = random_values(dtype, 5 * 300, -3, 4);
    DeviceView in = upload_view(*device, *stream, storage, dtype, contiguous("rows", {5, 300}));
    const at::Tensor x = in.host.to(at::kDouble);
    Outputs sum =
        run_reduce(*device, *stream, ReduceOp::Sum, in, 0b10, DType::Float32, DType::Float32, false);
    expect_close(*sum.values, at::sum(x, 1), at::sum(at::abs(x), 1), 2e-6,
                 std::string(dtype_name(dtype)) + " sum");
    Outputs mean =
        run_reduce(*device, *stream, ReduceOp::Mean, in, 0b10, DType::Float32, DType::Float32, false);
    expect_close(*mean.values, at::mean(x, 1), at::mean(at::abs(x), 1), 2e-6,
                 std::string(dtype_name(dtype)) + " mean");
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, ReduceKernelsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
