// Random draws: bits against LibTorch's Philox engine (at::philox_engine), statistics of 10^6 draws,
// reproducibility, streams per offset, independence of how a launch is split, randperm and multinomial.
#include <ATen/core/PhiloxRNGEngine.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tests/oracle.h"

namespace ember::test {
namespace {

class RandomKernelsTest : public BackendTest {
 protected:
  RandomKernels& kernels() { return device->kernels().get<RandomKernels>(); }

  // Draws `op` into `out`; `first` and `second` are the draw's two parameters in random_ops.def's order.
  void random(RandomOp op, const TensorRef& out, PhiloxState state, Scalar first, Scalar second,
              std::optional<TensorRef> probabilities = std::nullopt) {
    RandomArgs args{.op = op, .out = out, .state = state, .probabilities = probabilities};
    switch (op) {
      case RandomOp::Uniform:
      case RandomOp::RandInt:
        args.low = first;
        args.high = second;
        break;
      case RandomOp::Normal:
      case RandomOp::LogNormal:
        args.mean = first.to_double();
        args.std = second.to_double();
        break;
      case RandomOp::Bernoulli:
      case RandomOp::Geometric: args.probability = first.to_double(); break;
      case RandomOp::Exponential: args.lambda = first.to_double(); break;
      case RandomOp::Cauchy:
        args.median = first.to_double();
        args.sigma = second.to_double();
        break;
      case RandomOp::Randperm: break;
    }
    kernels().random(*stream, args);
  }

  // Draws into a fresh contiguous tensor of `sizes` and `dtype` and reads it back.
  at::Tensor draw(RandomOp op, at::IntArrayRef sizes, DType dtype, PhiloxState state, Scalar p0 = 0,
                  Scalar p1 = 1) {
    const at::Tensor out = at::zeros(sizes, at::TensorOptions(torch_dtype(dtype)));
    DeviceStorage out_device(*device, *stream, out);
    random(op, out_device.ref(out), state, p0, p1);
    return out_device.read(*stream, out);
  }

  TensorRef empty(DType dtype) {
    if (!probe_memory_) probe_memory_ = device->allocate(64);
    return view(probe_memory_.get(), dtype, {0}, {1});
  }

 private:
  std::shared_ptr<Allocation> probe_memory_;
};

#define REQUIRE_RANDOM() \
  REQUIRE_KERNEL(random(RandomOp::Uniform, empty(DType::Float32), {}, 0, 1))

constexpr int64_t kDraws = 1'000'000;

// The 128-bit blocks at counters offset, offset + 1, ... of `seed`, from LibTorch's engine.
std::vector<std::array<uint32_t, 4>> philox_blocks(uint64_t seed, uint64_t offset, int64_t count) {
  at::philox_engine engine(seed, 0, offset);
  std::vector<std::array<uint32_t, 4>> blocks(count);
  for (auto& block : blocks) {
    for (uint32_t& word : block) word = engine();
  }
  return blocks;
}

// Chi-square statistic of bucket counts against equal expected counts.
double chi_square(const std::vector<int64_t>& counts) {
  const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  const double expected = total / counts.size();
  double chi = 0;
  for (int64_t count : counts) chi += (count - expected) * (count - expected) / expected;
  return chi;
}

// A bound that a chi-square statistic with `dof` degrees of freedom exceeds with negligible
// probability: mean plus six standard deviations.
double chi_square_bound(int dof) { return dof + 6 * std::sqrt(2.0 * dof); }

TEST_P(RandomKernelsTest, UniformBitsAreLibTorchPhilox) {
  REQUIRE_RANDOM();
  const uint64_t seed = 0x123456789abcdefull, offset = 0xfffffffffffffff0ull;  // crosses 2^64
  const int64_t n = 1000;
  const auto blocks = philox_blocks(seed, offset, n);
  const at::Tensor f32 = draw(RandomOp::Uniform, {n}, DType::Float32, {seed, offset});
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(f32[i].item<float>(), static_cast<float>(blocks[i][0] >> 8) * 0x1p-24f) << i;
  }
  if (!device->supports(DType::Float64)) GTEST_SKIP() << "no float64 here";
  const at::Tensor f64 = draw(RandomOp::Uniform, {n}, DType::Float64, {seed, offset});
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t bits = (static_cast<uint64_t>(blocks[i][0] >> 5) << 26) | (blocks[i][1] >> 6);
    ASSERT_EQ(f64[i].item<double>(), static_cast<double>(bits) * 0x1p-53) << i;
  }
}

TEST_P(RandomKernelsTest, UniformStatistics) {
  REQUIRE_RANDOM();
  const at::Tensor u = draw(RandomOp::Uniform, {kDraws}, DType::Float32, {7, 0}, 2.0, 5.0);
  EXPECT_GE(u.min().item<float>(), 2.0f);
  EXPECT_LT(u.max().item<float>(), 5.0f);
  const at::Tensor d = u.to(at::kDouble);
  // Mean 3.5 and variance 9/12 with six-sigma bounds.
  EXPECT_NEAR(d.mean().item<double>(), 3.5, 6 * std::sqrt(0.75 / kDraws));
  EXPECT_NEAR(d.var().item<double>(), 0.75, 6 * 0.75 * std::sqrt(0.8 / kDraws));
  const at::Tensor buckets = ((d - 2.0) / 3.0 * 100).floor().to(at::kLong);
  const at::Tensor counts = at::bincount(buckets, {}, 100);
  std::vector<int64_t> c(counts.data_ptr<int64_t>(), counts.data_ptr<int64_t>() + 100);
  EXPECT_LT(chi_square(c), chi_square_bound(99));
  // Half-precision outputs never reach high, even where rounding to them would.
  for (DType dtype : {DType::Float16, DType::BFloat16}) {
    const at::Tensor h = draw(RandomOp::Uniform, {100'000}, dtype, {8, 0}, 0.0, 1.0).to(at::kFloat);
    EXPECT_GE(h.min().item<float>(), 0.0f);
    EXPECT_LT(h.max().item<float>(), 1.0f);
    EXPECT_NEAR(h.mean().item<float>(), 0.5f, 0.01f);
  }
}

TEST_P(RandomKernelsTest, NormalStatistics) {
  REQUIRE_RANDOM();
  for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16}) {
    if (!device->supports(dtype)) continue;
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const int64_t n = dtype == DType::Float32 ? kDraws : 200'000;
    const at::Tensor x = draw(RandomOp::Normal, {n}, dtype, {11, 5}, 2.0, 3.0).to(at::kDouble);
    EXPECT_FALSE(x.isnan().any().item<bool>());
    EXPECT_FALSE(x.isinf().any().item<bool>());
    const double slack = dtype == DType::BFloat16 ? 0.02 : 0;  // bfloat16 rounds each draw
    EXPECT_NEAR(x.mean().item<double>(), 2.0, 6 * 3 / std::sqrt(n) + slack);
    EXPECT_NEAR(x.var().item<double>(), 9.0, 6 * 9 * std::sqrt(2.0 / n) + 10 * slack);
    // The shape, not only the moments: mass within one and two standard deviations.
    const double within1 = ((x - 2).abs() < 3).to(at::kDouble).mean().item<double>();
    const double within2 = ((x - 2).abs() < 6).to(at::kDouble).mean().item<double>();
    EXPECT_NEAR(within1, 0.682689, 6 * std::sqrt(0.2166 / n) + slack);
    EXPECT_NEAR(within2, 0.954500, 6 * std::sqrt(0.0434 / n) + slack);
  }
}

TEST_P(RandomKernelsTest, BernoulliWithScalarAndTensorProbabilities) {
  REQUIRE_RANDOM();
  const at::Tensor b = draw(RandomOp::Bernoulli, {kDraws}, DType::Bool, {3, 0}, 0.3);
  EXPECT_NEAR(b.to(at::kDouble).mean().item<double>(), 0.3, 6 * std::sqrt(0.21 / kDraws));
  for (DType dtype : {DType::Float32, DType::Int32, DType::Float16, DType::UInt8}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const at::Tensor zeros = draw(RandomOp::Bernoulli, {1000}, dtype, {3, 0}, 0.0);
    const at::Tensor ones = draw(RandomOp::Bernoulli, {1000}, dtype, {3, 0}, 1.0);
    EXPECT_TRUE(at::equal(zeros, at::zeros({1000}, zeros.options())));
    EXPECT_TRUE(at::equal(ones, at::ones({1000}, ones.options())));
  }
  // Per-element probabilities: a float16 view, transposed, alternating 0.1 and 0.9 by column, drawn
  // into a strided int64 out.
  const int64_t rows = 1000, cols = 200;
  const at::Tensor by_column = at::arange(cols).remainder(2).to(at::kFloat) * 0.8 + 0.1;
  const at::Tensor storage = by_column.unsqueeze(1).expand({cols, rows}).contiguous().to(at::kHalf);
  const at::Tensor probabilities = storage.t();
  const at::Tensor out_storage = at::zeros({cols, rows}, at::kLong);
  const at::Tensor out = out_storage.t();
  DeviceStorage p_device(*device, *stream, probabilities), out_device(*device, *stream, out_storage);
  const TensorRef p_ref = p_device.ref(probabilities);
  random(RandomOp::Bernoulli, out_device.ref(out), {5, 0}, 0, 1, p_ref);
  const at::Tensor column_means = out_device.read(*stream, out).to(at::kDouble).mean(0);
  const double odd = column_means.slice(0, 1, cols, 2).mean().item<double>();
  const double even = column_means.slice(0, 0, cols, 2).mean().item<double>();
  const double bound = 6 * std::sqrt(0.09 / (rows * cols / 2));
  EXPECT_NEAR(odd, 0.9, bound);
  EXPECT_NEAR(even, 0.1, bound);
}

TEST_P(RandomKernelsTest, RandIntRangesAndBuckets) {
  REQUIRE_RANDOM();
  for (DType dtype : {DType::Int8, DType::Int32, DType::Int64, DType::Float32, DType::Int16}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const int64_t n = dtype == DType::Int32 ? kDraws : 100'000;
    const at::Tensor x = draw(RandomOp::RandInt, {n}, dtype, {13, 0}, int64_t{-5}, int64_t{7})
                             .to(at::kLong);
    EXPECT_GE(x.min().item<int64_t>(), -5);
    EXPECT_LE(x.max().item<int64_t>(), 6);
    const at::Tensor counts = at::bincount(x + 5, {}, 12);
    std::vector<int64_t> c(counts.data_ptr<int64_t>(), counts.data_ptr<int64_t>() + 12);
    EXPECT_LT(chi_square(c), chi_square_bound(11));
  }
  // A range wider than 32 bits uses 64 random bits.
  const int64_t half_range = int64_t{1} << 62;
  const at::Tensor wide =
      draw(RandomOp::RandInt, {100'000}, DType::Int64, {17, 0}, -half_range, half_range);
  EXPECT_GE(wide.min().item<int64_t>(), -half_range);
  EXPECT_LT(wide.max().item<int64_t>(), half_range);
  const double mean = (wide.to(at::kDouble) / static_cast<double>(half_range)).mean().item<double>();
  EXPECT_NEAR(mean, 0.0, 6 * std::sqrt(1.0 / 3 / 100'000));
  const at::Tensor low_bits = wide.bitwise_and(1023);
  EXPECT_GT(std::get<0>(at::_unique(low_bits)).numel(), 1000) << "the low bits vary too";
  // Bool out: randint(0, 2).
  const at::Tensor coins = draw(RandomOp::RandInt, {100'000}, DType::Bool, {19, 0}, int64_t{0}, int64_t{2});
  EXPECT_NEAR(coins.to(at::kDouble).mean().item<double>(), 0.5, 6 * std::sqrt(0.25 / 100'000));
}

TEST_P(RandomKernelsTest, SeedAndOffsetDetermineTheDraws) {
  REQUIRE_RANDOM();
  const int64_t n = 10'000;
  const at::Tensor a = draw(RandomOp::Uniform, {n}, DType::Float32, {42, 1000});
  const at::Tensor again = draw(RandomOp::Uniform, {n}, DType::Float32, {42, 1000});
  const at::Tensor next = draw(RandomOp::Uniform, {n}, DType::Float32, {42, 1001});
  const at::Tensor other_seed = draw(RandomOp::Uniform, {n}, DType::Float32, {43, 1000});
  EXPECT_TRUE(at::equal(a, again));
  // Element i at offset o + 1 uses the block of element i + 1 at offset o.
  EXPECT_TRUE(at::equal(a.slice(0, 1, n), next.slice(0, 0, n - 1)));
  EXPECT_LT((a == other_seed).sum().item<int64_t>(), 10);
  EXPECT_LT((a == next).sum().item<int64_t>(), 10);
}

TEST_P(RandomKernelsTest, DrawsDoNotDependOnHowTheLaunchIsSplit) {
  REQUIRE_RANDOM();
  const PhiloxState state{99, 12345};
  for (RandomOp op : {RandomOp::Normal, RandomOp::RandInt}) {
    const DType dtype = op == RandomOp::Normal ? DType::Float32 : DType::Int64;
    const Scalar p0 = op == RandomOp::Normal ? Scalar(0.0) : Scalar(int64_t{-1000});
    const Scalar p1 = op == RandomOp::Normal ? Scalar(1.0) : Scalar(int64_t{1000});
    const at::Tensor whole = draw(op, {37, 41}, dtype, state, p0, p1);
    // Two launches, the second at the offset advanced by the first's count.
    const at::Tensor halves = at::zeros({37 * 41}, whole.options());
    DeviceStorage halves_device(*device, *stream, halves);
    random(op, halves_device.ref(halves.slice(0, 0, 700)), state, p0, p1);
    random(op, halves_device.ref(halves.slice(0, 700)), {state.seed, state.offset + 700}, p0, p1);
    EXPECT_TRUE(at::equal(halves_device.read(*stream, halves).view({37, 41}), whole));
    // A transposed, stepped out: draws follow out's own row-major order.
    const at::Tensor storage = at::zeros({41, 80}, whole.options());
    const at::Tensor strided = storage.slice(1, 0, 74, 2).t();  // 37 × 41
    DeviceStorage strided_device(*device, *stream, storage);
    random(op, strided_device.ref(strided), state, p0, p1);
    EXPECT_TRUE(at::equal(strided_device.read(*stream, strided), whole));
  }
  // Eight dims that do not merge split into several launches; each starts at its own position.
  const std::vector<int64_t> sizes = {2, 3, 2, 3, 2, 2, 3, 5};
  const at::Tensor whole = draw(RandomOp::Uniform, sizes, DType::Float32, state);
  std::vector<int64_t> reversed(sizes.rbegin(), sizes.rend());
  const at::Tensor storage = at::zeros(reversed);
  const at::Tensor out = storage.permute({7, 6, 5, 4, 3, 2, 1, 0});
  DeviceStorage out_device(*device, *stream, storage);
  random(RandomOp::Uniform, out_device.ref(out), state, 0, 1);
  EXPECT_TRUE(at::equal(out_device.read(*stream, out), whole));
}

TEST_P(RandomKernelsTest, RandpermIsAPermutationKeyedBySeedAndOffset) {
  REQUIRE_KERNEL(random(RandomOp::Randperm, empty(DType::Int64), {}, 0, 1));
  for (int64_t n : {1, 2, 3, 5, 1000, 65536, 100'003}) {
    SCOPED_TRACE(n);
    const at::Tensor p = draw(RandomOp::Randperm, {n}, DType::Int64, {21, 77});
    EXPECT_TRUE(at::equal(std::get<0>(p.sort()), at::arange(n)));
    if (n >= 1000) {
      EXPECT_LT((p == at::arange(n)).sum().item<int64_t>(), 10) << "few fixed points";
      EXPECT_TRUE(at::equal(p, draw(RandomOp::Randperm, {n}, DType::Int64, {21, 77})));
      EXPECT_FALSE(at::equal(p, draw(RandomOp::Randperm, {n}, DType::Int64, {21, 78})));
      EXPECT_FALSE(at::equal(p, draw(RandomOp::Randperm, {n}, DType::Int64, {22, 77})));
    }
  }
  // Where each element lands, over 2000 permutations of 5 at consecutive offsets: uniform.
  const int64_t n = 5, trials = 2000;
  const at::Tensor many = at::zeros({trials, n}, at::kLong);
  DeviceStorage many_device(*device, *stream, many);
  for (int64_t t = 0; t < trials; ++t) {
    random(RandomOp::Randperm, many_device.ref(many[t]), {5, uint64_t(t * n)}, 0, 1);
  }
  const at::Tensor result = many_device.read(*stream, many);
  EXPECT_TRUE(at::equal(std::get<0>(result.sort(1)), at::arange(n).expand({trials, n})));
  for (int64_t position = 0; position < n; ++position) {
    const at::Tensor counts = at::bincount(result.select(1, position), {}, n);
    std::vector<int64_t> c(counts.data_ptr<int64_t>(), counts.data_ptr<int64_t>() + n);
    EXPECT_LT(chi_square(c), chi_square_bound(static_cast<int>(n - 1))) << "position " << position;
  }
}

TEST_P(RandomKernelsTest, MultinomialFollowsTheWeights) {
  REQUIRE_KERNEL(kernels().multinomial(*stream, {view(nullptr, DType::Int64, {0, 0}, {0, 1}), view(nullptr, DType::Float32, {0, 1}, {1, 1}), {}}));
  const at::Tensor weights = at::tensor({0.0, 1.0, 2.0, 0.0, 3.0, 4.0,   //
                                         5.0, 0.0, 0.0, 0.0, 0.0, 0.0,   //
                                         0.0, 0.0, 0.0, 0.0, 0.0, 1.5,   //
                                         1e-3, 0.0, 1e3, 0.0, 0.0, 0.0}).view({4, 6});
  const int64_t samples = 40'000;
  for (DType dtype : {DType::Float32, DType::Float64}) {
    if (!device->supports(dtype)) continue;
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    // A transposed cdf and a transposed out.
    const at::Tensor cdf = at::cumsum(weights, 1).to(torch_dtype(dtype)).t().contiguous().t();
    const at::Tensor out_storage = at::full({samples, 4}, -1, at::kLong);
    const at::Tensor out = out_storage.t();
    DeviceStorage cdf_device(*device, *stream, cdf), out_device(*device, *stream, out_storage);
    kernels().multinomial(*stream, {out_device.ref(out), cdf_device.ref(cdf), {31, 0}});
    const at::Tensor drawn = out_device.read(*stream, out);
    for (int64_t row = 0; row < 4; ++row) {
      const at::Tensor counts = at::bincount(drawn[row], {}, 6).to(at::kDouble);
      const at::Tensor p = weights[row] / weights[row].sum();
      for (int64_t c = 0; c < 6; ++c) {
        const double expected = p[c].item<double>();
        if (expected == 0) {
          EXPECT_EQ(counts[c].item<double>(), 0) << "row " << row << " drew zero-weight " << c;
        } else {
          EXPECT_NEAR(counts[c].item<double>() / samples, expected,
                      6 * std::sqrt(expected * (1 - expected) / samples) + 1e-9)
              << "row " << row << " category " << c;
        }
      }
    }
    // Reproducible for a seed and offset.
    const at::Tensor again_storage = at::zeros({samples, 4}, at::kLong);
    DeviceStorage again_device(*device, *stream, again_storage);
    kernels().multinomial(*stream, {again_device.ref(again_storage.t()), cdf_device.ref(cdf), {31, 0}});
    EXPECT_TRUE(at::equal(again_device.read(*stream, again_storage.t()), drawn));
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, RandomKernelsTest, testing::Values("vulkan", "cuda"),
                         backend_test_name);

}  // namespace
}  // namespace ember::test
