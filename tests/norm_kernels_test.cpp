// The norm kernels' contract, called directly and compared with float64 formulas in ATen: batch norm
// statistics (Welford, chunked and merged where a channel is long, running statistics in their own
// dtype), the apply with and without weight and bias, from variances, in place; batch norm backward in
// training and eval, each output on its own; group norm rows of one to thousands of elements, with
// several channels per group and inner elements; empty batches; and the argument checks.
#include <ATen/ATen.h>

#include <optional>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "runtime/kernels/norm.h"
#include "tests/oracle.h"

namespace ember::test {
namespace {

class NormKernelsTest : public BackendTest {
 protected:
  NormKernels& kernels() { return device->kernels().get<NormKernels>(); }
  Tensor put(const at::Tensor& t) { return from_torch(t.contiguous(), device); }
  Tensor empty_like_torch(at::IntArrayRef sizes, DType dtype) {
    return ember::empty(sizes.vec(), TensorOptions(dtype).device(device));
  }
  bool lacks(DType dtype) {
    if (device->supports(dtype)) return false;
    std::printf("[  NOTE    ] %s skipped: the device lacks it\n", std::string(dtype_name(dtype)).c_str());
    return true;
  }
};

NormShape shape_of(const at::Tensor& x) {
  NormShape s{x.size(0), x.size(1), 1};
  for (int64_t d = 2; d < x.dim(); ++d) s.inner *= x.size(d);
  return s;
}

// [outer, channels, inner] in float64.
at::Tensor as_3d(const at::Tensor& x) {
  const NormShape s = shape_of(x);
  return x.to(at::kDouble).reshape({s.outer, s.channels, s.inner});
}

// The dims a channel's statistics run over, in the [outer, channels, inner] view.
const std::vector<int64_t> kOverBatch = {0, 2};
at::OptionalIntArrayRef over_batch() { return at::IntArrayRef(kOverBatch); }

DType stat_type(DType dtype) { return dtype == DType::Float64 ? DType::Float64 : DType::Float32; }

// Tolerance of values computed from `dtype` inputs.
double tol(DType dtype) { return dtype == DType::Float64 ? 1e-10 : dtype == DType::Float32 ? 2e-5 : 2e-2; }

TEST_P(NormKernelsTest, BatchNormStatistics) {
  struct Case {
    std::vector<int64_t> sizes;
    DType dtype;
    std::optional<DType> running;
  };
  const std::vector<Case> cases = {
      {{4, 3}, DType::Float32, DType::Float32},
      {{2, 5, 7, 3}, DType::Float32, std::nullopt},
      {{64, 2, 28, 28}, DType::Float32, DType::Float32},  // chunked, then merged
      {{3, 1, 70000}, DType::Float32, DType::Float32},    // one channel, many chunks
      {{9, 300}, DType::Float16, DType::Float32},
      {{6, 4, 33}, DType::BFloat16, DType::BFloat16},
      {{5, 3, 17}, DType::Float64, DType::Float64},
      {{40, 2, 300}, DType::Float64, DType::Float32},
  };
  for (const Case& c : cases) {
    if (lacks(c.dtype) || (c.running && lacks(*c.running))) continue;
    SCOPED_TRACE(to_string(c.sizes) + " " + std::string(dtype_name(c.dtype)));
    const at::Tensor x = random_torch(c.sizes, c.dtype, 7, 10, 14);
    const Tensor xe = put(x);
    const NormShape s = shape_of(x);
    Tensor mean = empty_like_torch({s.channels}, stat_type(c.dtype));
    Tensor invstd = empty_like_torch({s.channels}, stat_type(c.dtype));
    BatchNormStatsArgs args{.in = xe.ref(), .shape = s, .mean = mean.ref(), .invstd = invstd.ref(), .momentum = 0.25,
                            .eps = 1e-3};
    at::Tensor rm, rv;
    Tensor rme, rve;
    if (c.running) {
      rm = random_torch({s.channels}, *c.running, 8, -1, 1);
      rv = random_torch({s.channels}, *c.running, 9, 0.5, 2);
      rme = put(rm);
      rve = put(rv);
      args.running_mean = rme.ref();
      args.running_var = rve.ref();
    }
    kernels().batch_norm_stats(*stream, args);
    const at::Tensor x3 = as_3d(x);
    const at::Tensor m = x3.mean(over_batch());
    const at::Tensor v = x3.var(over_batch(), /*unbiased=*/false);
    const double t = tol(c.dtype);
    EXPECT_TENSOR_EQ(mean.to(kFloat64), m, t, t);
    EXPECT_TENSOR_EQ(invstd.to(kFloat64), (v + 1e-3).rsqrt(), t, t);
    if (c.running) {
      const double count = static_cast<double>(s.outer * s.inner);
      const at::Tensor expected_rm = rm.to(at::kDouble) * 0.75 + m * 0.25;
      const at::Tensor expected_rv = rv.to(at::kDouble) * 0.75 + v * (count / (count - 1)) * 0.25;
      const double rt = *c.running == DType::Float64 && c.dtype == DType::Float64 ? 1e-10 : tol(*c.running);
      EXPECT_TENSOR_EQ(rme.to(kFloat64), expected_rm, rt, rt);
      EXPECT_TENSOR_EQ(rve.to(kFloat64), expected_rv, rt, rt);
    }
  }
}

// Float32 channels of a multiple of four elements ([3, 5, 4, 4]) take four elements an invocation on Vulkan
// (norm_apply.comp's QUADS).
TEST_P(NormKernelsTest, BatchNormApply) {
  for (const DType dtype : {DType::Float32, DType::Float16, DType::BFloat16, DType::Float64})
  for (const std::vector<int64_t>& sizes : std::vector<std::vector<int64_t>>{{3, 5, 2, 7}, {3, 5, 4, 4}}) {
    if (lacks(dtype)) continue;
    for (const bool affine : {false, true}) {
      for (const bool from_var : {false, true}) {
        for (const bool in_place : {false, true}) {
          SCOPED_TRACE(std::string(dtype_name(dtype)) + " " + to_string(sizes) + (affine ? " affine" : "") +
                       (from_var ? " from var" : "") + (in_place ? " in place" : ""));
          const at::Tensor x = random_torch(sizes, dtype, 10);
          const at::Tensor mean = random_torch({5}, stat_type(dtype), 11, -1, 1);
          const at::Tensor spread = random_torch({5}, stat_type(dtype), 12, 0.5, 2);
          const at::Tensor w = random_torch({5}, stat_type(dtype), 13), b = random_torch({5}, stat_type(dtype), 14);
          Tensor xe = put(x), me = put(mean), se = put(spread), we = put(w), be = put(b);
          Tensor out = in_place ? xe : empty_like_torch(x.sizes(), dtype);
          BatchNormApplyArgs args{.out = out.ref(), .in = xe.ref(), .shape = shape_of(x), .mean = me.ref(),
                                  .invstd = se.ref(), .invstd_from_var = from_var, .eps = 1e-2};
          if (affine) {
            args.weight = we.ref();
            args.bias = be.ref();
          }
          kernels().batch_norm_apply(*stream, args);
          const auto channel = [](const at::Tensor& t) { return t.to(at::kDouble).reshape({1, 5, 1}); };
          const at::Tensor invstd = from_var ? (channel(spread) + 1e-2).rsqrt() : channel(spread);
          at::Tensor expected = (as_3d(x) - channel(mean)) * invstd;
          if (affine) expected = expected * channel(w) + channel(b);
          EXPECT_TENSOR_EQ(out.to(kFloat64).reshape({3, 5, -1}), expected, tol(dtype), tol(dtype) * 10);
        }
      }
    }
  }
}

TEST_P(NormKernelsTest, BatchNormBackward) {
  for (const DType dtype : {DType::Float32, DType::BFloat16, DType::Float64}) {
    if (lacks(dtype)) continue;
    for (const std::vector<int64_t>& sizes : std::vector<std::vector<int64_t>>{{6, 4, 9}, {64, 2, 900}, {7, 3}}) {
      for (const bool training : {true, false}) {
        for (int outputs = 1; outputs < 8; ++outputs) {  // bit 0 grad_in, 1 grad_weight, 2 grad_bias
          SCOPED_TRACE(std::string(dtype_name(dtype)) + " " + to_string(sizes) + (training ? " training" : " eval") +
                       " outputs " + std::to_string(outputs));
          const at::Tensor x = random_torch(sizes, dtype, 20), g = random_torch(sizes, dtype, 21);
          const NormShape s = shape_of(x);
          const at::Tensor x3 = as_3d(x), g3 = as_3d(g);
          const at::Tensor w = random_torch({s.channels}, stat_type(dtype), 22);
          // Training: the batch's statistics; eval: running mean and variance.
          const at::Tensor mean = training ? x3.mean(over_batch()) : random_torch({s.channels}, DType::Float64, 23, -1, 1);
          const at::Tensor var = training ? x3.var(over_batch(), false) : random_torch({s.channels}, DType::Float64, 24, 0.5, 2);
          const at::Tensor invstd = (var + 1e-5).rsqrt();
          Tensor xe = put(x), ge = put(g), we = put(w);
          Tensor me = put(mean.to(torch_dtype(stat_type(dtype))));
          Tensor se = put((training ? invstd : var).to(torch_dtype(stat_type(dtype))));
          Tensor gi = empty_like_torch(x.sizes(), dtype);
          Tensor gw = empty_like_torch({s.channels}, stat_type(dtype)), gb = empty_like_torch({s.channels}, stat_type(dtype));
          BatchNormBackwardArgs args{.grad_out = ge.ref(), .in = xe.ref(), .shape = s, .mean = me.ref(),
                                     .invstd = se.ref(), .invstd_from_var = !training, .eps = 1e-5, .weight = we.ref(),
                                     .training = training};
          if (outputs & 1) args.grad_in = gi.ref();
          if (outputs & 2) args.grad_weight = gw.ref();
          if (outputs & 4) args.grad_bias = gb.ref();
          kernels().batch_norm_backward(*stream, args);
          const auto channel = [](const at::Tensor& t) { return t.to(at::kDouble).reshape({1, -1, 1}); };
          const at::Tensor x_hat = (x3 - channel(mean)) * channel(invstd);
          const double t = tol(dtype) * 10;
          if (outputs & 1) {
            at::Tensor expected = g3;
            if (training) expected = g3 - g3.mean(over_batch(), true) - x_hat * (g3 * x_hat).mean(over_batch(), true);
            expected = expected * channel(invstd) * channel(w);
            EXPECT_TENSOR_EQ(gi.to(kFloat64).reshape({s.outer, s.channels, s.inner}), expected, t, t);
          }
          if (outputs & 2) EXPECT_TENSOR_EQ(gw.to(kFloat64), (g3 * x_hat).sum(over_batch()), t, t * 100);
          if (outputs & 4) EXPECT_TENSOR_EQ(gb.to(kFloat64), g3.sum(over_batch()), t, t * 100);
        }
      }
    }
  }
}

TEST_P(NormKernelsTest, GroupNormForwardAndBackward) {
  struct Case {
    std::vector<int64_t> sizes;
    int64_t groups;
  };
  // Rows of 1, 3, 12, 300 and 3000 elements; one or several channels per group; inner 1 (layer norm).
  // Float32 rows of a multiple of four elements whose channels hold one element or a multiple of four
  // take four elements a lane on Vulkan (norm_rows.comp's QUADS): rows of 300, 64 and 16 elements below,
  // many rows of one lane each, and channels of 8 and 16 elements.
  const std::vector<Case> cases = {{{5, 3}, 3},      {{4, 3}, 1},         {{2, 6, 2}, 3}, {{3, 4, 3}, 1},
                                   {{2, 300}, 1},    {{3, 4, 25, 30}, 2}, {{0, 4, 3}, 2}, {{1000, 6}, 2},
                                   {{1500, 64}, 1},  {{2, 4, 8}, 2},      {{3, 6, 4, 4}, 3}};
  for (const DType dtype : {DType::Float32, DType::Float16, DType::Float64}) {
    if (lacks(dtype)) continue;
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(dtype_name(dtype)) + " " + to_string(c.sizes) + " groups " + std::to_string(c.groups));
      const at::Tensor x = random_torch(c.sizes, dtype, 30, 5, 9), g = random_torch(c.sizes, dtype, 31);
      const NormShape s = shape_of(x);
      const at::Tensor w = random_torch({s.channels}, dtype, 32), b = random_torch({s.channels}, dtype, 33);
      Tensor xe = put(x), ge = put(g), we = put(w), be = put(b);
      Tensor out = empty_like_torch(x.sizes(), dtype);
      Tensor mean = empty_like_torch({s.outer * c.groups}, stat_type(dtype));
      Tensor rstd = empty_like_torch({s.outer * c.groups}, stat_type(dtype));
      kernels().group_norm(*stream, {.out = out.ref(), .in = xe.ref(), .shape = s, .groups = c.groups,
                                     .mean = mean.ref(), .rstd = rstd.ref(), .weight = we.ref(), .bias = be.ref(),
                                     .eps = 1e-5});
      const int64_t length = s.channels / c.groups * s.inner;
      const at::Tensor rows = x.to(at::kDouble).reshape({s.outer, c.groups, length});
      const at::Tensor m = rows.mean(2, true), r = (rows.var(2, false, true) + 1e-5).rsqrt();
      const at::Tensor x_hat = ((rows - m) * r).reshape({s.outer, s.channels, s.inner});
      const auto channel = [](const at::Tensor& t) { return t.to(at::kDouble).reshape({1, -1, 1}); };
      const double t = tol(dtype) * 10;
      EXPECT_TENSOR_EQ(out.to(kFloat64).reshape({s.outer, s.channels, s.inner}), x_hat * channel(w) + channel(b), t, t);
      EXPECT_TENSOR_EQ(mean.to(kFloat64), m.reshape(-1), t, t);
      EXPECT_TENSOR_EQ(rstd.to(kFloat64), r.reshape(-1), t, t);

      Tensor gi = empty_like_torch(x.sizes(), dtype);
      Tensor gw = empty_like_torch({s.channels}, dtype), gb = empty_like_torch({s.channels}, dtype);
      kernels().group_norm_backward(*stream, {.grad_in = gi.ref(), .grad_weight = gw.ref(), .grad_bias = gb.ref(),
                                              .grad_out = ge.ref(), .in = xe.ref(), .shape = s, .groups = c.groups,
                                              .mean = mean.ref(), .rstd = rstd.ref(), .weight = we.ref()});
      const at::Tensor g3 = as_3d(g);
      const at::Tensor gwr = (g3 * channel(w)).reshape({s.outer, c.groups, length});
      const at::Tensor xr = x_hat.reshape({s.outer, c.groups, length});
      const at::Tensor expected = r * (gwr - gwr.mean(2, true) - xr * (gwr * xr).mean(2, true));
      EXPECT_TENSOR_EQ(gi.to(kFloat64).reshape({s.outer, c.groups, length}), expected, t * 10, t * 10);
      EXPECT_TENSOR_EQ(gw.to(kFloat64), (g3 * x_hat).sum(over_batch()), t * 10, t * 100);
      EXPECT_TENSOR_EQ(gb.to(kFloat64), g3.sum(over_batch()), t * 10, t * 100);
    }
  }
}

TEST_P(NormKernelsTest, RejectsBadArguments) {
  const Tensor x = put(at::rand({4, 6}));
  const Tensor stats = put(at::rand({6}));
  const Tensor wrong = put(at::rand({5}));
  const Tensor strided = put(at::rand({4, 12})).narrow(1, 0, 6);
  expect_error<Error>([&] {
    kernels().batch_norm_stats(*stream, {.in = strided.ref(), .shape = {4, 6, 1}, .mean = stats.ref(), .invstd = stats.ref()});
  }, "batch_norm_stats: the input must be contiguous with 24 elements, got 24");
  expect_error<Error>([&] {
    kernels().batch_norm_stats(*stream, {.in = x.ref(), .shape = {4, 6, 1}, .mean = wrong.ref(), .invstd = stats.ref()});
  }, "batch_norm_stats: mean must be contiguous with 6 elements, got 5");
  expect_error<Error>([&] {
    kernels().group_norm(*stream, {.out = x.ref(), .in = x.ref(), .shape = {4, 6, 1}, .groups = 4,
                                   .mean = stats.ref(), .rstd = stats.ref()});
  }, "group_norm: 6 channels do not split into 4 groups");
  if (device->supports(DType::Float64)) {
    const Tensor f64 = put(at::rand({6}, at::kDouble));
    expect_error<Error>([&] {
      kernels().batch_norm_apply(*stream, {.out = x.ref(), .in = x.ref(), .shape = {4, 6, 1}, .mean = f64.ref(),
                                           .invstd = f64.ref()});
    }, "batch_norm_apply: mean is float64 but the input is float32");
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, NormKernelsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
