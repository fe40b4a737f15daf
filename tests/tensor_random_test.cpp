// Random generation: reproducibility (seeds, generators, offsets), PyTorch's default dtypes, ranges and
// moments of every distribution (statistics computed with LibTorch on the values read back), in-place
// draws into non-contiguous views, multinomial with and without replacement, and PyTorch's errors.
// Bounds are about six standard errors wide, so a correct generator fails them with negligible odds.
#include <cmath>
#include <latch>
#include <set>
#include <thread>

#include <ATen/CPUGeneratorImpl.h>

#include "tests/oracle.h"
#include "tests/same_error.h"
#include "tests/statistics.h"

namespace ember::test {
namespace {

class TensorRandomTest : public BackendTest {
 protected:
  TensorOptions on_device() const { return TensorOptions().device(device); }
  Tensor from(const at::Tensor& t) { return from_torch(t, device); }
};

constexpr int64_t kDraws = 20000;

TEST_P(TensorRandomTest, SeedsGeneratorsAndOffsets) {
  manual_seed(7);
  const at::Tensor first = to_torch(rand({1000}, on_device()));
  const at::Tensor second = to_torch(rand({1000}, on_device()));
  manual_seed(7);
  EXPECT_TRUE(at::equal(to_torch(rand({1000}, on_device())), first));
  EXPECT_TRUE(at::equal(to_torch(rand({1000}, on_device())), second));
  EXPECT_FALSE(at::equal(first, second));
  EXPECT_EQ(default_generator().offset(), 2000u);

  Generator a(123), b(123), c(124);
  const at::Tensor from_a = to_torch(randn({257}, on_device(), &a));
  EXPECT_TRUE(at::equal(to_torch(randn({257}, on_device(), &b)), from_a));
  EXPECT_FALSE(at::equal(to_torch(randn({257}, on_device(), &c)), from_a));
  EXPECT_EQ(a.offset(), 257u);
  EXPECT_EQ(default_generator().offset(), 2000u);  // explicit generators leave the default alone
  a.manual_seed(123);
  EXPECT_EQ(a.offset(), 0u);
  const PhiloxState state = a.advance(10);
  EXPECT_EQ(state.seed, 123u);
  EXPECT_EQ(state.offset, 0u);
  EXPECT_EQ(a.advance(5).offset, 10u);
}

// Threads that share a generator (a loader worker's random transform beside the training loop) each get
// their own offsets: every random op takes its offsets through advance(), which a lock keeps whole.
TEST(GeneratorThreads, SharedDrawsNeverOverlap) {
  Generator shared(5);
  constexpr uint64_t kPerThread = 1000000;
  std::vector<std::vector<uint64_t>> offsets(2, std::vector<uint64_t>(kPerThread));
  std::latch start(2);  // both threads draw at the same time
  std::vector<std::thread> threads;
  for (auto& mine : offsets) {
    threads.emplace_back([&shared, &mine, &start] {
      start.arrive_and_wait();
      for (uint64_t& offset : mine) offset = shared.advance(3).offset;
    });
  }
  for (std::thread& t : threads) t.join();
  std::set<uint64_t> all(offsets[0].begin(), offsets[0].end());
  all.insert(offsets[1].begin(), offsets[1].end());
  EXPECT_EQ(all.size(), 2 * kPerThread);
  EXPECT_EQ(shared.offset(), 2 * kPerThread * 3);
  EXPECT_EQ(*all.rbegin(), (2 * kPerThread - 1) * 3);
}

TEST_P(TensorRandomTest, UniformAndNormalMoments) {
  manual_seed(1);
  const Tensor u = rand({kDraws}, on_device());
  EXPECT_EQ(u.dtype(), DType::Float32);
  const at::Tensor tu = to_torch(u).to(at::kDouble);
  EXPECT_GE(tu.min().item<double>(), 0.0);
  EXPECT_LT(tu.max().item<double>(), 1.0);
  EXPECT_NEAR(tu.mean().item<double>(), 0.5, 6 * std::sqrt(1.0 / 12 / kDraws));
  EXPECT_NEAR(tu.var().item<double>(), 1.0 / 12, 0.005);

  const at::Tensor tn = to_torch(randn({kDraws}, on_device())).to(at::kDouble);
  EXPECT_NEAR(tn.mean().item<double>(), 0.0, 6 / std::sqrt(double(kDraws)));
  EXPECT_NEAR(tn.std().item<double>(), 1.0, 0.03);
  const at::Tensor t2 = to_torch(normal(3.0, 0.5, {kDraws}, on_device())).to(at::kDouble);
  EXPECT_NEAR(t2.mean().item<double>(), 3.0, 6 * 0.5 / std::sqrt(double(kDraws)));
  EXPECT_NEAR(t2.std().item<double>(), 0.5, 0.015);

  for (DType dtype : {DType::Float16, DType::BFloat16, DType::Float64}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    Tensor x = empty({4000}, on_device().dtype(dtype));
    x.uniform_(-2, 3);
    const at::Tensor t = to_torch(x).to(at::kDouble);
    EXPECT_EQ(x.dtype(), dtype);
    EXPECT_GE(t.min().item<double>(), -2.0);
    EXPECT_LE(t.max().item<double>(), 3.0);  // rounding to a short dtype may reach the end
    EXPECT_NEAR(t.mean().item<double>(), 0.5, 0.15);
    x.normal_(-1, 2);
    const at::Tensor n = to_torch(x).to(at::kDouble);
    EXPECT_NEAR(n.mean().item<double>(), -1.0, 0.2);
    EXPECT_NEAR(n.std().item<double>(), 2.0, 0.12);
    EXPECT_EQ(rand({3}, on_device().dtype(dtype)).dtype(), dtype);
  }
}

TEST_P(TensorRandomTest, IntegersAndPermutations) {
  manual_seed(2);
  const Tensor r = randint(-3, 4, {kDraws}, on_device());
  EXPECT_EQ(r.dtype(), DType::Int64);
  const at::Tensor tr = to_torch(r);
  EXPECT_EQ(tr.min().item<int64_t>(), -3);
  EXPECT_EQ(tr.max().item<int64_t>(), 3);
  const at::Tensor counts = at::bincount(tr + 3);
  EXPECT_GT(counts.min().item<int64_t>(), kDraws / 7 - 6 * 40);
  EXPECT_EQ(randint(5, {2, 3}, on_device()).sizes().vec(), std::vector<int64_t>({2, 3}));
  for (DType dtype : {DType::Int32, DType::UInt8, DType::Int8, DType::Float32, DType::Bool}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const int64_t high = dtype == DType::Bool ? 2 : 100;
    const at::Tensor t = to_torch(randint(0, high, {3000}, on_device().dtype(dtype))).to(at::kDouble);
    EXPECT_EQ(t.min().item<double>(), 0);
    EXPECT_EQ(t.max().item<double>(), high - 1);
    EXPECT_TRUE(at::equal(t, t.round()));
  }

  for (int64_t n : {0, 1, 7, 1000}) {
    SCOPED_TRACE("randperm " + std::to_string(n));
    const Tensor p = randperm(n, on_device());
    EXPECT_EQ(p.dtype(), DType::Int64);
    EXPECT_TRUE(at::equal(std::get<0>(to_torch(p).sort()), at::arange(n, at::kLong)));
  }
  const at::Tensor pf = to_torch(randperm(50, on_device().dtype(kFloat32)));
  EXPECT_TRUE(at::equal(std::get<0>(pf.sort()), at::arange(50, at::kFloat)));
  EXPECT_FALSE(at::equal(to_torch(randperm(100, on_device())), to_torch(randperm(100, on_device()))));
}

TEST_P(TensorRandomTest, InPlaceDrawsIntoViews) {
  manual_seed(3);
  // Every other element of a larger buffer, and a transposed view: only the view's elements change.
  Tensor base = full({40, 30}, -5.0, on_device());
  Tensor stepped = base.slice(1, 0, std::nullopt, 2);
  stepped.uniform_(1, 2);
  const at::Tensor tb = to_torch(base);
  const at::Tensor drawn = tb.slice(1, 0, c10::nullopt, 2), gaps = tb.slice(1, 1, c10::nullopt, 2);
  EXPECT_GE(drawn.min().item<float>(), 1.0f);
  EXPECT_LT(drawn.max().item<float>(), 2.0f);
  EXPECT_TRUE(at::equal(gaps, at::full_like(gaps, -5.0)));
  EXPECT_GT(drawn.std().item<float>(), 0.2f);

  Tensor t = zeros({30, 20}, on_device()).t();
  const uint64_t version = t._version();
  t.normal_(0, 1);
  EXPECT_GT(t._version(), version);
  EXPECT_NEAR(to_torch(t).to(at::kDouble).std().item<double>(), 1.0, 0.15);

  Tensor ints = zeros({5000}, on_device().dtype(kInt32));
  ints.random_(10, 20);
  at::Tensor ti = to_torch(ints);
  EXPECT_EQ(ti.min().item<int>(), 10);
  EXPECT_EQ(ti.max().item<int>(), 19);
  ints.random_(3);
  ti = to_torch(ints);
  EXPECT_EQ(ti.min().item<int>(), 0);
  EXPECT_EQ(ti.max().item<int>(), 2);

  for (DType dtype : {DType::Float32, DType::Int64, DType::Bool, DType::Float16}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    Tensor b = empty({kDraws}, on_device().dtype(dtype));
    b.bernoulli_(0.3);
    const at::Tensor tb2 = to_torch(b).to(at::kDouble);
    EXPECT_TRUE(at::equal(tb2, tb2.clamp(0, 1).round()));
    EXPECT_NEAR(tb2.mean().item<double>(), 0.3, 6 * std::sqrt(0.21 / kDraws));
  }
  // An empty tensor draws nothing and leaves the generator where it was.
  const uint64_t offset = default_generator().offset();
  empty({0, 3}, on_device()).uniform_();
  EXPECT_EQ(default_generator().offset(), offset);
}

// exponential_, geometric_, log_normal_ and cauchy_ follow LibTorch's draws of the same distribution (a
// two-sample Kolmogorov-Smirnov test) for PyTorch's default parameters and others, in the dtypes PyTorch
// takes, and fill only a view's elements.
TEST_P(TensorRandomTest, ExponentialGeometricLogNormalAndCauchy) {
  struct Case {
    std::string name;
    std::function<void(Tensor&)> ours;
    std::function<void(at::Tensor&, at::Generator&)> theirs;
    std::vector<DType> dtypes;
  };
  const std::vector<DType> floating = {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16};
  const std::vector<DType> any = {DType::Float32, DType::Float64, DType::Int64, DType::Int32, DType::UInt8};
  const std::vector<Case> cases = {
      {"exponential_()", [](Tensor& t) { t.exponential_(); }, [](at::Tensor& t, at::Generator& g) { t.exponential_(1, g); }, floating},
      {"exponential_(0.25)", [](Tensor& t) { t.exponential_(0.25); }, [](at::Tensor& t, at::Generator& g) { t.exponential_(0.25, g); }, floating},
      {"geometric_(0.3)", [](Tensor& t) { t.geometric_(0.3); }, [](at::Tensor& t, at::Generator& g) { t.geometric_(0.3, g); }, any},
      {"geometric_(0.001)", [](Tensor& t) { t.geometric_(0.001); }, [](at::Tensor& t, at::Generator& g) { t.geometric_(0.001, g); }, {DType::Float64, DType::Int64}},
      {"geometric_(1e-9)", [](Tensor& t) { t.geometric_(1e-9); }, [](at::Tensor& t, at::Generator& g) { t.geometric_(1e-9, g); }, {DType::Int64}},
      {"log_normal_()", [](Tensor& t) { t.log_normal_(); }, [](at::Tensor& t, at::Generator& g) { t.log_normal_(1, 2, g); }, floating},
      {"log_normal_(-1, 0.5)", [](Tensor& t) { t.log_normal_(-1, 0.5); }, [](at::Tensor& t, at::Generator& g) { t.log_normal_(-1, 0.5, g); }, floating},
      {"cauchy_()", [](Tensor& t) { t.cauchy_(); }, [](at::Tensor& t, at::Generator& g) { t.cauchy_(0, 1, g); }, floating},
      {"cauchy_(3, 0.5)", [](Tensor& t) { t.cauchy_(3, 0.5); }, [](at::Tensor& t, at::Generator& g) { t.cauchy_(3, 0.5, g); }, floating},
  };
  constexpr int64_t n = 100'000;
  manual_seed(6);
  at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(6);
  for (const Case& c : cases) {
    for (DType dtype : c.dtypes) {
      if (!device->supports(dtype)) continue;
      SCOPED_TRACE(c.name + " " + std::string(dtype_name(dtype)));
      Tensor ours = empty({n}, on_device().dtype(dtype));
      const uint64_t version = ours._version();
      c.ours(ours);
      EXPECT_GT(ours._version(), version);
      EXPECT_EQ(ours.dtype(), dtype);
      at::Tensor theirs = at::empty({n}, at::TensorOptions(torch_dtype(dtype)));
      c.theirs(theirs, generator);
      const at::Tensor mine = to_torch(ours);
      EXPECT_FALSE(mine.to(at::kDouble).isnan().any().item<bool>());
      if (c.name.starts_with("geometric")) {
        EXPECT_GE(mine.to(at::kDouble).min().item<double>(), 1) << "a trial at least";
      }
      EXPECT_LT(kolmogorov_smirnov(mine, theirs), kolmogorov_smirnov_bound(n, n));
    }
  }
  // Counts into int64 past float's 2^24 keep every integer where the device computes in double: with
  // p = 1e-9 about half of them are odd, as LibTorch's; float's spacing there would make them even.
  if (device->supports(DType::Float64)) {
    Tensor counts = empty({n}, on_device().dtype(DType::Int64));
    counts.geometric_(1e-9);
    at::Tensor theirs = at::empty({n}, at::kLong);
    theirs.geometric_(1e-9, generator);
    const auto odd_share = [](const at::Tensor& t) { return t.remainder(2).to(at::kDouble).mean().item<double>(); };
    EXPECT_NEAR(odd_share(to_torch(counts)), odd_share(theirs), 0.02);
  }
  // Into every other column of a matrix: the gaps keep their values, and a generator repeats its draws.
  Tensor base = full({300, 40}, -5.0, on_device());
  Tensor columns = base.slice(1, 1, std::nullopt, 2);
  Generator first(9), second(9);
  columns.exponential_(2, &first);
  const at::Tensor drawn = to_torch(base);
  EXPECT_TRUE(at::equal(drawn.slice(1, 0, c10::nullopt, 2), at::full({300, 20}, -5.0)));
  EXPECT_GE(drawn.slice(1, 1, c10::nullopt, 2).min().item<float>(), 0.0f);
  columns.exponential_(2, &second);
  EXPECT_TRUE(at::equal(to_torch(base), drawn));
  EXPECT_EQ(first.offset(), 300u * 20u);
}

TEST_P(TensorRandomTest, Bernoulli) {
  manual_seed(4);
  const at::Tensor p = at::cat({at::zeros({100}), at::ones({100}), at::full({kDraws}, 0.75)});
  const Tensor b = bernoulli(from(p));
  EXPECT_EQ(b.dtype(), DType::Float32);
  const at::Tensor tb = to_torch(b).to(at::kDouble);
  EXPECT_EQ(tb.narrow(0, 0, 100).sum().item<double>(), 0);
  EXPECT_EQ(tb.narrow(0, 100, 100).sum().item<double>(), 100);
  EXPECT_NEAR(tb.narrow(0, 200, kDraws).mean().item<double>(), 0.75, 6 * std::sqrt(0.1875 / kDraws));
  // Broadcast and non-contiguous probabilities.
  const Tensor column = from(at::tensor({0.0, 1.0}, at::kDouble)).reshape({2, 1}).expand({2, 50});
  const at::Tensor tc = to_torch(column.bernoulli());
  EXPECT_EQ(tc.scalar_type(), at::kDouble);
  EXPECT_EQ(tc[0].sum().item<double>(), 0);
  EXPECT_EQ(tc[1].sum().item<double>(), 50);
  const at::Tensor like = to_torch(bernoulli(zeros({kDraws}, on_device().dtype(kFloat16)), 0.2));
  EXPECT_EQ(like.scalar_type(), at::kHalf);
  EXPECT_NEAR(like.to(at::kDouble).mean().item<double>(), 0.2, 6 * std::sqrt(0.16 / kDraws));
}

TEST_P(TensorRandomTest, Multinomial) {
  manual_seed(5);
  const at::Tensor weights = at::tensor({0.0, 1.0, 3.0, 0.0, 4.0}, at::kFloat);  // unnormalised
  const at::Tensor expected = weights / weights.sum();
  // With replacement: frequencies follow the weights; zero weights never come up.
  const at::Tensor draws = to_torch(multinomial(from(weights), kDraws, true));
  EXPECT_EQ(draws.sizes().vec(), std::vector<int64_t>{kDraws});
  const at::Tensor freq = at::bincount(draws, {}, 5).to(at::kDouble) / kDraws;
  for (int64_t k = 0; k < 5; ++k) {
    const double pk = expected[k].item<double>();
    EXPECT_NEAR(freq[k].item<double>(), pk, 6 * std::sqrt(pk * (1 - pk) / kDraws) + 1e-12) << "category " << k;
  }
  // Without replacement: rows never repeat a category; the first draw follows the weights; asking for
  // every positive category returns all of them.
  const int64_t rows = 4000;
  const Tensor probs = from(weights.to(at::kDouble)).unsqueeze(0).expand({rows, 5});
  const at::Tensor picks = to_torch(multinomial(probs, 3, false));
  EXPECT_EQ(picks.sizes().vec(), std::vector<int64_t>({rows, 3}));
  const at::Tensor sorted = std::get<0>(picks.sort(1));
  EXPECT_TRUE(at::equal(sorted, at::tensor({1, 2, 4}, at::kLong).expand({rows, 3})));
  const at::Tensor first = at::bincount(picks.select(1, 0), {}, 5).to(at::kDouble) / rows;
  for (int64_t k = 0; k < 5; ++k) {
    const double pk = expected[k].item<double>();
    EXPECT_NEAR(first[k].item<double>(), pk, 6 * std::sqrt(pk * (1 - pk) / rows) + 1e-12) << "category " << k;
  }
  // Many categories, fewer samples, per-row distributions, float16 input.
  const at::Tensor many = at::rand({6, 300}).to(at::kHalf);
  const at::Tensor some = to_torch(multinomial(from(many), 40));
  for (int64_t r = 0; r < 6; ++r) EXPECT_EQ(std::get<0>(at::unique_consecutive(std::get<0>(some[r].sort()))).numel(), 40);
  const at::Tensor onehot_rows = at::eye(4, at::kFloat);
  EXPECT_TRUE(at::equal(to_torch(multinomial(from(onehot_rows), 3, true)),
                        at::arange(4, at::kLong).unsqueeze(1).expand({4, 3})));
  EXPECT_EQ(to_torch(multinomial(from(at::zeros({0, 3})), 2)).sizes().vec(), std::vector<int64_t>({0, 2}));
}

TEST_P(TensorRandomTest, ErrorMessages) {
  const Tensor f = ones({3}, on_device());
  Tensor longs = ones({3}, on_device().dtype(kInt64));
  expect_error<Error>([&] { rand({2}, on_device().dtype(kInt64)); }, "\"check_uniform_bounds\" not implemented for 'Long'");
  expect_error<Error>([&] { randn({2}, on_device().dtype(kInt64)); }, "\"normal_kernel_cpu\" not implemented for 'Long'");
  expect_error<Error>([&] { randint(5, 5, {2}, on_device()); },
                      "random_ expects 'from' to be less than 'to', but got from=5 >= to=5");
  expect_error<Error>([&] { randint(0, 3, {2}, on_device().dtype(kBool)); }, "to - 1 is out of bounds for bool");
  expect_error<Error>([&] { randint(-1, 5, {2}, on_device().dtype(kUInt8)); }, "from is out of bounds for unsigned char");
  expect_error<Error>([&] { randperm(-1, on_device()); }, "Trying to create tensor with negative dimension -1: [-1]");
  expect_error<Error>([&] { randperm(5, on_device().dtype(kBool)); }, "\"randperm\" not implemented for 'Bool'");
  expect_error<Error>([&] { bernoulli(f, 2.0); }, "bernoulli_ expects p to be in [0, 1], but got p=2");
  expect_error<Error>([&] { Tensor(f).bernoulli_(-0.5); }, "bernoulli_ expects p to be in [0, 1], but got p=-0.5");
  expect_error<Error>([&] { bernoulli(longs); }, "\"bernoulli_tensor_cpu_p_\" not implemented for 'Long'");
  expect_error<Error>([&] { Tensor(f).uniform_(1, 0); },
                      "uniform_ expects to return a [from, to) range, but found from=1 > to=0");
  expect_error<Error>([&] { longs.uniform_(0, 1); }, "\"check_uniform_bounds\" not implemented for 'Long'");
  expect_error<Error>([&] { Tensor(f).normal_(0, -1); }, "normal expects std >= 0.0, but found std -1");
  expect_error<Error>([&] { longs.normal_(0, 1); }, "\"normal_kernel_cpu\" not implemented for 'Long'");
  expect_error<Error>([&] { normal(0, -1, {2}, on_device()); }, "normal expects std >= 0.0, but found std -1");
  expect_error<Error>([&] { Tensor(f).random_(3, 3); }, "random_ expects 'from' to be less than 'to', but got from=3 >= to=3");
  expect_error<Error>([&] { ones({2}, on_device().dtype(kUInt8)).random_(0, 300); }, "to - 1 is out of bounds for unsigned char");
  expect_error<Error>([&] { multinomial(f, 4); }, "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  expect_error<Error>([&] { multinomial(f, 0); }, "cannot sample n_sample <= 0 samples");
  expect_error<Error>([&] { multinomial(ones({2, 2, 2}, on_device()), 1); }, "prob_dist must be 1 or 2 dim");
  expect_error<Error>([&] { multinomial(full({}, 1.0, on_device()), 1); }, "prob_dist must be 1 or 2 dim");
  expect_error<Error>([&] { multinomial(longs, 1); }, "multinomial only supports floating-point dtypes for input, got: Long");
}

// exponential_, geometric_, log_normal_ and cauchy_ refuse what LibTorch refuses, with its words, and
// write nothing. `call` is spelled once and runs on an ember and a LibTorch tensor of `dtype`.
TEST_P(TensorRandomTest, DistributionErrorsAreLibTorchs) {
  const auto expect_same = [&](const std::string& what, DType dtype, const auto& call) {
    Tensor ours = zeros({3}, on_device().dtype(dtype));
    at::Tensor theirs = at::zeros({3}, at::TensorOptions(torch_dtype(dtype)));
    expect_same_error([&] { call(ours); }, [&] { call(theirs); }, what);
    EXPECT_TRUE(at::equal(to_torch(ours), theirs)) << what << ": nothing was written";
  };
  expect_same("exponential_(-1)", DType::Float32, [](auto& t) { t.exponential_(-1); });
  expect_same("exponential_(nan)", DType::Float32, [](auto& t) { t.exponential_(NAN); });
  expect_same("long exponential_(-1)", DType::Int64, [](auto& t) { t.exponential_(-1); });
  expect_same("long exponential_()", DType::Int64, [](auto& t) { t.exponential_(); });
  expect_same("geometric_(0)", DType::Float32, [](auto& t) { t.geometric_(0); });
  expect_same("geometric_(1)", DType::Float32, [](auto& t) { t.geometric_(1); });
  expect_same("geometric_(1.5)", DType::Int64, [](auto& t) { t.geometric_(1.5); });
  expect_same("bool geometric_(0.5)", DType::Bool, [](auto& t) { t.geometric_(0.5); });
  expect_same("log_normal_(0, 0)", DType::Float32, [](auto& t) { t.log_normal_(0, 0); });
  expect_same("log_normal_(0, -1)", DType::Float32, [](auto& t) { t.log_normal_(0, -1); });
  expect_same("int log_normal_()", DType::Int32, [](auto& t) { t.log_normal_(); });
  expect_same("uint8 cauchy_()", DType::UInt8, [](auto& t) { t.cauchy_(); });
  expect_same("empty long cauchy_()", DType::Int64, [](auto& t) {
    t = t.narrow(0, 0, 0);
    t.cauchy_();
  });
}

// Bad probabilities get LibTorch's message (1.13 on the CPU): without replacement a whole-tensor check, with
// replacement the first bad entry or zero-sum row in row-major order.
TEST_P(TensorRandomTest, MultinomialProbabilityMessages) {
  struct Case {
    at::Tensor probabilities;
    int64_t samples;
    bool replacement;
  };
  const auto t = [](std::initializer_list<float> values) { return at::tensor(values); };
  const std::vector<Case> cases = {
      {t({0, 0, 0}), 2, true},
      {t({0, 0, 0}), 1, false},
      {at::ones({3, 0}), 1, true},
      {t({-1, 1, 0}), 1, false},
      {t({NAN, 1, 0}), 1, false},
      {t({1, INFINITY, 0}), 1, false},
      {t({1, -1, 2}), 2, true},
      {t({1, -1, 2}), 1, true},
      {t({1, NAN, 2}), 2, true},
      {t({1, INFINITY, 2}), 2, true},
      {t({INFINITY, -1}), 2, true},
      {t({0, 0, 1, -1}).reshape({2, 2}), 2, true},  // the zero-sum row comes first
      {t({1, -1, 0, 0}).reshape({2, 2}), 2, true},  // the negative entry comes first
      {t({1, 1, 0, 0}).reshape({2, 2}), 1, false},
      {t({0, 0, 1, -1}).reshape({2, 2}), 1, false},
  };
  for (const Case& c : cases) {
    expect_same_error([&] { multinomial(from(c.probabilities), c.samples, c.replacement); },
                      [&] { at::multinomial(c.probabilities, c.samples, c.replacement); },
                      testing::PrintToString(c.probabilities) + (c.replacement ? " with" : " without") +
                          " replacement");
  }
}

// Without replacement, asking for more samples than positive categories returns the zero-probability ones
// after every positive one, as PyTorch 1.13 does (earlier versions refused).
TEST_P(TensorRandomTest, MultinomialTakesZeroCategoriesLast) {
  manual_seed(3);
  const at::Tensor weights = at::tensor({0.0f, 2.0f, 0.0f, 1.0f, 0.0f});
  for (int trial = 0; trial < 20; ++trial) {
    const at::Tensor ours = to_torch(multinomial(from(weights), 5));
    const at::Tensor theirs = at::multinomial(weights, 5);
    for (const at::Tensor& draw : {ours, theirs}) {
      EXPECT_TRUE(at::equal(std::get<0>(draw.narrow(0, 0, 2).sort()), at::tensor({1, 3}, at::kLong))) << draw;
      EXPECT_TRUE(at::equal(std::get<0>(draw.narrow(0, 2, 3).sort()), at::tensor({0, 2, 4}, at::kLong))) << draw;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, TensorRandomTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
