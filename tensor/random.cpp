// Random generation: the Philox generator's bookkeeping, PyTorch's argument checks and default dtypes,
// and the RandomKernels calls. Each element of a launch takes one 128-bit
// Philox block, so a launch of n elements advances the generator by n blocks: draws depend only on the
// seed and the draws before them.
#include <cmath>
#include <string>

#include "runtime/integer_range.h"
#include "runtime/kernels/random.h"
#include "runtime/kernels/reduce.h"
#include "tensor/known_values.h"
#include "tensor/multinomial_checks.h"
#include "tensor/number_text.h"
#include "tensor/ops_support.h"

namespace ember {

PhiloxState Generator::advance(uint64_t numel) {
  std::lock_guard lock(mutex_);
  const PhiloxState state{seed_, offset_};
  offset_ += numel;
  return state;
}

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard lock(mutex_);
  seed_ = seed;
  offset_ = 0;
}

uint64_t Generator::initial_seed() const {
  std::lock_guard lock(mutex_);
  return seed_;
}

uint64_t Generator::offset() const {
  std::lock_guard lock(mutex_);
  return offset_;
}

void Generator::set_offset(uint64_t offset) {
  std::lock_guard lock(mutex_);
  offset_ = offset;
}

Generator& default_generator() {
  static Generator generator;
  return generator;
}

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }

namespace {


Generator& generator_or_default(Generator* generator) { return generator ? *generator : default_generator(); }

// Fills `out` (any strides) with draws of `op`.
// `args` names the draw and its parameters; out and the generator state are filled in here.
void draw(const Tensor& out, RandomArgs args, Generator* generator, const Tensor* probabilities = nullptr) {
  if (out.numel() == 0) return;
  args.out = out.ref();
  args.state = generator_or_default(generator).advance(static_cast<uint64_t>(out.numel()));
  if (probabilities) args.probabilities = probabilities->ref(out.sizes());
  detail::kernels_for<RandomKernels>(*out.device()).random(*detail::stream_for(*out.device()), args);
  detail::bump_version(out);
}

// The floating-only draws' dtype check, in PyTorch's words: `kernel` is its CPU kernel's name.
void check_floating(DType dtype, const std::string& kernel) {
  if (!is_floating_point(dtype)) {
    throw Error("\"" + kernel + "\" not implemented for '" + scalar_type_name(dtype) + "'");
  }
}

void check_uniform_dtype(DType dtype) { check_floating(dtype, "check_uniform_bounds"); }

void check_normal(DType dtype, double std) {
  if (std < 0) throw Error("normal expects std >= 0.0, but found std " + detail::number_text(std));
  check_floating(dtype, "normal_kernel_cpu");
}

void check_probability(double p) {
  if (!(p >= 0 && p <= 1)) throw Error("bernoulli_ expects p to be in [0, 1], but got p=" + detail::number_text(p));
}

// random_'s checks: from < to, and both ends representable in an integral dtype.
void check_random_range(DType dtype, int64_t from, int64_t to) {
  if (from >= to) {
    throw Error("random_ expects 'from' to be less than 'to', but got from=" + std::to_string(from) +
                " >= to=" + std::to_string(to));
  }
  if (is_floating_point(dtype)) return;
  const auto [low, high] = integer_range(dtype);
  if (from < low || from > high) throw Error("from is out of bounds for " + detail::c_type_name(dtype));
  if (to - 1 < low || to - 1 > high) throw Error("to - 1 is out of bounds for " + detail::c_type_name(dtype));
}

Tensor new_tensor(IntArrayRef sizes, const TensorOptions& options, DType fallback) {
  return empty(sizes, options.dtype(options.dtype_or(fallback)));
}

}  // namespace

// ---- in place ----

Tensor& Tensor::uniform_(double from, double to, Generator* generator) {
  check_uniform_dtype(dtype());
  if (from > to) {
    throw Error("uniform_ expects to return a [from, to) range, but found from=" + detail::number_text(from) +
                " > to=" + detail::number_text(to));
  }
  detail::check_no_internal_overlap(*this);
  draw(*this, {.op = RandomOp::Uniform, .low = from, .high = to}, generator);
  return *this;
}

Tensor& Tensor::normal_(double mean, double std, Generator* generator) {
  check_normal(dtype(), std);
  detail::check_no_internal_overlap(*this);
  draw(*this, {.op = RandomOp::Normal, .mean = mean, .std = std}, generator);
  return *this;
}

Tensor& Tensor::bernoulli_(double p, Generator* generator) {
  check_probability(p);
  detail::check_no_internal_overlap(*this);
  draw(*this, {.op = RandomOp::Bernoulli, .probability = p}, generator);
  return *this;
}

Tensor& Tensor::random_(int64_t from, int64_t to, Generator* generator) {
  check_random_range(dtype(), from, to);
  detail::check_no_internal_overlap(*this);
  draw(*this, {.op = RandomOp::RandInt, .low = from, .high = to}, generator);
  return *this;
}

Tensor& Tensor::exponential_(double lambd, Generator* generator) {
  if (!(lambd >= 0)) throw Error("exponential_ expects lambda >= 0.0, but found lambda=" + detail::number_text(lambd));
  check_floating(dtype(), "exponential_cpu");
  detail::check_no_internal_overlap(*this);
  draw(*this, {.op = RandomOp::Exponential, .lambda = lambd}, generator);
  return *this;
}

Tensor& Tensor::geometric_(double p, Generator* generator) {
  if (!(p > 0 && p < 1)) throw Error("geometric_ expects p to be in (0, 1), but got p=" + detail::number_text(p));
  if (dtype() == DType::Bool) throw Error("\"geometric_cpu\" not implemented for 'Bool'");
  detail::check_no_internal_overlap(*this);
  draw(*this, {.op = RandomOp::Geometric, .probability = p}, generator);
  return *this;
}

Tensor& Tensor::log_normal_(double mean, double std, Generator* generator) {
  if (!(std > 0)) throw Error("log_normal_ expects std > 0.0, but found std=" + detail::number_text(std));
  check_floating(dtype(), "log_normal_cpu");
  detail::check_no_internal_overlap(*this);
  draw(*this, {.op = RandomOp::LogNormal, .mean = mean, .std = std}, generator);
  return *this;
}

Tensor& Tensor::cauchy_(double median, double sigma, Generator* generator) {
  check_floating(dtype(), "cauchy_cpu");
  detail::check_no_internal_overlap(*this);
  draw(*this, {.op = RandomOp::Cauchy, .median = median, .sigma = sigma}, generator);
  return *this;
}

Tensor Tensor::bernoulli(Generator* generator) const { return ember::bernoulli(*this, generator); }

// ---- creation ----

Tensor rand(IntArrayRef sizes, const TensorOptions& options, Generator* generator) {
  Tensor t = new_tensor(sizes, options, get_default_dtype());
  check_uniform_dtype(t.dtype());
  draw(t, {.op = RandomOp::Uniform, .low = 0.0, .high = 1.0}, generator);
  return t;
}

Tensor randn(IntArrayRef sizes, const TensorOptions& options, Generator* generator) {
  Tensor t = new_tensor(sizes, options, get_default_dtype());
  check_normal(t.dtype(), 1.0);
  draw(t, {.op = RandomOp::Normal, .mean = 0.0, .std = 1.0}, generator);
  return t;
}

Tensor normal(double mean, double std, IntArrayRef sizes, const TensorOptions& options, Generator* generator) {
  check_normal(options.dtype_or(get_default_dtype()), std);
  Tensor t = new_tensor(sizes, options, get_default_dtype());
  draw(t, {.op = RandomOp::Normal, .mean = mean, .std = std}, generator);
  return t;
}

Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, const TensorOptions& options,
               Generator* generator) {
  check_random_range(options.dtype_or(DType::Int64), low, high);
  Tensor t = new_tensor(sizes, options, DType::Int64);
  draw(t, {.op = RandomOp::RandInt, .low = low, .high = high}, generator);
  detail::note_value_range(t, low, high - 1, false);
  return t;
}

Tensor randint(int64_t high, IntArrayRef sizes, const TensorOptions& options, Generator* generator) {
  return randint(0, high, sizes, options, generator);
}

Tensor randperm(int64_t n, const TensorOptions& options, Generator* generator) {
  const DType dtype = options.dtype_or(DType::Int64);
  if (dtype == DType::Bool) throw Error("\"randperm\" not implemented for 'Bool'");
  Tensor perm = detail::empty_on({n}, DType::Int64, options.device_or_default());
  draw(perm, {.op = RandomOp::Randperm}, generator);
  return dtype == DType::Int64 ? perm : perm.to(dtype);
}

Tensor bernoulli(const Tensor& probabilities, Generator* generator) {
  check_floating(probabilities.dtype(), "bernoulli_tensor_cpu_p_");
  // Probabilities outside [0, 1] are not checked: that would read them back to the host.
  Tensor out = detail::empty_on(probabilities.sizes(), probabilities.dtype(), probabilities.device());
  draw(out, {.op = RandomOp::Bernoulli}, generator, &probabilities);
  return out;
}

Tensor bernoulli(const Tensor& like, double p, Generator* generator) {
  check_probability(p);
  Tensor out = empty_like(like);
  draw(out, {.op = RandomOp::Bernoulli, .probability = p}, generator);
  return out;
}

// ---- multinomial ----

namespace {

// The row statistics multinomial checks, read back together: the smallest probability, the largest
// magnitude (infinite or NaN when some probability is), the smallest row sum and the fewest nonzero
// categories in a row.
struct DistributionStats {
  double min = 0;
  bool finite = true;
  double min_row_sum = 0;
};

DistributionStats distribution_stats(const Tensor& rows) {
  const auto& device = rows.device();
  ReduceKernels& kernels = detail::kernels_for<ReduceKernels>(*device);
  Stream& stream = *detail::stream_for(*device);
  const DType wide = device->supports(DType::Float64) ? DType::Float64 : DType::Float32;
  Tensor stats = detail::empty_on({3}, wide, device);
  // Reduces `in` over `mask` into stats[slot].
  auto reduce_into = [&](int64_t slot, ReduceOp op, const Tensor& in, uint32_t mask) {
    kernels.reduce(stream, {.op = op, .out = stats.narrow(0, slot, 1).ref(), .in = in.ref(), .reduce_mask = mask,
                            .compute = wide});
  };
  reduce_into(0, ReduceOp::Amin, rows, 3);
  reduce_into(1, ReduceOp::Amax, rows.abs(), 3);
  reduce_into(2, ReduceOp::Amin, rows.sum(IntArrayRef(int64_t{1}), false, wide), 1);
  const std::vector<double> v = stats.to_vector<double>();
  return {v[0], std::isfinite(v[1]), v[2]};
}

}  // namespace

Tensor multinomial(const Tensor& probabilities, int64_t num_samples, bool replacement, Generator* generator) {
  const int64_t ndim = probabilities.dim();
  if (ndim != 1 && ndim != 2) throw Error("prob_dist must be 1 or 2 dim");
  if (!probabilities.is_floating_point()) {
    throw Error("multinomial only supports floating-point dtypes for input, got: " +
                scalar_type_name(probabilities.dtype()));
  }
  if (num_samples <= 0) throw Error("cannot sample n_sample <= 0 samples");
  const int64_t categories = probabilities.size(-1);
  if (!replacement && num_samples > categories) {
    throw Error("cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  }
  const Tensor rows = ndim == 1 ? probabilities.unsqueeze(0) : probabilities;
  const int64_t count = rows.size(0);
  const auto& device = probabilities.device();
  Tensor out = detail::empty_on({count, num_samples}, DType::Int64, device);
  if (count > 0 && categories == 0) throw Error(detail::kMultinomialBadSum);
  if (count > 0) {
    const DistributionStats stats = distribution_stats(rows);  // one read-back
    if (!stats.finite || !(stats.min >= 0) || !(stats.min_row_sum > 0)) {
      // Rare: read the input back to name its first problem in PyTorch's order.
      const std::string problem = detail::multinomial_problem(rows.to_vector<double>(), count, categories, replacement);
      throw Error(problem.empty() ? detail::kMultinomialBadSum : problem);
    }
    Stream& stream = *detail::stream_for(*device);
    if (replacement) {
      // Inverse CDF sampling; the CDF accumulates in float32 at least.
      const DType compute = probabilities.dtype() == DType::Float64 ? DType::Float64 : DType::Float32;
      const Tensor cdf = rows.cumsum(1, compute);
      const PhiloxState state = generator_or_default(generator).advance(static_cast<uint64_t>(out.numel()));
      detail::kernels_for<RandomKernels>(*device).multinomial(stream, {out.ref(), cdf.ref(), state});
    } else {
      // Without replacement: the exponential race (Gumbel top-k). Each category gets the key p / E with E
      // exponential; the num_samples largest keys are a draw without replacement. They are taken one
      // argmax at a time, each winner then masked below every remaining key, so no row repeats a category
      // and zero-probability categories (key 0) come after every positive one, in index order (PyTorch 1.13
      // takes them last too, in its top-k's order for ties).
      const DType compute = probabilities.dtype() == DType::Float64 ? DType::Float64 : DType::Float32;
      Tensor uniform = detail::empty_on(rows.sizes(), compute, device);
      draw(uniform, {.op = RandomOp::Uniform, .low = 0.0, .high = 1.0}, generator);
      Tensor keys = rows.to(compute).div(uniform.log().neg());
      Tensor winners = detail::empty_on({num_samples, count}, DType::Int64, device);
      const uint32_t mask = 1u << 1;
      for (int64_t s = 0; s < num_samples; ++s) {
        const Tensor column = winners.select(0, s);
        detail::kernels_for<ReduceKernels>(*device).reduce(
            stream, {.op = ReduceOp::Argmax, .indices = column.ref(), .in = keys.ref(), .reduce_mask = mask,
                     .compute = compute});
        if (s + 1 < num_samples) keys.scatter_(1, column.unsqueeze(1), -1.0);
      }
      out.copy_(winners.t());
    }
  }
  return ndim == 1 ? out.squeeze(0) : out;
}

}  // namespace ember
