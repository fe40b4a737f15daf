#pragma once
// Checks of numeric command-line options for ember's programs (CLI11). CLI11's PositiveNumber refuses 0
// with "Value 0 not in range 0.000000 to " and the largest double written out in 309 digits; these say
// what the option needs and what it got, and also refuse inf and nan.
#include <CLI/CLI.hpp>

#include <cmath>
#include <string>

namespace ember::cli {

// A finite number above zero, or at least zero where `zero_allowed`.
inline CLI::Validator finite_number(bool zero_allowed, const std::string& name) {
  const std::string need = zero_allowed ? "a finite number of at least 0" : "a finite number above 0";
  return CLI::Validator(
      [=](std::string& input) -> std::string {
        double value = 0;
        const bool parsed = CLI::detail::lexical_cast(input, value);
        if (parsed && std::isfinite(value) && (value > 0 || (zero_allowed && value == 0))) return {};
        return "needs " + need + ", got '" + input + "'";
      },
      name);
}

inline const CLI::Validator kPositive = finite_number(false, "POSITIVE");
inline const CLI::Validator kNonNegative = finite_number(true, "NONNEGATIVE");

}  // namespace ember::cli
