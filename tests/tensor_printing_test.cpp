// Tensor printing against PyTorch's own repr, and a dtype's name against LibTorch's. Every case's values
// go to /usr/bin/python3 (python3-torch, installed in CI by scripts/setup-debian.sh) in one run, which
// prints repr() of the same tensor under the same print options; ember's text must match it character for
// character.
//
// ember always prints the device (see tensor/printing.cpp). To let PyTorch place that suffix itself, the
// script makes PyTorch treat CPU as a non-default device (so it adds device='cpu', as it does for CUDA
// tensors) and swaps the text for ember's device spec before PyTorch lays out the suffixes.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <sstream>

#include "tests/oracle.h"
#include "tests/python_oracle.h"
#include "test_support.h"

namespace ember::test {
namespace {

// Deterministic values; their exact bits do not matter, since PyTorch receives the same values.
std::vector<double> normal_values(size_t count, double scale, uint64_t seed) {
  std::mt19937_64 bits(seed);
  std::vector<double> values(count);
  for (double& v : values) {
    const double u1 = (static_cast<double>(bits() >> 11) + 1) * 0x1p-53;
    const double u2 = static_cast<double>(bits() >> 11) * 0x1p-53;
    v = scale * std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  }
  return values;
}

std::vector<double> sequence(size_t count, double start = 0, double step = 1) {
  std::vector<double> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = start + step * static_cast<double>(i);
  return values;
}

Tensor make(const std::vector<double>& values, IntArrayRef sizes, DType dtype = kFloat32) {
  return tensor(TensorData(values), dtype).reshape(sizes);
}

struct PrintCase {
  std::string name;
  std::function<Tensor()> make;
  PrintOptions options = {};
  DType default_dtype = kFloat32;
};

PrintOptions with(std::function<void(PrintOptions&)> change) {
  PrintOptions options;
  change(options);
  return options;
}

const std::vector<PrintCase>& cases() {
  const double nan = std::nan(""), inf = INFINITY;
  static const std::vector<PrintCase> all = {
      {"Float32Small", [] { return make({1.5, -2.25, 3.0, 0.125, 4.5, -6.75}, {2, 3}); }},
      {"Float32Integers", [] { return make({1, 2, -3, 40}, {4}); }},
      {"Float32IntegersWideRange", [] { return make({1, 10000, -3}, {3}); }},
      {"Float32Tiny", [] { return make({1e-5, 0.5, 2.0}, {3}); }},
      {"Float32Huge", [] { return make({1e9, 2.5, -3.25}, {3}); }},
      {"Float32MixedMagnitudes",
       [] {
         std::vector<double> values = normal_values(12, 1.0, 1);
         const double scales[] = {1e-3, 1, 1e2, 1e5};
         for (size_t i = 0; i < values.size(); ++i) values[i] *= scales[i % 4];
         return make(values, {3, 4});
       }},
      {"Float32Random", [] { return make(normal_values(24, 1.0, 2), {2, 3, 4}); }},
      {"Float32NonFinite", [nan, inf] { return make({nan, inf, -inf, 0.0, -0.0, 1.25, -nan}, {7}); }},
      {"Float32NonFiniteIntegers", [nan, inf] { return make({nan, inf, -inf, 0.0, 3.0}, {5}); }},
      {"Float32AllZero", [] { return make({0, 0, 0, 0}, {2, 2}); }},
      {"Float32AllNan", [nan] { return make({nan, nan}, {2}); }},
      {"Float32NegativeZeroFixed", [] { return make({-0.0, 0.5, -1e-5}, {3}); }},
      {"Float16", [] { return make({0.1, -2.5, 65504, 1e-3, 3.14159}, {5}, kFloat16); }},
      {"Float16Integers", [inf] { return make({1, -2, 2048, inf}, {4}, kFloat16); }},
      {"BFloat16", [] { return make(normal_values(6, 10.0, 3), {2, 3}, kBFloat16); }},
      {"Float64", [] { return make({1.0 / 3.0, -2.0 / 7.0, 1e-10, 12345.678901234}, {2, 2}, kFloat64); }},
      {"Int64", [] { return make({1, -20, 300, 4000, 0, -5}, {2, 3}, kInt64); }},
      {"Int32", [] { return make({7, -123456, 42}, {3}, kInt32); }},
      {"Int16", [] { return make({-32768, 32767, 0}, {3}, kInt16); }},
      {"Int8", [] { return make({-128, 127, -1, 0, 5, 9}, {3, 2}, kInt8); }},
      {"UInt8", [] { return make({0, 255, 17}, {3}, kUInt8); }},
      {"Bool", [] { return make({1, 0, 0, 1, 1, 0}, {2, 3}, kBool); }},
      {"ZeroDimFloat", [] { return make({3.14159265358979}, {}); }},
      {"ZeroDimFloatInteger", [] { return make({-7}, {}); }},
      {"ZeroDimFloatZero", [] { return make({0}, {}); }},
      {"ZeroDimFloat16", [] { return make({0.333}, {}, kFloat16); }},
      {"ZeroDimInt64", [] { return make({-42}, {}, kInt64); }},
      {"ZeroDimBool", [] { return make({1}, {}, kBool); }},
      {"EmptyFloat1D", [] { return make({}, {0}); }},
      {"EmptyFloat2D", [] { return make({}, {0, 3}); }},
      {"EmptyInt64", [] { return make({}, {0}, kInt64); }},
      {"EmptyBool3D", [] { return make({}, {2, 0, 3}, kBool); }},
      {"EmptyFloat16", [] { return make({}, {0}, kFloat16); }},
      {"ThreeDim", [] { return make(sequence(24, -12, 0.5), {2, 3, 4}); }},
      {"FourDim", [] { return make(sequence(36, 0, 1), {2, 3, 2, 3}, kInt64); }},
      {"Transposed", [] { return make(sequence(12, 0, 0.25), {3, 4}).t(); }},
      {"SlicedWithStep", [] { return make(sequence(40, 0, 1.5), {5, 8}).slice(1, 1, 8, 3); }},
      {"Summarised1D", [] { return make(sequence(2000, 0, 0.5), {2000}); }},
      {"Summarised1DInt", [] { return make(sequence(2000, -1000, 1), {2000}, kInt64); }},
      {"Summarised2D", [] { return make(normal_values(2000, 1.0, 4), {40, 50}); }},
      {"Summarised3D", [] { return make(normal_values(6000, 100.0, 5), {10, 20, 30}); }},
      {"Summarised3DSmallFirstDim", [] { return make(sequence(3000, 0, 1), {2, 30, 50}, kInt32); }},
      {"SummarisedTransposed", [] { return make(normal_values(2000, 1.0, 6), {40, 50}).t(); }},
      {"SummarisedManyDims",  // more split dims than a kernel takes: the host picks the shown elements
       [] { return make(sequence(19683, 0, 1), {3, 3, 3, 3, 3, 3, 3, 3, 3}, kInt64); },
       with([](PrintOptions& o) { o.threshold = 10; o.edgeitems = 1; })},
      {"Precision2", [] { return make({1.12345, -2.5, 3.14159}, {3}); },
       with([](PrintOptions& o) { o.precision = 2; })},
      {"Precision8Sci", [] { return make({1.12345e-7, -2.5, 3.14159}, {3}, kFloat64); },
       with([](PrintOptions& o) { o.precision = 8; })},
      {"Threshold5", [] { return make(sequence(10), {10}, kInt64); },
       with([](PrintOptions& o) { o.threshold = 5; })},
      {"Threshold5Edge1", [] { return make(sequence(60, 0, 0.5), {3, 4, 5}); },
       with([](PrintOptions& o) { o.threshold = 5; o.edgeitems = 1; })},
      {"Edgeitems5", [] { return make(normal_values(3000, 1.0, 7), {3000}); },
       with([](PrintOptions& o) { o.edgeitems = 5; })},
      {"SciModeOn", [] { return make({1.5, -2.25, 3.0}, {3}); },
       with([](PrintOptions& o) { o.sci_mode = true; })},
      {"SciModeOnIntegers", [] { return make({0, 2, -3}, {3}); },
       with([](PrintOptions& o) { o.sci_mode = true; })},
      {"SciModeOff", [] { return make({1e-5, 0.5, 2e9}, {3}); },
       with([](PrintOptions& o) { o.sci_mode = false; })},
      {"SciModeOffIntegers", [] { return make({1, 1e9}, {2}); },
       with([](PrintOptions& o) { o.sci_mode = false; })},
      {"LongRowWraps", [] { return make(normal_values(100, 1.0, 8), {100}); }},
      {"LongIntRowWraps", [] { return make(sequence(70, -35, 1), {70}, kInt8); }},
      {"Linewidth40", [] { return make(normal_values(30, 1.0, 9), {2, 15}); },
       with([](PrintOptions& o) { o.linewidth = 40; })},
      {"Linewidth200", [] { return make(normal_values(60, 1.0, 10), {60}); },
       with([](PrintOptions& o) { o.linewidth = 200; })},
      {"LinewidthNarrowerThanElement", [] { return make({123.456, -7.5}, {2}); },
       with([](PrintOptions& o) { o.linewidth = 5; })},
      {"SuffixWrapsToNextLine", [] { return make(normal_values(9, 1.0, 11), {9}, kFloat16); }},
      {"SummarisedSuffixWraps", [] { return make(normal_values(2000, 1.0, 12), {2000}, kBFloat16); }},
      {"DefaultDtypeFloat64", [] { return make({1.5, 2.25}, {2}, kFloat64); }, {}, kFloat64},
      {"DefaultDtypeFloat64ShowsFloat32", [] { return make({1.5, 2.25}, {2}, kFloat32); }, {}, kFloat64},
      {"DefaultDtypeFloat64EmptyFloat32", [] { return make({}, {0}, kFloat32); }, {}, kFloat64},
      {"RequiresGrad", [] { return tensor({1.5, 2.25}, TensorOptions(kFloat32).requires_grad(true)); }},
  };
  return all;
}

std::string python_dtype(DType dtype) { return "torch." + std::string(dtype_name(dtype)); }

std::string python_shape(IntArrayRef sizes) {
  std::string out = "(";
  for (int64_t s : sizes) out += std::to_string(s) + ",";
  return out + ")";
}

// The case's tensor rebuilt in Python from its values, printed under its options.
std::string python_call(const PrintCase& c, const Tensor& t) {
  std::ostringstream out;
  out << "show([";
  if (t.is_floating_point()) {
    for (double v : t.to_vector<double>()) {
      if (std::isnan(v)) {
        out << "nan,";
      } else if (std::isinf(v)) {
        out << (v > 0 ? "inf," : "-inf,");
      } else {
        char text[64];
        std::snprintf(text, sizeof text, "%.17e,", v);  // round-trips exactly, -0.0 included
        out << text;
      }
    }
  } else {
    for (int64_t v : t.to_vector<int64_t>()) out << v << ",";
  }
  const PrintOptions& o = c.options;
  out << "], " << python_dtype(t.dtype()) << ", " << python_shape(t.sizes()) << ", "
      << (t.impl().requires_grad ? "True" : "False") << ", \"device='" << t.device()->spec() << "'\", "
      << python_dtype(c.default_dtype) << ", dict(precision=" << o.precision << ", threshold=" << o.threshold
      << ", edgeitems=" << o.edgeitems << ", linewidth=" << o.linewidth
      << ", sci_mode=" << (!o.sci_mode ? "None" : *o.sci_mode ? "True" : "False") << "))\n";
  return out.str();
}

// python_answers runs it after importing torch.
constexpr const char* kScriptHead = R"(import torch._tensor_str as tensor_str
nan, inf = float("nan"), float("inf")
add_suffixes = tensor_str._add_suffixes
device = None
def add_ember_device(text, suffixes, indent, force_newline):
    suffixes = [device if s == "device='cpu'" else s for s in suffixes]
    return add_suffixes(text, suffixes, indent, force_newline)
tensor_str._add_suffixes = add_ember_device
# CPU becomes a non-default device type, so PyTorch adds a device suffix as it does for CUDA tensors.
torch._C._get_default_device = lambda: "ember"
def show(values, dtype, shape, requires_grad, device_suffix, default_dtype, options):
    global device
    device = device_suffix
    torch.set_default_dtype(default_dtype)
    torch.set_printoptions(**options)
    x = torch.tensor(values, dtype=dtype).reshape(shape)
    if requires_grad:
        x.requires_grad_()
    print(repr(x))
    print("@@END@@")
)";

// PyTorch's repr of every case, from one Python run (importing torch takes seconds).
struct Oracle {
  std::string unavailable;  // why PyTorch is absent (the tests skip), or ""
  std::string failure;      // why the script failed (the tests fail), or ""
  std::vector<std::optional<std::string>> reprs;  // nullopt where the case cannot run on this device
  std::vector<std::string> skip_reasons;
};

const Oracle& oracle() {
  static const Oracle result = [] {
    Oracle o;
    std::string script = kScriptHead;
    std::vector<bool> runs;
    for (const PrintCase& c : cases()) {
      set_default_dtype(kFloat32);
      try {
        script += python_call(c, c.make());
        runs.push_back(true);
        o.skip_reasons.emplace_back();
      } catch (const UnsupportedError& error) {
        runs.push_back(false);
        o.skip_reasons.emplace_back(error.what());
      }
    }
    const std::vector<std::string> answers = python_answers(script, o.unavailable);
    if (!o.unavailable.empty()) return o;
    size_t next = 0;
    for (bool ran : runs) {
      if (!ran) {
        o.reprs.emplace_back();
        continue;
      }
      if (next == answers.size() || answers[next].rfind(kScriptFailed, 0) == 0) {
        o.failure = "the PyTorch script failed: " + (next < answers.size() ? answers[next] : "no answer");
        return o;
      }
      o.reprs.emplace_back(answers[next++]);
    }
    return o;
  }();
  return result;
}

class TensorPrintingTest : public testing::TestWithParam<size_t> {
 protected:
  void TearDown() override {
    set_printoptions({});
    set_default_dtype(kFloat32);
    expect_no_validation_messages();
  }
};

TEST_P(TensorPrintingTest, MatchesPyTorchRepr) {
  const Oracle& o = oracle();
  if (!o.unavailable.empty()) GTEST_SKIP() << o.unavailable;
  ASSERT_EQ(o.failure, "");
  const PrintCase& c = cases()[GetParam()];
  if (!o.reprs[GetParam()]) GTEST_SKIP() << o.skip_reasons[GetParam()];
  const Tensor t = c.make();
  set_default_dtype(c.default_dtype);
  set_printoptions(c.options);
  EXPECT_EQ(t.toString(), *o.reprs[GetParam()]);
  std::ostringstream streamed;
  streamed << t;
  EXPECT_EQ(streamed.str(), t.toString());
}

INSTANTIATE_TEST_SUITE_P(Cases, TensorPrintingTest, testing::Range<size_t>(0, cases().size()),
                         [](const testing::TestParamInfo<size_t>& info) { return cases()[info.param].name; });

TEST(TensorPrintingOptions, RoundTripAndValidation) {
  PrintOptions options;
  options.precision = 6;
  options.threshold = 50;
  options.edgeitems = 2;
  options.linewidth = 120;
  options.sci_mode = false;
  set_printoptions(options);
  EXPECT_EQ(get_printoptions().precision, 6);
  EXPECT_EQ(get_printoptions().threshold, 50);
  EXPECT_EQ(get_printoptions().edgeitems, 2);
  EXPECT_EQ(get_printoptions().linewidth, 120);
  EXPECT_EQ(get_printoptions().sci_mode, std::optional<bool>(false));
  EXPECT_THROW(set_printoptions(with([](PrintOptions& o) { o.precision = -1; })), Error);
  EXPECT_THROW(set_printoptions(with([](PrintOptions& o) { o.edgeitems = 0; })), Error);
  EXPECT_EQ(get_printoptions().precision, 6);  // a rejected call changes nothing
  set_printoptions({});
  EXPECT_EQ(get_printoptions().precision, 4);
  EXPECT_FALSE(get_printoptions().sci_mode.has_value());
}

TEST(TensorPrintingOptions, UndefinedTensor) {
  EXPECT_EQ(Tensor().toString(), "[ Tensor (undefined) ]");
}

// A dtype prints as LibTorch prints its ScalarType (`std::cout << torch::kFloat` gives "Float").
TEST(TensorPrintingOptions, DTypePrintsAsLibTorchsScalarType) {
  for (DType dtype : kAllDTypes) {
    std::ostringstream ours, theirs;
    ours << dtype;
    theirs << torch_dtype(dtype);
    EXPECT_EQ(ours.str(), theirs.str());
  }
}

}  // namespace
}  // namespace ember::test
