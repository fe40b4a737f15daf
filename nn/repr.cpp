#include "nn/repr.h"

#include <charconv>
#include <cmath>

namespace ember::nn {

std::string repr_tuple(const std::vector<int64_t>& values) {
  std::string text = "(";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return text + (values.size() == 1 ? ",)" : ")");
}

std::string repr_float(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  // Python switches to exponent form below 1e-4 and from 1e16; to_chars's shortest form matches the
  // digits, and the format follows Python's rule.
  const double magnitude = std::fabs(value);
  const bool scientific = magnitude != 0 && (magnitude < 1e-4 || magnitude >= 1e16);
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value,
                              scientific ? std::chars_format::scientific : std::chars_format::fixed);
  std::string text(buffer, result.ptr);
  if (scientific) {
    // "1e-05" as Python writes the exponent: a sign and at least two digits.
    const size_t e = text.find('e');
    std::string mantissa = text.substr(0, e), exponent = text.substr(e + 1);
    const char sign = exponent[0] == '-' ? '-' : '+';
    if (exponent[0] == '-' || exponent[0] == '+') exponent = exponent.substr(1);
    if (exponent.size() < 2) exponent = "0" + exponent;
    return mantissa + "e" + sign + exponent;
  }
  if (text.find('.') == std::string::npos) text += ".0";
  return text;
}

}  // namespace ember::nn
