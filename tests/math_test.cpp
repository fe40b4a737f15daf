// Accuracy of shaders/math.glsl: every m_ function runs in the math_test shader (float32 and float64
// modules) on about 10^4 values per function, spread over magnitude bands of its domain plus the special
// values, and is compared with LibTorch on the same values. The float32 oracle is LibTorch's float64
// result rounded to float32, so that it is within half an ulp of the true value.
#include <ATen/ATen.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "runtime/vulkan/vulkan_device.h"
#include "test_support.h"

namespace ember::test {
namespace {

// Function numbers of math_test.comp's FN specialization constant.
enum MathFn {
  kExp, kExp2, kLog, kLog2, kLog10, kLog1p, kExpm1, kSin, kCos, kTan, kAsin, kAcos, kAtan, kAtan2,
  kSinh, kCosh, kTanh, kPow, kErf, kErfc, kErfinv,
};

// out[i] = FN(x[i], y[i]) through math_test_<suffix>.
template <class T>
std::vector<T> run_on_device(Device& device, int fn, const std::vector<T>& x, const std::vector<T>& y) {
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
  vulkan_stream.dispatch(vulkan_device.pipelines().get(shader, {static_cast<uint32_t>(fn)}), bindings,
                         &count, sizeof count, (count + 255) / 256);
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

// Where to sample: uniform in [lo, hi], or with log-uniform magnitude in [lo, hi] (0 < lo < hi) and a
// random sign when `both_signs`.
struct Band {
  double lo, hi;
  bool log_scale;
  bool both_signs;
};

struct Inputs {
  std::vector<double> x, y;
};

struct MathCase {
  const char* name;
  MathFn fn;
  std::function<at::Tensor(const at::Tensor&, const at::Tensor&)> oracle;
  // Inputs for float64 (float32 casts them, and adds its own bands through the same function).
  std::function<Inputs(bool float32)> inputs;
  double f64_ulp;  // bounds asserted
  double f32_ulp;
  double f32_rel = 0.0;  // when nonzero, a relative bound that also passes float32 results
};

constexpr int kPerBand = 1000;

double sample(const Band& band, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  double v = band.log_scale ? std::exp(std::log(band.lo) + unit(rng) * (std::log(band.hi) - std::log(band.lo)))
                            : band.lo + unit(rng) * (band.hi - band.lo);
  if (band.both_signs && (rng() & 1)) v = -v;
  return v;
}

std::vector<double> sample_bands(const std::vector<Band>& bands, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> values;
  for (const Band& band : bands) {
    for (int i = 0; i < kPerBand; ++i) values.push_back(sample(band, rng));
  }
  return values;
}

// Values every function sees: zeros, infinities, NaN, denormals, extremes.
std::vector<double> special_values(bool float32) {
  const double inf = std::numeric_limits<double>::infinity();
  const double min_denormal = float32 ? std::numeric_limits<float>::denorm_min()
                                      : std::numeric_limits<double>::denorm_min();
  const double max = float32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
  const double min_normal = float32 ? std::numeric_limits<float>::min() : std::numeric_limits<double>::min();
  return {0.0, -0.0, inf, -inf, std::nan(""), min_denormal, -min_denormal, min_normal, -min_normal,
          min_normal / 3, max, -max, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 1e-8, -1e-8};
}

Inputs unary(std::vector<Band> bands, bool float32, std::vector<double> extra = {}) {
  Inputs in;
  in.x = sample_bands(bands, 1234 + bands.size());
  for (double v : special_values(float32)) in.x.push_back(v);
  for (double v : extra) in.x.push_back(v);
  in.y.assign(in.x.size(), 0.0);
  return in;
}

// Multiples of pi/2 rounded to the nearest double: the hardest arguments for sin, cos and tan.
std::vector<double> near_multiples_of_pio2(bool float32) {
  std::vector<double> values;
  const long limit = float32 ? 100000 : 100000000;
  for (long k = 1; k < limit; k = k * 3 + 1) {
    const double v = k * 1.5707963267948966192;
    values.push_back(float32 ? static_cast<float>(v) : v);
    values.push_back(-values.back());
  }
  return values;
}

using UnaryOp = at::Tensor (*)(const at::Tensor&);
struct NamedOp {
  const char* name;
  MathFn fn;
  UnaryOp op;
};

std::vector<MathCase> math_cases() {
  const double inf = std::numeric_limits<double>::infinity();
  auto unary_op = [](UnaryOp op) {
    return [op](const at::Tensor& x, const at::Tensor&) { return op(x); };
  };
  std::vector<MathCase> cases;
  cases.push_back({"exp", kExp, unary_op(at::exp), [](bool f32) {
                     return f32 ? unary({{-104, 89, false, false}, {1e-30, 1, true, true}, {-1, 1, false, false}}, f32,
                                        {88.72, 88.73, -87.3, -103.9})
                                : unary({{-745.5, 710, false, false}, {1e-300, 1, true, true}, {-1, 1, false, false}},
                                        f32, {709.78, 709.79, -745.13, -745.14, -708.4, -740});
                   },
                   1, 2});
  cases.push_back({"exp2", kExp2, unary_op(at::exp2), [](bool f32) {
                     return f32 ? unary({{-150, 129, false, false}, {1e-30, 1, true, true}}, f32, {-126, -149, 127, 128})
                                : unary({{-1080, 1025, false, false}, {1e-300, 1, true, true}}, f32,
                                        {-1022, -1074, -1075, 1023, 1024, 10, 52.5});
                   },
                   1, 2});
  for (auto [name, fn, op] : {NamedOp{"log", kLog, at::log}, NamedOp{"log2", kLog2, at::log2},
                              NamedOp{"log10", kLog10, at::log10}}) {
    cases.push_back({name, fn, unary_op(op), [](bool f32) {
                       const double tiny = f32 ? 1e-45 : 5e-324;
                       const double huge = f32 ? 3e38 : 1e308;
                       return unary({{tiny, huge, true, false}, {0.5, 2, false, false}, {1e-16, 0.3, true, true},
                                     {1e-300, 1e-5, true, true}},
                                    f32, {0.1, 10, 100, 1000, 1e10, 1e22, 1024, 0.125, 0.7071067811865476,
                                          1.4142135623730951, -3});
                     },
                     1, 2});
  }
  // The third band of log is 1 + u; rebuild it here so that values cluster around 1.
  for (MathCase& c : cases) {
    if (c.fn != kLog && c.fn != kLog2 && c.fn != kLog10) continue;
    auto base = c.inputs;
    c.inputs = [base](bool f32) {
      Inputs in = base(f32);
      for (int i = 2 * kPerBand; i < 3 * kPerBand; ++i) in.x[i] = 1.0 + in.x[i];
      return in;
    };
  }
  cases.push_back({"log1p", kLog1p, unary_op(at::log1p), [](bool f32) {
                     return unary({{1e-300, 1, true, true}, {1, 1e300, true, false}, {1e-16, 0.5, true, false},
                                   {-1, 1, false, false}},
                                  f32, {-0.999999, -1.0 + 1e-15, 1e-17, -1e-17, -1.5});
                   },
                   1, 2});
  // The third band of log1p approaches -1 from above: x = -1 + u.
  {
    auto base = cases.back().inputs;
    cases.back().inputs = [base](bool f32) {
      Inputs in = base(f32);
      for (int i = 2 * kPerBand; i < 3 * kPerBand; ++i) in.x[i] = -1.0 + in.x[i];
      return in;
    };
  }
  cases.push_back({"expm1", kExpm1, unary_op(at::expm1), [](bool f32) {
                     return f32 ? unary({{-20, 89, false, false}, {1e-30, 1, true, true}, {-1, 1, false, false}}, f32,
                                        {0.34657359, -0.34657359, 88.72, -17})
                                : unary({{-50, 710, false, false}, {1e-300, 1, true, true}, {-1, 1, false, false},
                                         {-40, 40, false, false}},
                                        f32, {0.34657359027997264, -0.34657359027997264, 709.78, -37.5, -40.5});
                   },
                   1, 2});
  for (auto [name, fn, op] : {NamedOp{"sin", kSin, at::sin}, NamedOp{"cos", kCos, at::cos},
                              NamedOp{"tan", kTan, at::tan}}) {
    cases.push_back({name, fn, unary_op(op), [](bool f32) {
                       const double huge = f32 ? 3e38 : 1e308;
                       return unary({{-10, 10, false, false}, {1e-300, 1e5, true, true},
                                     {1e5, huge, true, true}, {-1e6, 1e6, false, false}},
                                    f32, near_multiples_of_pio2(f32));
                     },
                     2, 2});
  }
  for (auto [name, fn, op] : {NamedOp{"asin", kAsin, at::asin}, NamedOp{"acos", kAcos, at::acos}}) {
    cases.push_back({name, fn, unary_op(op), [](bool f32) {
                       return unary({{-1, 1, false, false}, {1e-300, 1, true, true}, {1e-16, 0.1, true, true}},
                                    f32, {0.5, -0.5, 0.9999999999, -0.9999999999, 1.0000001, -3});
                     },
                     2, 2});
  }
  // Near +-1: x = +-(1 - u).
  for (MathCase& c : cases) {
    if (c.fn != kAsin && c.fn != kAcos) continue;
    auto base = c.inputs;
    c.inputs = [base](bool f32) {
      Inputs in = base(f32);
      for (int i = 2 * kPerBand; i < 3 * kPerBand; ++i) in.x[i] = std::copysign(1.0 - std::abs(in.x[i]), in.x[i]);
      return in;
    };
  }
  cases.push_back({"atan", kAtan, unary_op(at::atan), [](bool f32) {
                     return unary({{-10, 10, false, false}, {1e-300, 1e300, true, true}, {0.01, 100, true, true}}, f32,
                                  {0.0625, 0.1875, 1.0 / 3, 7, 1e20, -1e20});
                   },
                   2, 2});
  cases.push_back({"atan2", kAtan2, [](const at::Tensor& y, const at::Tensor& x) { return at::atan2(y, x); },
                   [inf](bool f32) {
                     const double range = f32 ? 1e30 : 1e300;
                     Inputs in;
                     in.x = sample_bands({{-10, 10, false, false}, {1 / range, range, true, true},
                                          {0.1, 10, true, true}},
                                         77);
                     in.y = sample_bands({{-10, 10, false, false}, {1 / range, range, true, true},
                                          {0.1, 10, true, true}},
                                         78);
                     const std::vector<double> specials = {0.0, -0.0, inf, -inf, std::nan(""), 1.0, -1.0, 1e-300, 3.0};
                     for (double a : specials) {
                       for (double b : specials) {
                         in.x.push_back(a);
                         in.y.push_back(b);
                       }
                     }
                     return in;
                   },
                   2, 2});
  cases.push_back({"sinh", kSinh, unary_op(at::sinh), [](bool f32) {
                     return f32 ? unary({{-90, 90, false, false}, {1e-30, 30, true, true}}, f32, {89.4, 89.5, -89.5})
                                : unary({{-711, 711, false, false}, {1e-300, 30, true, true}}, f32,
                                        {710.47, 710.48, -710.48, 22, 1.0});
                   },
                   2, 2});
  cases.push_back({"cosh", kCosh, unary_op(at::cosh), [](bool f32) {
                     return f32 ? unary({{-90, 90, false, false}, {1e-30, 30, true, true}}, f32, {89.4, 89.5, -89.5})
                                : unary({{-711, 711, false, false}, {1e-300, 30, true, true}}, f32,
                                        {710.47, 710.48, -710.48, 22});
                   },
                   2, 2});
  cases.push_back({"tanh", kTanh, unary_op(at::tanh), [](bool f32) {
                     return unary({{-25, 25, false, false}, {1e-300, 30, true, true}, {-1, 1, false, false}}, f32,
                                  {100, -100, 1000, -1000, 9, -9, 0.55, 22});
                   },
                   2, 2});
  cases.push_back({"pow", kPow, [](const at::Tensor& x, const at::Tensor& y) { return at::pow(x, y); },
                   [inf](bool f32) {
                     Inputs in;
                     const double range = f32 ? 1e10 : 1e30;
                     in.x = sample_bands({{1 / range, range, true, false}, {0.5, 2, false, false},
                                          {1e-12, 1e-3, true, true}},
                                         91);
                     in.y = sample_bands({{-30, 30, false, false}, {-300, 300, false, false}, {1e3, 1e10, true, true}},
                                         92);
                     // 1 + u with large exponents, and negative bases with integer exponents.
                     for (int i = 2 * kPerBand; i < 3 * kPerBand; ++i) in.x[i] = 1.0 + in.x[i];
                     std::mt19937_64 rng(93);
                     for (int i = 0; i < kPerBand; ++i) {
                       in.x.push_back(-sample({1e-3, 1e3, true, false}, rng));
                       in.y.push_back(std::floor(sample({-40, 40, false, false}, rng)));
                     }
                     const std::vector<double> specials = {0.0, -0.0, inf, -inf, std::nan(""), 1.0, -1.0, 0.5, -0.5,
                                                           2.0, -2.0, 3.0, -3.0, 2.5, -2.5, 1e300, 1e-300};
                     for (double a : specials) {
                       for (double b : specials) {
                         in.x.push_back(a);
                         in.y.push_back(b);
                       }
                     }
                     return in;
                   },
                   2, 2});
  cases.push_back({"erf", kErf, unary_op(at::erf), [](bool f32) {
                     return unary({{-7, 7, false, false}, {1e-300, 1, true, true}, {0.8, 6, false, true}}, f32,
                                  {0.84375, -0.84375, 5.9, 6.0});
                   },
                   2, 2, 1e-6});
  cases.push_back({"erfc", kErfc, unary_op(at::erfc), [](bool f32) {
                     return f32 ? unary({{-7, 12, false, false}, {1e-30, 1, true, true}, {0.8, 10.1, false, false}},
                                        f32, {0.84375, -0.84375, 9.19, 10.05})
                                : unary({{-7, 28, false, false}, {1e-300, 1, true, true}, {0.8, 27.3, false, false}},
                                        f32, {0.84375, -0.84375, 26.5, 27.2, 27.3, 28});
                   },
                   2, 2});
  cases.push_back({"erfinv", kErfinv, unary_op(at::erfinv), [](bool f32) {
                     return unary({{-1, 1, false, false}, {1e-300, 1, true, true}, {1e-16, 0.1, true, true}}, f32,
                                  {0.999, -0.999, 1.0, -1.0, 0.5});
                   },
                   4, 4});
  // erfinv near +-1: x = +-(1 - u).
  {
    auto base = cases.back().inputs;
    cases.back().inputs = [base](bool f32) {
      Inputs in = base(f32);
      for (int i = 2 * kPerBand; i < 3 * kPerBand; ++i) in.x[i] = std::copysign(1.0 - std::abs(in.x[i]), in.x[i]);
      return in;
    };
  }
  return cases;
}

struct Worst {
  double ulp = 0, rel = 0;
  double x = 0, y = 0, got = 0, want = 0;
  int reported = 0;  // failures reported one by one
};

constexpr int kReportLimit = 5;

template <class T>
Worst measure(Device& device, const MathCase& c) {
  constexpr bool kFloat32 = sizeof(T) == 4;
  const Inputs inputs = c.inputs(kFloat32);
  std::vector<T> x(inputs.x.begin(), inputs.x.end()), y(inputs.y.begin(), inputs.y.end());
  const std::vector<T> got = run_on_device<T>(device, c.fn, x, y);

  // The oracle runs in float64 on the same (possibly float32-rounded) values.
  std::vector<double> xd(x.begin(), x.end()), yd(y.begin(), y.end());
  const auto options = at::TensorOptions().dtype(at::kDouble);
  const at::Tensor tx = at::from_blob(xd.data(), {static_cast<int64_t>(xd.size())}, options);
  const at::Tensor ty = at::from_blob(yd.data(), {static_cast<int64_t>(yd.size())}, options);
  at::Tensor expected = c.oracle(tx, ty).contiguous();
  if (kFloat32) expected = expected.to(at::kFloat).contiguous();
  const T* want = expected.data_ptr<T>();

  Worst worst;
  for (size_t i = 0; i < x.size(); ++i) {
    const T g = got[i], w = want[i];
    const bool binary = c.fn == kAtan2 || c.fn == kPow;
    const bool special_input =
        !std::isfinite(x[i]) || x[i] == 0 || (binary && (!std::isfinite(y[i]) || y[i] == 0));
    if (std::isnan(w) || std::isnan(g)) {
      if (std::isnan(w) != std::isnan(g) && ++worst.reported <= kReportLimit) {
        ADD_FAILURE() << c.name << "(" << x[i] << ", " << y[i] << ") = " << g << ", want " << w;
      }
      continue;
    }
    // Special inputs give exact results in C and LibTorch, zeros' signs included.
    if (special_input && (g != w || std::signbit(g) != std::signbit(w)) && ++worst.reported <= kReportLimit) {
      ADD_FAILURE() << c.name << "(" << x[i] << ", " << y[i] << ") = " << g << ", want " << w;
    }
    const double ulp = ulp_distance(g, w);
    const double rel = w == 0 ? (g == 0 ? 0.0 : std::numeric_limits<double>::infinity()) : std::abs((double(g) - double(w)) / double(w));
    if (ulp > worst.ulp) worst = {ulp, rel, double(x[i]), double(y[i]), double(g), double(w), worst.reported};
    worst.rel = std::max(worst.rel, std::isfinite(rel) ? rel : 0.0);
  }
  return worst;
}

class MathAccuracy : public DeviceTest {
 protected:
  void SetUp() override {
    try {
      device = get_device("vulkan");
    } catch (const DeviceUnavailableError& error) {
      GTEST_SKIP() << "Vulkan is absent here: " << error.what();
    }
  }
  std::shared_ptr<Device> device;
};

template <class T>
void check_all(Device& device) {
  constexpr bool kFloat32 = sizeof(T) == 4;
  std::printf("%-8s %12s %12s   worst at\n", kFloat32 ? "float32" : "float64", "max ulp", "max rel");
  for (const MathCase& c : math_cases()) {
    const Worst worst = measure<T>(device, c);
    std::printf("%-8s %12.0f %12.3g   %s(%.17g%s) = %.17g, want %.17g\n", c.name, worst.ulp, worst.rel, c.name,
                worst.x, c.fn == kAtan2 || c.fn == kPow ? (", " + std::to_string(worst.y)).c_str() : "",
                worst.got, worst.want);
    const double bound = kFloat32 ? c.f32_ulp : c.f64_ulp;
    const bool relative_ok = kFloat32 && c.f32_rel > 0 && worst.rel <= c.f32_rel;
    EXPECT_TRUE(worst.ulp <= bound || relative_ok) << c.name << ": " << worst.ulp << " ulp";
  }
}

TEST_F(MathAccuracy, Float32) { check_all<float>(*device); }

TEST_F(MathAccuracy, Float64) {
  if (!device->supports(DType::Float64)) GTEST_SKIP() << "the device has no float64";
  check_all<double>(*device);
}

}  // namespace
}  // namespace ember::test
