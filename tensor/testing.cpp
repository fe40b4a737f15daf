// ember::testing::assert_close (ember/testing.h), as torch.testing.assert_close in PyTorch 1.13: its
// attribute checks, default tolerances and report. Values are compared as PyTorch compares them, in
// float64 (float32 where the device has no float64) or int64; numbers print as Python prints them.
#include "ember/testing.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "autograd/engine.h"
#include "tensor/ops_support.h"

namespace ember::testing {

namespace {

struct Tolerances {
  double rtol = 0;
  double atol = 0;
};

// torch.testing's defaults; exact for integers and bools.
Tolerances default_tolerances(DType dtype) {
  switch (dtype) {
    case DType::Float16: return {1e-3, 1e-5};
    case DType::BFloat16: return {1.6e-2, 1e-5};
    case DType::Float32: return {1.3e-6, 1e-5};
    case DType::Float64: return {1e-7, 1e-7};
    case DType::Int8:
    case DType::UInt8:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64:
    case DType::Bool: return {0, 0};
  }
  return {0, 0};
}

// repr() of a Python float: the shortest digits that read back to `value`, written positionally when the
// decimal point falls within 16 digits of them (and at most 4 zeros after the point), else as 1.5e-05.
std::string python_float(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buffer[64];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific).ptr;
  const std::string text(buffer, end);  // "-1.25e-03"
  const size_t e = text.find('e');
  const bool negative = text[0] == '-';
  std::string digits;
  for (size_t i = negative ? 1 : 0; i < e; ++i) {
    if (text[i] != '.') digits += text[i];
  }
  const int exponent = std::atoi(text.c_str() + e + 1);
  const int point = exponent + 1;  // digits before the decimal point
  const int ndigits = static_cast<int>(digits.size());
  std::string out = negative ? "-" : "";
  if (point <= -4 || point > 16) {
    out += digits[0];
    if (ndigits > 1) out.append(".").append(digits, 1);
    char exp_text[16];
    std::snprintf(exp_text, sizeof exp_text, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return out + exp_text;
  }
  if (point <= 0) {
    out.append("0.").append(static_cast<size_t>(-point), '0').append(digits);
  } else if (point >= ndigits) {
    out.append(digits).append(static_cast<size_t>(point - ndigits), '0').append(".0");
  } else {
    out.append(digits, 0, point).append(".").append(digits, point);
  }
  return out;
}

// A Python tuple of ints: "(1, 2)", "(3,)", "()".
std::string python_tuple(IntArrayRef values) {
  std::string out = "(";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + (values.size() == 1 ? ",)" : ")");
}

std::vector<int64_t> unravel(int64_t flat, IntArrayRef shape) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return index;
}

[[noreturn]] void fail(const AssertCloseOptions& options, const std::string& report) {
  throw AssertionError(options.msg.value_or(report));
}

void check_attributes(const Tensor& actual, const Tensor& expected, const AssertCloseOptions& options) {
  auto mismatch = [&](const std::string& attribute, const std::string& a, const std::string& b) {
    fail(options, "The values for attribute '" + attribute + "' do not match: " + a + " != " + b + ".");
  };
  if (!(actual.sizes() == expected.sizes())) {
    mismatch("shape", autograd::torch_size(actual.sizes()), autograd::torch_size(expected.sizes()));
  }
  if (options.check_stride && !(actual.strides() == expected.strides())) {
    mismatch("stride()", python_tuple(actual.strides()), python_tuple(expected.strides()));
  }
  if (options.check_device && actual.device()->spec() != expected.device()->spec()) {
    mismatch("device", actual.device()->spec(), expected.device()->spec());
  }
  if (options.check_dtype && actual.dtype() != expected.dtype()) {
    mismatch("dtype", "torch." + std::string(dtype_name(actual.dtype())),
             "torch." + std::string(dtype_name(expected.dtype())));
  }
}

Tolerances tolerances_for(const Tensor& actual, const Tensor& expected, const AssertCloseOptions& options) {
  if (options.rtol.has_value() != options.atol.has_value()) {
    throw Error(std::string("Both 'rtol' and 'atol' must be either specified or omitted, but got no ") +
                (options.rtol ? "atol" : "rtol") + ".");
  }
  if (options.rtol) return {*options.rtol, *options.atol};
  const Tolerances a = default_tolerances(actual.dtype()), b = default_tolerances(expected.dtype());
  return {std::max(a.rtol, b.rtol), std::max(a.atol, b.atol)};
}

// The greatest differences among the mismatched elements, as numbers printed the Python way.
struct Differences {
  std::string absolute, relative;
  int64_t absolute_at = 0, relative_at = 0;  // flat indices
};

// a and b are 0-dim: Python's scalar arithmetic on their values.
Differences scalar_differences(const Tensor& a, const Tensor& b) {
  Differences d;
  const Tensor both = stack({a, b});
  if (is_floating_point(a.dtype())) {
    const std::vector<double> v = both.to_vector<double>();
    const double diff = std::abs(v[0] - v[1]);
    d.absolute = python_float(diff);
    d.relative = python_float(v[1] == 0 ? INFINITY : diff / std::abs(v[1]));
  } else {
    const std::vector<int64_t> v = both.to_vector<int64_t>();
    const int64_t diff = std::abs(v[0] - v[1]);
    d.absolute = std::to_string(diff);
    d.relative = python_float(v[1] == 0 ? INFINITY : static_cast<double>(diff) / static_cast<double>(std::abs(v[1])));
  }
  return d;
}

// The greatest |a - b| and |a - b| / |b| over the mismatched elements, found on the device; integers'
// relative difference is a true division, in the default float dtype, as PyTorch's.
Differences tensor_differences(const Tensor& a, const Tensor& b, const Tensor& matches) {
  const Tensor matched = matches.reshape({-1});
  const Tensor absolute = (a - b).abs().reshape({-1}).masked_fill(matched, 0);
  const Tensor relative = (absolute / b.abs().reshape({-1})).masked_fill(matched, 0);
  const auto [max_absolute, absolute_at] = absolute.max(0);
  const auto [max_relative, relative_at] = relative.max(0);
  Differences d;
  const std::vector<int64_t> at = stack({absolute_at, relative_at}).to_vector<int64_t>();
  d.absolute_at = at[0];
  d.relative_at = at[1];
  d.absolute = is_floating_point(a.dtype()) ? python_float(max_absolute.item<double>())
                                            : std::to_string(max_absolute.item<int64_t>());
  d.relative = python_float(max_relative.item<double>());
  return d;
}

}  // namespace

void assert_close(const Tensor& actual_in, const Tensor& expected_in, const AssertCloseOptions& options) {
  const Tolerances tol = tolerances_for(actual_in, expected_in, options);
  check_attributes(actual_in, expected_in, options);

  const std::shared_ptr<Device>& device = actual_in.device();
  const DType common = promote_types(actual_in.dtype(), expected_in.dtype());
  const DType compared = !is_floating_point(common)      ? DType::Int64
                         : device->supports(DType::Float64) ? DType::Float64
                                                            : DType::Float32;
  const Tensor a = actual_in.detach().to(common).to(compared);
  Tensor b = expected_in.detach();
  if (b.device() != device) b = b.to(device);
  b = b.to(common).to(compared);

  const Tensor matches = a.isclose(b, tol.rtol, tol.atol, options.equal_nan);
  const int64_t mismatched = matches.logical_not().sum().item<int64_t>();
  if (mismatched == 0) return;

  const bool exact = tol.rtol == 0 && tol.atol == 0;
  const bool scalar = a.dim() == 0;
  const Differences d = scalar ? scalar_differences(a, b) : tensor_differences(a, b, matches);
  std::string report = std::string(scalar ? "Scalars" : "Tensor-likes") + " are not " + (exact ? "equal" : "close") +
                       "!\n\n";
  if (!scalar) {
    char share[32];
    // Python's "{:.1%}": the ratio first, then times 100.
    const double ratio = static_cast<double>(mismatched) / static_cast<double>(a.numel());
    std::snprintf(share, sizeof share, "%.1f%%", ratio * 100.0);
    report += "Mismatched elements: " + std::to_string(mismatched) + " / " + std::to_string(a.numel()) + " (" + share +
              ")\n";
  }
  auto line = [&](const std::string& kind, const std::string& diff, int64_t at, double allowed) {
    std::string text = scalar ? kind + " difference: " + diff
                              : "Greatest " + std::string(1, static_cast<char>(std::tolower(kind[0]))) +
                                    kind.substr(1) + " difference: " + diff + " at index " +
                                    python_tuple(unravel(at, a.sizes()));
    if (!exact) text += " (up to " + python_float(allowed) + " allowed)";
    return text;
  };
  report += line("Absolute", d.absolute, d.absolute_at, tol.atol) + "\n" +
            line("Relative", d.relative, d.relative_at, tol.rtol);
  fail(options, report);
}

}  // namespace ember::testing
