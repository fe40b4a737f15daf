// Tensor reductions and scans against LibTorch: result dtypes, dims (negative, repeated, none = all),
// keepdim, every dtype each op takes, contiguous, transposed, stepped and broadcast inputs, 0-dim and
// empty tensors, NaN, long reductions, and PyTorch's error messages.
#include <cmath>
#include <limits>

#include "runtime/vulkan/vulkan_device.h"
#include "tests/oracle.h"

namespace ember::test {
namespace {

class TensorReductionsTest : public BackendTest {
 protected:
  Tensor from(const at::Tensor& t) { return from_torch(t, device); }
};

// Dims for LibTorch calls, where braces alone are ambiguous.
using D = std::vector<int64_t>;

const DType kFloatTypes[] = {DType::Float32, DType::Float16, DType::BFloat16, DType::Float64};
const DType kIntTypes[] = {DType::Int8, DType::UInt8, DType::Int16, DType::Int32, DType::Int64, DType::Bool};

TEST_P(TensorReductionsTest, SumAndProdWidenIntegersForEveryDtype) {
  for (DType dtype : kAllDTypes) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const at::Tensor t = random_torch({5, 7}, dtype, 1, 0.5, 3);
    const Tensor x = from(t);
    EXPECT_TENSOR_EQ(x.sum(), t.sum());
    EXPECT_TENSOR_EQ(x.sum({1}), t.sum(D{1}));
    EXPECT_TENSOR_EQ(x.sum({-2}, true), t.sum(D{-2}, true));
    // LibTorch's CPU has no float16 prod: float32 results rounded to the dtype.
    const bool low = dtype == DType::Float16 || dtype == DType::BFloat16;
    EXPECT_TENSOR_EQ(x.prod(1), low ? t.to(at::kFloat).prod(1).to(t.scalar_type()) : t.prod(1),
                     tolerance_for(dtype).rtol * 8);
    EXPECT_TENSOR_EQ(x.nansum({0}), t.nansum(D{0}));
    EXPECT_TENSOR_EQ(x.count_nonzero({1}), t.count_nonzero(D{1}));
    EXPECT_TENSOR_EQ(x.all(1), t.all(1));
    EXPECT_TENSOR_EQ(x.any(), t.any());
  }
}

TEST_P(TensorReductionsTest, ExtremesForEveryDtype) {
  for (DType dtype : kAllDTypes) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const at::Tensor t = random_torch({4, 9}, dtype, 2);
    const Tensor x = from(t);
    EXPECT_TENSOR_EQ(x.max(), t.max());
    EXPECT_TENSOR_EQ(x.amin({0}, true), t.amin(D{0}, true));
    auto [values, indices] = x.max(1);
    auto [tv, ti] = t.max(1);
    EXPECT_TENSOR_EQ(values, tv);
    EXPECT_TENSOR_EQ(indices, ti);
    auto [mvalues, mindices] = x.min(0, true);
    auto [tmv, tmi] = t.min(0, true);
    EXPECT_TENSOR_EQ(mvalues, tmv);
    EXPECT_TENSOR_EQ(mindices, tmi);
    if (dtype != DType::Bool) {  // LibTorch's CPU argmax has no bool kernel
      EXPECT_TENSOR_EQ(x.argmax(), t.argmax());
      EXPECT_TENSOR_EQ(x.argmin(-1, true), t.argmin(-1, true));
      EXPECT_TENSOR_EQ(x.argmax(std::nullopt, true), t.argmax(c10::nullopt, true));
    }
  }
}

TEST_P(TensorReductionsTest, FloatingStatisticsForEveryFloatDtype) {
  for (DType dtype : kFloatTypes) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const at::Tensor t = random_torch({6, 5}, dtype, 3, 0.5, 2);
    const at::Tensor t32 = dtype == DType::Float64 ? t : t.to(at::kFloat);
    const Tensor x = from(t);
    const double tol = tolerance_for(dtype).rtol * 2;
    // LibTorch's CPU lacks some float16 kernels: compare with float32 results rounded to the dtype.
    EXPECT_TENSOR_EQ(x.mean(), t32.mean().to(t.scalar_type()), tol);
    EXPECT_TENSOR_EQ(x.mean({0}, true), t32.mean(D{0}, true).to(t.scalar_type()), tol);
    EXPECT_TENSOR_EQ(x.nanmean({1}), t32.nanmean(D{1}).to(t.scalar_type()), tol);
    EXPECT_TENSOR_EQ(x.var({1}), t32.var(D{1}, true).to(t.scalar_type()), tol);
    EXPECT_TENSOR_EQ(x.std({}, 0), t32.std(D{0, 1}, false).to(t.scalar_type()), tol);
    EXPECT_TENSOR_EQ(x.norm(), t32.norm().to(t.scalar_type()), tol);
    EXPECT_TENSOR_EQ(x.norm(1, {0}), t32.norm(1, {0}).to(t.scalar_type()), tol);
    EXPECT_TENSOR_EQ(x.logsumexp({1}, true), t32.logsumexp(D{1}, true).to(t.scalar_type()), tol);
    EXPECT_TENSOR_EQ(x.softmax(1), t32.softmax(1).to(t.scalar_type()), tol);
    EXPECT_TENSOR_EQ(x.log_softmax(0), t32.log_softmax(0).to(t.scalar_type()), tol);
  }
}

TEST_P(TensorReductionsTest, NonContiguousAndBroadcastInputs) {
  const at::Tensor t = random_torch({6, 9, 5}, DType::Float32, 5);
  for (const auto& [name, x] : layouts_of(t, device)) {
    SCOPED_TRACE(name);
    EXPECT_TENSOR_EQ(x.sum({0, 2}), t.sum(D{0, 2}));
    EXPECT_TENSOR_EQ(x.mean({-1}, true), t.mean(D{-1}, true));
    EXPECT_TENSOR_EQ(x.amax({1}), t.amax(D{1}));
    EXPECT_TENSOR_EQ(x.var({0, 1}, 1, true), t.var(D{0, 1}, true, true));
    EXPECT_TENSOR_EQ(x.norm(std::numeric_limits<double>::infinity(), {2}),
                     t.norm(std::numeric_limits<double>::infinity(), {2}));
    EXPECT_TENSOR_EQ(x.norm(3, {0, 1}), t.norm(3, D{0, 1}), 1e-4);
    EXPECT_TENSOR_EQ(x.argmax(1), t.argmax(1));
    EXPECT_TENSOR_EQ(x.argmin(), t.argmin());
    auto [values, indices] = x.min(-2);
    auto [tv, ti] = t.min(-2);
    EXPECT_TENSOR_EQ(values, tv);
    EXPECT_TENSOR_EQ(indices, ti);
    EXPECT_TENSOR_EQ(x.softmax(0), t.softmax(0));
    EXPECT_TENSOR_EQ(x.log_softmax(-1), t.log_softmax(-1));
    EXPECT_TENSOR_EQ(x.logsumexp({0, 2}), t.logsumexp(D{0, 2}));
  }
  // Broadcast: stride-0 dims.
  const at::Tensor row = random_torch({1, 7}, DType::Float32, 6);
  const Tensor b = from(row).expand({5, 7});
  const at::Tensor tb = row.expand({5, 7});
  EXPECT_TENSOR_EQ(b.sum({0}), tb.sum(D{0}));
  EXPECT_TENSOR_EQ(b.argmax(1), tb.argmax(1));
  EXPECT_TENSOR_EQ(b.std({0, 1}), tb.std(D{0, 1}, true));
  EXPECT_TENSOR_EQ(b.softmax(0), tb.softmax(0));
}

TEST_P(TensorReductionsTest, LongReductionsAndOddSizes) {
  const at::Tensor t = random_torch({3, 3001}, DType::Float32, 7);
  const Tensor x = from(t);
  EXPECT_TENSOR_EQ(x.sum({1}), t.sum(D{1}), 1e-5, 1e-3);
  EXPECT_TENSOR_EQ(x.argmax(1), t.argmax(1));
  EXPECT_TENSOR_EQ(x.max(), t.max());
  EXPECT_TENSOR_EQ(x.logsumexp({0, 1}), t.logsumexp(D{0, 1}));
  const at::Tensor odd = random_torch({257, 3}, DType::Int32, 8, -50, 50);
  EXPECT_TENSOR_EQ(from(odd).sum({0}), odd.sum(D{0}));
}

TEST_P(TensorReductionsTest, ZeroDimAndEmpty) {
  const at::Tensor s = at::scalar_tensor(2.5);
  const Tensor x = from(s.to(at::kFloat));
  const at::Tensor sf = s.to(at::kFloat);
  EXPECT_TENSOR_EQ(x.sum(), sf.sum());
  EXPECT_TENSOR_EQ(x.sum({0}), sf.sum(D{0}));
  EXPECT_TENSOR_EQ(x.mean({-1}, true), sf.mean(D{-1}, true));
  auto [v, i] = x.max(0);
  EXPECT_TENSOR_EQ(v, std::get<0>(sf.max(0)));
  EXPECT_TENSOR_EQ(i, std::get<1>(sf.max(0)));
  EXPECT_TENSOR_EQ(x.argmax(0), sf.argmax(0));
  EXPECT_TENSOR_EQ(x.softmax(0), sf.softmax(0));
  EXPECT_TENSOR_EQ(x.count_nonzero(), sf.count_nonzero());
  EXPECT_TENSOR_EQ(x.all(0), sf.all(0));

  const at::Tensor e = at::zeros({2, 0}, at::kFloat);
  const Tensor y = from(e);
  EXPECT_TENSOR_EQ(y.sum(), e.sum());
  EXPECT_TENSOR_EQ(y.sum({1}), e.sum(D{1}));
  EXPECT_TENSOR_EQ(y.prod(1), e.prod(1));
  EXPECT_TENSOR_EQ(y.mean({1}), e.mean(D{1}));
  EXPECT_TENSOR_EQ(y.amax({0}), e.amax(D{0}));
  auto [ev, ei] = y.max(0);
  EXPECT_EQ(ev.sizes().vec(), std::vector<int64_t>{0});
  EXPECT_EQ(ei.dtype(), DType::Int64);
  EXPECT_TENSOR_EQ(y.logsumexp({1}), e.logsumexp(D{1}));
  EXPECT_TENSOR_EQ(y.norm(std::numeric_limits<double>::infinity(), {1}),
                   e.norm(std::numeric_limits<double>::infinity(), {1}));
  EXPECT_TENSOR_EQ(y.norm(2, {1}, true), e.norm(2, {1}, true));
  EXPECT_TENSOR_EQ(y.all(1), e.all(1));
  EXPECT_TENSOR_EQ(y.any(1), e.any(1));
  EXPECT_TENSOR_EQ(y.std({1}), e.std(D{1}, true));
  EXPECT_TENSOR_EQ(y.softmax(1), e.softmax(1));
  EXPECT_TENSOR_EQ(y.count_nonzero({0}), e.count_nonzero(D{0}));
}

// Softmax and log-softmax along the last dim take the norm family's row kernel, forward and backward: rows
// whose length is a multiple of four (float32 reads them as texels on Vulkan) and not, one long row among
// few (many lanes a row), rows of one element, 3-d and transposed inputs, the half types (float32 inside,
// rounded once), and rows of infinities, NaN and huge values, which PyTorch answers with NaN or exact
// zeros.
TEST_P(TensorReductionsTest, SoftmaxAlongRowsMatchesLibTorch) {
  const std::vector<std::vector<int64_t>> shapes = {{37, 1000}, {5, 7}, {2, 3, 12}, {2, 3001}, {300, 1}};
  for (DType dtype : {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16}) {
    if (!device->supports(dtype)) continue;
    for (const std::vector<int64_t>& shape : shapes) {
      SCOPED_TRACE(testing::Message() << dtype_name(dtype) << " " << at::IntArrayRef(shape));
      const at::Tensor t = random_torch(shape, dtype, 31, -6, 6);
      const at::Tensor wide = t.to(dtype == DType::Float64 ? at::kDouble : at::kFloat);
      const Tensor x = from(t);
      EXPECT_TENSOR_EQ(x.softmax(-1), wide.softmax(-1).to(t.scalar_type()));
      EXPECT_TENSOR_EQ(x.log_softmax(-1), wide.log_softmax(-1).to(t.scalar_type()));
      EXPECT_TENSOR_EQ(x.transpose(0, -1).softmax(-1), wide.transpose(0, -1).softmax(-1).to(t.scalar_type()));
      if (dtype != DType::Float32 && dtype != DType::Float64) continue;  // LibTorch's CPU backward is float
      for (bool log : {false, true}) {
        const at::Tensor weights = random_torch(shape, dtype, 33, -2, 2);
        const Tensor xg = from(t).requires_grad_(true);
        (log ? xg.log_softmax(-1) : xg.softmax(-1)).mul(from(weights)).sum().backward();
        const at::Tensor tg = t.clone().requires_grad_(true);
        (log ? tg.log_softmax(-1) : tg.softmax(-1)).mul(weights).sum().backward();
        EXPECT_TENSOR_EQ(xg.grad(), tg.grad());
      }
    }
  }
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  for (int64_t length : {8, 7}) {
    at::Tensor special = random_torch({6, length}, DType::Float32, 32, -3, 3);
    special[0].fill_(-inf);
    special[1][0].fill_(inf);
    special[2][length - 1].fill_(nan);
    special[3][0].fill_(1e30);
    special[3][1].fill_(-1e30);
    special[4][2].fill_(-inf);
    for (at::ScalarType type : {at::kFloat, at::kDouble}) {
      SCOPED_TRACE(testing::Message() << "special values, rows of " << length << ", " << type);
      const at::Tensor t = special.to(type);
      EXPECT_TENSOR_EQ(from(t).softmax(1), t.softmax(1));
      EXPECT_TENSOR_EQ(from(t).log_softmax(1), t.log_softmax(1));
    }
  }
  auto* vulkan_device = dynamic_cast<vulkan::VulkanDevice*>(device.get());
  if (vulkan_device != nullptr) {
    const uint32_t f32 = static_cast<uint32_t>(DType::Float32), code_f64 = static_cast<uint32_t>(DType::Float64);
    const uint32_t softmax_mode = 2;
    EXPECT_TRUE(vulkan_device->pipelines().made("norm_rows_f32_quads", {f32, f32, 0, softmax_mode}));
    EXPECT_TRUE(vulkan_device->pipelines().made("norm_rows_f32", {f32, f32, 0, softmax_mode}));
    const uint32_t backward_mode = 3;
    EXPECT_TRUE(vulkan_device->pipelines().made("norm_rows_f32_quads", {f32, f32, 0, backward_mode}));
    EXPECT_TRUE(vulkan_device->pipelines().made("norm_rows_f64", {code_f64, code_f64, 0, backward_mode}));
  }
}

TEST_P(TensorReductionsTest, NaNPropagation) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  at::Tensor t = random_torch({3, 6}, DType::Float32, 9);
  t[1][2].fill_(nan);
  t[2][0].fill_(nan);
  const Tensor x = from(t);
  EXPECT_TENSOR_EQ(x.max(), t.max());
  EXPECT_TENSOR_EQ(x.amax({1}), t.amax(D{1}));
  auto [v, i] = x.max(1);
  EXPECT_TENSOR_EQ(v, std::get<0>(t.max(1)));
  EXPECT_TENSOR_EQ(i, std::get<1>(t.max(1)));
  EXPECT_TENSOR_EQ(x.argmin(1), t.argmin(1));
  EXPECT_TENSOR_EQ(x.sum({1}), t.sum(D{1}));
  EXPECT_TENSOR_EQ(x.nansum({1}), t.nansum(D{1}));
  EXPECT_TENSOR_EQ(x.nanmean({1}), t.nanmean(D{1}));
  EXPECT_TENSOR_EQ(x.softmax(1), t.softmax(1));
}

TEST_P(TensorReductionsTest, DtypeArgument) {
  const at::Tensor f = random_torch({4, 5}, DType::Float32, 10, -3, 3);
  const Tensor x = from(f);
  EXPECT_TENSOR_EQ(x.sum(DType::Float64), f.sum(at::kDouble));
  EXPECT_TENSOR_EQ(x.sum({1}, false, DType::Int32), f.sum(D{1}, false, at::kInt));
  EXPECT_TENSOR_EQ(x.prod(0, true, DType::Float64), f.prod(0, true, at::kDouble), 1e-6);
  EXPECT_TENSOR_EQ(x.softmax(1, DType::Float64), f.softmax(1, at::kDouble), 1e-6);
  EXPECT_TENSOR_EQ(x.log_softmax(1, DType::Float64), f.log_softmax(1, at::kDouble), 1e-6);
  const at::Tensor i = random_torch({4, 5}, DType::Int32, 11, -9, 9);
  EXPECT_TENSOR_EQ(from(i).mean({0}, false, DType::Float32), i.mean(D{0}, false, at::kFloat));
  EXPECT_TENSOR_EQ(from(i).sum(DType::Int8), i.sum(at::kChar));
  EXPECT_TENSOR_EQ(from(i).softmax(1, DType::Float32), i.softmax(1, at::kFloat));
  // float64 inputs into narrower results: float32 computes in float64; integers convert the input first.
  const at::Tensor d = random_torch({4, 5}, DType::Float64, 13, -3, 3);
  EXPECT_TENSOR_EQ(from(d).sum({1}, false, DType::Float32), d.sum(D{1}, false, at::kFloat));
  EXPECT_TENSOR_EQ(from(d).sum(DType::Int32), d.sum(at::kInt));
  EXPECT_TENSOR_EQ(from(d).cumsum(1, DType::Float32), d.cumsum(1, at::kFloat));
  EXPECT_TENSOR_EQ(from(d).cumsum(0, DType::Int64), d.cumsum(0, at::kLong));
  const at::Tensor h = random_torch({4, 5}, DType::Float16, 12, 0.5, 2);
  EXPECT_TENSOR_EQ(from(h).sum({1}, true, DType::Float32), h.sum(D{1}, true, at::kFloat), 1e-5);
  EXPECT_TENSOR_EQ(from(h).mean(DType::Float64), h.mean(at::kDouble), 1e-7);
}

TEST_P(TensorReductionsTest, ScansForEveryDtype) {
  for (DType dtype : kAllDTypes) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const at::Tensor t = random_torch({3, 11}, dtype, 4, -2, 3);
    const Tensor x = from(t);
    if (is_floating_point(dtype)) {
      // LibTorch's CPU has no float16 scans: float32 results rounded to the dtype.
      const at::Tensor t32 = dtype == DType::Float64 ? t : t.to(at::kFloat);
      EXPECT_TENSOR_EQ(x.cumsum(1), t32.cumsum(1).to(t.scalar_type()), tolerance_for(dtype).rtol * 4);
      EXPECT_TENSOR_EQ(x.cumprod(0), t32.cumprod(0).to(t.scalar_type()), tolerance_for(dtype).rtol * 4);
    } else {
      EXPECT_TENSOR_EQ(x.cumsum(1), t.cumsum(1));
      EXPECT_TENSOR_EQ(x.cumprod(-1), t.cumprod(-1));
      if (dtype != DType::Bool) EXPECT_TENSOR_EQ(x.logsumexp({1}), t.logsumexp(D{1}), 1e-5);
    }
  }
}

TEST_P(TensorReductionsTest, ScanLayoutsSizesAndDtypes) {
  const at::Tensor t = random_torch({6, 9, 5}, DType::Float32, 5);
  for (const auto& [name, x] : layouts_of(t, device)) {
    SCOPED_TRACE(name);
    EXPECT_TENSOR_EQ(x.cumsum(1), t.cumsum(1), 1e-5);
    EXPECT_TENSOR_EQ(x.cumprod(-1), t.cumprod(-1), 1e-5);
  }
  const at::Tensor row = random_torch({1, 7}, DType::Float32, 6);
  EXPECT_TENSOR_EQ(from(row).expand({5, 7}).cumsum(0), row.expand({5, 7}).cumsum(0));
  const at::Tensor long_rows = random_torch({3, 3001}, DType::Float32, 7);
  EXPECT_TENSOR_EQ(from(long_rows).cumsum(1), long_rows.cumsum(1), 1e-4, 1e-3);
  const at::Tensor odd = random_torch({257, 3}, DType::Int32, 8, -50, 50);
  EXPECT_TENSOR_EQ(from(odd).cumsum(0), odd.cumsum(0));
  const at::Tensor s = at::scalar_tensor(2.5, at::kFloat);
  EXPECT_TENSOR_EQ(from(s).cumsum(0), s.cumsum(0));
  EXPECT_TENSOR_EQ(from(s).cumprod(-1), s.cumprod(-1));
  const at::Tensor e = at::zeros({2, 0}, at::kFloat);
  EXPECT_TENSOR_EQ(from(e).cumsum(1), e.cumsum(1));
  const at::Tensor f = random_torch({4, 5}, DType::Float32, 10, -3, 3);
  EXPECT_TENSOR_EQ(from(f).cumsum(1, DType::Int32), f.cumsum(1, at::kInt));
  EXPECT_TENSOR_EQ(from(f).cumprod(0, DType::Float64), f.cumprod(0, at::kDouble), 1e-6);
}

TEST_P(TensorReductionsTest, ErrorMessages) {
  const Tensor empty = zeros({0, 3}, TensorOptions().device(device));
  const Tensor longs = arange(3, TensorOptions().device(device));
  const Tensor x = ones({3, 2}, TensorOptions().device(device));
  const std::string expected_dim = "Expected reduction dim to be specified for input.numel() == 0.";
  expect_error<Error>([&] { empty.max(); },
                      "max(): " + expected_dim + " Specify the reduction dim with the 'dim' argument.");
  expect_error<Error>([&] { empty.min(); },
                      "min(): " + expected_dim + " Specify the reduction dim with the 'dim' argument.");
  expect_error<Error>([&] { empty.amax(); },
                      "amax(): " + expected_dim + " Specify the reduction dim with the 'dim' argument.");
  expect_error<IndexError>([&] { empty.argmax(); }, "argmax(): " + expected_dim);
  expect_error<IndexError>([&] { empty.argmin(); }, "argmin(): " + expected_dim);
  expect_error<IndexError>([&] { empty.max(0); }, "max(): Expected reduction dim 0 to have non-zero size.");
  expect_error<IndexError>([&] { empty.amin({1, 0}); }, "amin(): Expected reduction dim 0 to have non-zero size.");
  expect_error<IndexError>([&] { empty.argmax(-2); }, "argmax(): Expected reduction dim 0 to have non-zero size.");
  expect_error<Error>([&] { longs.mean(); },
                      "mean(): could not infer output dtype. Input dtype must be either a floating point or "
                      "complex dtype. Got: Long");
  expect_error<Error>([&] { x.mean(DType::Int32); },
                      "mean(): could not infer output dtype. Optional dtype must be either a floating point or "
                      "complex dtype. Got: Int");
  expect_error<Error>([&] { longs.var(); }, "std and var only support floating point and complex dtypes");
  expect_error<Error>([&] { longs.std(); }, "std and var only support floating point and complex dtypes");
  expect_error<Error>([&] { longs.norm(); },
                      "norm(): input dtype should be either floating point or complex. Got Long instead.");
  expect_error<Error>([&] { longs.nanmean(); }, "nanmean(): expected input to have floating point dtype but got Long");
  expect_error<Error>([&] { x.sum({0, -2}); }, "dim 0 appears multiple times in the list of dims");
  expect_error<IndexError>([&] { x.sum({2}); }, "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  expect_error<IndexError>([&] { x.cumsum(-3); },
                           "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
  expect_error<Error>([&] { longs.reshape({3, 1}).softmax(0); }, "\"softmax_kernel_impl\" not implemented for 'Long'");
  expect_error<Error>([&] { longs.softmax(0); }, "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'");
  expect_error<Error>([&] { x.log_softmax(1, DType::Int32); },
                      "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Int'");
  expect_error<Error>([&] { x.cumsum(0, DType::Bool); }, "\"cumsum_out_cpu\" not implemented for 'Bool'");
}

INSTANTIATE_TEST_SUITE_P(Backends, TensorReductionsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
