// Accuracy of shaders/math.glsl: every m_ function runs in the math_test shader (float32 and float64
// modules) on about 10^4 values per function, spread over magnitude bands of its domain plus the special
// values, and is compared with LibTorch on the same values. The float32 oracle is LibTorch's float64
// result rounded to float32, so that it is within half an ulp of the true value.
//
// Measured on lavapipe: every function within 1 ulp of the oracle in both precisions; the bounds below
// (2 ulp) leave one ulp for devices that contract or round differently.
#include <ATen/ATen.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "runtime/vulkan/shader_registry.h"
#include "runtime/vulkan/vulkan_device.h"
#include "test_support.h"

namespace ember::test {
namespace {

// The harness shaders (tests/shaders/, embedded in this program only): out, x, y; push constants: the
// element count.
const vulkan::KernelAbiRegistration kMathTestAbis{{"math_test_f32", 3, sizeof(uint32_t)},
                                                  {"math_test_f64", 3, sizeof(uint32_t)}};

// Function numbers of math_test.comp's FN specialization constant.
enum MathFn {
  kExp,
  kExp2,
  kLog,
  kLog2,
  kLog10,
  kLog1p,
  kExpm1,
  kSin,
  kCos,
  kTan,
  kAsin,
  kAcos,
  kAtan,
  kAtan2,
  kSinh,
  kCosh,
  kTanh,
  kPow,
  kErf,
  kErfc,
  kErfinv,
  kMultiply,  // x * y, to probe the device's denormal handling
};

// out[i] = FN(x[i], y[i]) through math_test_f32 or math_test_f64.
template <class T>
std::vector<T> run_on_device(Device& device, MathFn fn, const std::vector<T>& x, const std::vector<T>& y) {
  auto& vulkan_device = dynamic_cast<vulkan::VulkanDevice&>(device);
  std::shared_ptr<Stream> stream = device.default_stream();
  auto& vulkan_stream = dynamic_cast<vulkan::VulkanStream&>(*stream);
  const uint64_t bytes = x.size() * sizeof(T);
  auto in_x = upload(device, *stream, x);
  auto in_y = upload(device, *stream, y);
  auto out = device.allocate(bytes, stream);
  auto whole = [&](Allocation& allocation, bool write) {
    return vulkan::Binding{&allocation, allocation.offset(), bytes, write};
  };
  const vulkan::Binding bindings[3] = {whole(*out, true), whole(*in_x, false), whole(*in_y, false)};
  const char* shader = sizeof(T) == 8 ? "math_test_f64" : "math_test_f32";
  const uint32_t count = static_cast<uint32_t>(x.size());
  vulkan_stream.dispatch(vulkan_device.pipelines().get(shader, {static_cast<uint32_t>(fn)}), bindings, &count,
                         sizeof count, (count + 255) / 256);
  return download<T>(*stream, out, x.size());
}

// Distance in representable values; +0 and -0 count as equal, NaN is handled by the caller.
template <class T>
double ulp_distance(T a, T b) {
  using Bits = std::conditional_t<sizeof(T) == 8, int64_t, int32_t>;
  auto ordered = [](T v) {
    Bits bits;
    std::memcpy(&bits, &v, sizeof v);
    // Negative values count down from zero, so that the order of the integers is that of the values.
    return bits >= 0 ? static_cast<__int128>(bits)
                     : static_cast<__int128>(std::numeric_limits<Bits>::min()) - static_cast<__int128>(bits);
  };
  const __int128 difference = ordered(a) - ordered(b);
  return static_cast<double>(difference < 0 ? -difference : difference);
}

// Where to sample: uniform in [lo, hi], or with log-uniform magnitude in [lo, hi] (0 < lo < hi); a
// random sign when `both_signs`, else the sign of `sign`. `shift` is added afterwards (to gather values
// around 1 or -1).
struct Band {
  double lo, hi;
  bool log_scale = false;
  bool both_signs = false;
  double shift = 0.0;
  double sign = 1.0;
};
Band uniform(double lo, double hi) { return {lo, hi}; }
Band magnitudes(double lo, double hi, bool both_signs = true) { return {lo, hi, true, both_signs}; }
// Values `shift + u` with u of log-uniform magnitude in [lo, hi] and the sign of `sign` (either when 0).
Band around(double shift, double lo, double hi, double sign) {
  return {lo, hi, true, sign == 0, shift, sign};
}

constexpr int kPerBand = 2500;

std::vector<double> sample_bands(const std::vector<Band>& bands, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> values;
  for (const Band& band : bands) {
    for (int i = 0; i < kPerBand; ++i) {
      double v = band.log_scale
                     ? std::exp(std::log(band.lo) + unit(rng) * (std::log(band.hi) - std::log(band.lo)))
                     : band.lo + unit(rng) * (band.hi - band.lo);
      if (band.both_signs ? (rng() & 1) != 0 : band.sign < 0) v = -v;
      values.push_back(band.shift + v);
    }
  }
  return values;
}

struct Inputs {
  std::vector<double> x, y;
};

// Values every unary function sees: zeros, infinities, NaN, denormals, extremes.
std::vector<double> special_values(bool float32) {
  const double inf = std::numeric_limits<double>::infinity();
  const double min_denormal =
      float32 ? std::numeric_limits<float>::denorm_min() : std::numeric_limits<double>::denorm_min();
  const double min_normal = float32 ? std::numeric_limits<float>::min() : std::numeric_limits<double>::min();
  const double max = float32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
  return {0.0,         -0.0,           inf,  -inf, std::nan(""), min_denormal, -min_denormal, min_normal,
          -min_normal, min_normal / 3, max,  -max, 1.0,          -1.0,         0.5,           -0.5,
          2.0,         -2.0,           1e-8, -1e-8};
}

Inputs unary(const std::vector<Band>& bands, bool float32, const std::vector<double>& extra = {}) {
  Inputs in;
  in.x = sample_bands(bands, 1234 + bands.size());
  for (double v : special_values(float32)) in.x.push_back(v);
  in.x.insert(in.x.end(), extra.begin(), extra.end());
  in.y.assign(in.x.size(), 0.0);
  return in;
}

// Every pair of `specials`, appended to `in`.
void add_special_pairs(Inputs& in, const std::vector<double>& specials) {
  for (double a : specials) {
    for (double b : specials) {
      in.x.push_back(a);
      in.y.push_back(b);
    }
  }
}

// Arguments close to multiples of pi/2, the hardest for sin, cos and tan, and for float64 the double
// closest to a multiple of pi/2 (6381956970095103 2^797, 2^-61 away).
std::vector<double> hard_trig_arguments(bool float32) {
  std::vector<double> values;
  const long limit = float32 ? 100000 : 100000000;
  for (long k = 1; k < limit; k = k * 3 + 1) {
    const double v = k * 1.5707963267948966192;
    values.push_back(float32 ? static_cast<float>(v) : v);
    values.push_back(-values.back());
  }
  if (float32) {
    values.push_back(252.89820861816406);  // the float in [pi/4, 2^17] nearest a multiple of pi/2
  } else {
    values.push_back(std::ldexp(6381956970095103.0, 797));
    values.push_back(-std::ldexp(6381956970095103.0, 797));
  }
  return values;
}

// LibTorch's float64 erfinv is off by up to 1e-4 relative near +-1 (erfinv(1 - 2^-53) = 5.86395 where
// the root of erfc(g) = 2^-53 is 5.86358), so its result is refined by Newton steps in long double on
// glibc's erfl and erfcl.
at::Tensor erfinv_oracle(const at::Tensor& x, const at::Tensor&) {
  at::Tensor result = at::erfinv(x).contiguous();
  const double* in = x.data_ptr<double>();
  double* out = result.data_ptr<double>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    const long double a = std::abs(static_cast<long double>(in[i]));
    long double g = std::abs(static_cast<long double>(out[i]));
    if (!std::isfinite(g) || a == 0) continue;
    for (int step = 0; step < 6; ++step) {
      const long double f = a <= 0.5L ? std::erf(g) - a : (1.0L - a) - std::erfc(g);
      g -= f / (1.1283791670955125738961589031215452L * std::exp(-g * g));
    }
    out[i] = static_cast<double>(std::copysign(g, static_cast<long double>(in[i])));
  }
  return result;
}

using Oracle = std::function<at::Tensor(const at::Tensor&, const at::Tensor&)>;

struct MathCase {
  const char* name;
  MathFn fn;
  Oracle oracle;
  std::function<Inputs(bool float32)> inputs;
  // LibTorch's vectorised log1p, sinh and cosh (SLEEF) return inf a little before the true result
  // overflows (log1p above 1e307, sinh and cosh above 709.78); there glibc's long double function is
  // the oracle.
  double (*glibc)(double) = nullptr;
};

Oracle unary_oracle(at::Tensor (*op)(const at::Tensor&)) {
  return [op](const at::Tensor& x, const at::Tensor&) { return op(x); };
}

std::vector<MathCase> math_cases() {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::nan("");
  std::vector<MathCase> cases;
  cases.push_back({"exp", kExp, unary_oracle(at::exp), [](bool f32) {
                     return f32 ? unary({uniform(-104, 89), magnitudes(1e-30, 1), uniform(-1, 1)}, f32,
                                        {88.72, 88.73, -87.3, -103.9})
                                : unary({uniform(-745.5, 710), magnitudes(1e-300, 1), uniform(-1, 1)}, f32,
                                        {709.78, 709.79, -745.13, -745.14, -708.4, -740});
                   }});
  cases.push_back({"exp2", kExp2, unary_oracle(at::exp2), [](bool f32) {
                     return f32 ? unary({uniform(-150, 129), magnitudes(1e-30, 1)}, f32,
                                        {-126, -149, 127, 128})
                                : unary({uniform(-1080, 1025), magnitudes(1e-300, 1)}, f32,
                                        {-1022, -1074, -1075, 1023, 1024, 10, 52.5});
                   }});
  const std::vector<double> log_extra = {
      0.1, 10, 100, 1000, 1e10, 1e22, 1024, 0.125, 0.7071067811865476, 1.4142135623730951, -3};
  for (auto [name, fn, op] :
       {std::tuple<const char*, MathFn, at::Tensor (*)(const at::Tensor&)>{"log", kLog, at::log},
        {"log2", kLog2, at::log2},
        {"log10", kLog10, at::log10}}) {
    cases.push_back({name, fn, unary_oracle(op), [log_extra](bool f32) {
                       const double tiny = f32 ? 1e-45 : 5e-324;
                       const double huge = f32 ? 3e38 : 1e308;
                       return unary({magnitudes(tiny, huge, false), uniform(0.5, 2), around(1, 1e-16, 0.3, 1),
                                     around(1, 1e-16, 0.3, -1), magnitudes(1e-300, 1e-5)},
                                    f32, log_extra);
                     }});
  }
  cases.push_back({"log1p", kLog1p, unary_oracle(at::log1p),
                   [](bool f32) {
                     return unary({magnitudes(1e-300, 1), magnitudes(1, 1e300, false),
                                   around(-1, 1e-16, 0.5, 1), uniform(-1, 1)},
                                  f32, {-0.999999, -1.0 + 1e-15, 1e-17, -1e-17, -1.5});
                   },
                   [](double v) { return static_cast<double>(std::log1p(static_cast<long double>(v))); }});
  cases.push_back(
      {"expm1", kExpm1, unary_oracle(at::expm1), [](bool f32) {
         return f32 ? unary({uniform(-20, 89), magnitudes(1e-30, 1), uniform(-1, 1)}, f32,
                            {0.34657359, -0.34657359, 88.72, -17})
                    : unary({uniform(-50, 710), magnitudes(1e-300, 1), uniform(-1, 1), uniform(-40, 40)}, f32,
                            {0.34657359027997264, -0.34657359027997264, 709.78, -37.5, -40.5});
       }});
  for (auto [name, fn, op] :
       {std::tuple<const char*, MathFn, at::Tensor (*)(const at::Tensor&)>{"sin", kSin, at::sin},
        {"cos", kCos, at::cos},
        {"tan", kTan, at::tan}}) {
    cases.push_back({name, fn, unary_oracle(op), [](bool f32) {
                       const double huge = f32 ? 3e38 : 1e308;
                       return unary({uniform(-10, 10), magnitudes(1e-300, 1e5), magnitudes(1e5, huge),
                                     uniform(-1e6, 1e6)},
                                    f32, hard_trig_arguments(f32));
                     }});
  }
  for (auto [name, fn, op] :
       {std::tuple<const char*, MathFn, at::Tensor (*)(const at::Tensor&)>{"asin", kAsin, at::asin},
        {"acos", kAcos, at::acos}}) {
    cases.push_back({name, fn, unary_oracle(op), [](bool f32) {
                       return unary({uniform(-1, 1), magnitudes(1e-300, 1), around(1, 1e-16, 0.1, -1),
                                     around(-1, 1e-16, 0.1, 1)},
                                    f32, {0.5, -0.5, 0.9999999999, -0.9999999999, 1.0000001, -3});
                     }});
  }
  cases.push_back({"atan", kAtan, unary_oracle(at::atan), [](bool f32) {
                     return unary({uniform(-10, 10), magnitudes(1e-300, 1e300), magnitudes(0.01, 100)}, f32,
                                  {0.0625, 0.1875, 1.0 / 3, 7, 1e20, -1e20});
                   }});
  cases.push_back({"atan2", kAtan2, [](const at::Tensor& y, const at::Tensor& x) { return at::atan2(y, x); },
                   [inf, nan](bool f32) {
                     const double range = f32 ? 1e30 : 1e300;
                     const std::vector<Band> bands = {uniform(-10, 10), magnitudes(1 / range, range),
                                                      magnitudes(0.1, 10)};
                     Inputs in{sample_bands(bands, 77), sample_bands(bands, 78)};
                     add_special_pairs(in, {0.0, -0.0, inf, -inf, nan, 1.0, -1.0, 1e-300, 3.0});
                     return in;
                   }});
  cases.push_back({"sinh", kSinh, unary_oracle(at::sinh),
                   [](bool f32) {
                     return f32 ? unary({uniform(-90, 90), magnitudes(1e-30, 30)}, f32, {89.4, 89.5, -89.5})
                                : unary({uniform(-711, 711), magnitudes(1e-300, 30)}, f32,
                                        {710.47, 710.48, -710.48, 22, 1.0});
                   },
                   [](double v) { return static_cast<double>(std::sinh(static_cast<long double>(v))); }});
  cases.push_back({"cosh", kCosh, unary_oracle(at::cosh),
                   [](bool f32) {
                     return f32 ? unary({uniform(-90, 90), magnitudes(1e-30, 30)}, f32, {89.4, 89.5, -89.5})
                                : unary({uniform(-711, 711), magnitudes(1e-300, 30)}, f32,
                                        {710.47, 710.48, -710.48, 22});
                   },
                   [](double v) { return static_cast<double>(std::cosh(static_cast<long double>(v))); }});
  cases.push_back({"tanh", kTanh, unary_oracle(at::tanh), [](bool f32) {
                     return unary({uniform(-25, 25), magnitudes(1e-300, 30), uniform(-1, 1)}, f32,
                                  {100, -100, 1000, -1000, 9, -9, 0.55, 22});
                   }});
  cases.push_back(
      {"pow", kPow, [](const at::Tensor& x, const at::Tensor& y) { return at::pow(x, y); },
       [inf, nan](bool f32) {
         const double range = f32 ? 1e10 : 1e30;
         // Positive bases; bases near 1 with large exponents; negative bases with integers.
         Inputs in{sample_bands({magnitudes(1 / range, range, false), uniform(0.5, 2),
                                 around(1, 1e-12, 1e-3, 0), magnitudes(1e-3, 1e3, false)},
                                91),
                   sample_bands(
                       {uniform(-30, 30), uniform(-300, 300), magnitudes(1e3, 1e10), uniform(-40, 40)}, 92)};
         for (int i = 3 * kPerBand; i < 4 * kPerBand; ++i) {
           in.x[i] = -in.x[i];
           in.y[i] = std::floor(in.y[i]);
         }
         add_special_pairs(in, {0.0, -0.0, inf, -inf, nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 2.5,
                                -2.5, 1e300, 1e-300});
         return in;
       }});
  cases.push_back({"erf", kErf, unary_oracle(at::erf), [](bool f32) {
                     return unary({uniform(-7, 7), magnitudes(1e-300, 1), magnitudes(0.8, 6)}, f32,
                                  {0.84375, -0.84375, 5.9, 6.0});
                   }});
  cases.push_back({"erfc", kErfc, unary_oracle(at::erfc), [](bool f32) {
                     return f32 ? unary({uniform(-7, 12), magnitudes(1e-30, 1), uniform(0.8, 10.1)}, f32,
                                        {0.84375, -0.84375, 9.19, 10.05})
                                : unary({uniform(-7, 28), magnitudes(1e-300, 1), uniform(0.8, 27.3)}, f32,
                                        {0.84375, -0.84375, 26.5, 27.2, 27.3, 28});
                   }});
  cases.push_back({"erfinv", kErfinv, erfinv_oracle, [](bool f32) {
                     return unary({uniform(-1, 1), magnitudes(1e-300, 1), around(1, 1e-16, 0.1, -1),
                                   around(-1, 1e-16, 0.1, 1)},
                                  f32, {0.999, -0.999, 1.0, -1.0, 0.5});
                   }});
  return cases;
}

// How the device treats denormals of T, probed with a multiplication.
struct DenormalMode {
  bool flushes_results = false;  // a denormal product comes out as zero
  bool zeroes_inputs = false;    // a denormal operand is read as zero
};

template <class T>
DenormalMode probe_denormals(Device& device) {
  const T min_normal = std::numeric_limits<T>::min();
  const std::vector<T> x = {min_normal, std::numeric_limits<T>::denorm_min() * 4};
  const std::vector<T> y = {T(0.25), T(1 << 20)};
  const std::vector<T> product = run_on_device<T>(device, kMultiply, x, y);
  return {product[0] == 0, product[1] == 0};
}

struct Worst {
  double ulp = 0, rel = 0;
  double x = 0, y = 0, got = 0, want = 0;
  int reported = 0;  // failures reported one by one, up to kReportLimit
  int skipped = 0;   // denormal cases the device cannot represent
};

constexpr int kReportLimit = 5;

template <class T>
Worst measure(Device& device, const MathCase& c, DenormalMode denormals) {
  constexpr bool kFloat32 = sizeof(T) == 4;
  const Inputs inputs = c.inputs(kFloat32);
  const std::vector<T> x(inputs.x.begin(), inputs.x.end()), y(inputs.y.begin(), inputs.y.end());
  const std::vector<T> got = run_on_device<T>(device, c.fn, x, y);

  // The oracle runs in float64 on the same (possibly float32-rounded) values.
  std::vector<double> xd(x.begin(), x.end()), yd(y.begin(), y.end());
  const auto options = at::TensorOptions().dtype(at::kDouble);
  const at::Tensor tx = at::from_blob(xd.data(), {static_cast<int64_t>(xd.size())}, options);
  const at::Tensor ty = at::from_blob(yd.data(), {static_cast<int64_t>(yd.size())}, options);
  const at::Tensor expected = c.oracle(tx, ty).to(kFloat32 ? at::kFloat : at::kDouble).contiguous();
  std::vector<T> want(expected.data_ptr<T>(), expected.data_ptr<T>() + x.size());
  if (c.glibc) {
    for (size_t i = 0; i < x.size(); ++i) {
      const T host = static_cast<T>(c.glibc(xd[i]));
      if (std::isinf(want[i]) && std::isfinite(host)) want[i] = host;
    }
  }

  const bool binary = c.fn == kAtan2 || c.fn == kPow;
  Worst worst;
  auto report = [&](size_t i) {
    if (++worst.reported > kReportLimit) return;
    ADD_FAILURE() << c.name << "(" << x[i] << (binary ? ", " + std::to_string(y[i]) : "") << ") = " << got[i]
                  << ", want " << want[i];
  };
  for (size_t i = 0; i < x.size(); ++i) {
    const T g = got[i], w = want[i];
    const bool denormal_input =
        std::fpclassify(x[i]) == FP_SUBNORMAL || (binary && std::fpclassify(y[i]) == FP_SUBNORMAL);
    if ((denormals.zeroes_inputs && denormal_input) ||
        (denormals.flushes_results && std::fpclassify(w) == FP_SUBNORMAL && g == 0)) {
      ++worst.skipped;
      continue;
    }
    if (std::isnan(w) || std::isnan(g)) {
      if (std::isnan(w) != std::isnan(g)) report(i);
      continue;
    }
    // Special inputs give exact results in C and LibTorch, zeros' signs included.
    const bool special_input =
        !std::isfinite(x[i]) || x[i] == 0 || (binary && (!std::isfinite(y[i]) || y[i] == 0));
    if (special_input && (g != w || std::signbit(g) != std::signbit(w))) report(i);
    const double ulp = ulp_distance(g, w);
    const double rel = w == 0 ? (g == 0 ? 0.0 : std::numeric_limits<double>::infinity())
                              : std::abs((double(g) - double(w)) / double(w));
    if (ulp > worst.ulp) {
      worst.ulp = ulp;
      worst.x = x[i];
      worst.y = y[i];
      worst.got = g;
      worst.want = w;
    }
    if (std::isfinite(rel)) worst.rel = std::max(worst.rel, rel);
  }
  return worst;
}

class MathAccuracy : public VulkanTest {
 protected:

  template <class T>
  void check_all_functions(double max_ulp) {
    constexpr bool kFloat32 = sizeof(T) == 4;
    const DenormalMode denormals = probe_denormals<T>(*device);
    if (denormals.flushes_results || denormals.zeroes_inputs) {
      std::printf("[  NOTE    ] this device flushes %s denormals; those cases are skipped\n",
                  kFloat32 ? "float32" : "float64");
    }
    std::printf("%-8s %8s %10s   worst case\n", kFloat32 ? "float32" : "float64", "max ulp", "max rel");
    for (const MathCase& c : math_cases()) {
      SCOPED_TRACE(c.name);
      const Worst worst = measure<T>(*device, c, denormals);
      const std::string y = c.fn == kAtan2 || c.fn == kPow ? ", " + std::to_string(worst.y) : "";
      std::printf("%-8s %8.0f %10.3g   %s(%.17g%s) = %.17g, want %.17g\n", c.name, worst.ulp, worst.rel,
                  c.name, worst.x, y.c_str(), worst.got, worst.want);
      EXPECT_LE(worst.ulp, max_ulp);
    }
  }
};

TEST_F(MathAccuracy, Float32) { check_all_functions<float>(2); }

TEST_F(MathAccuracy, Float64) {
  if (!device->supports(DType::Float64)) GTEST_SKIP() << "the device has no float64";
  check_all_functions<double>(2);
}

}  // namespace
}  // namespace ember::test
