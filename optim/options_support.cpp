#include "optim/options_support.h"

#include <cmath>
#include <vector>

namespace ember::optim::detail {

namespace {
[[noreturn]] void wrong_type(const std::string& key, const char* expected) {
  throw Error("load_state_dict: param group option '" + key + "' must be " + expected);
}
}  // namespace

double option_double(const std::string& key, const OptionValue& value) {
  if (const double* d = std::get_if<double>(&value)) return *d;
  if (const int64_t* i = std::get_if<int64_t>(&value)) return static_cast<double>(*i);
  if (const bool* b = std::get_if<bool>(&value)) return *b ? 1.0 : 0.0;  // Python's bools are ints
  wrong_type(key, "a number");
}

bool option_bool(const std::string& key, const OptionValue& value) {
  if (const bool* b = std::get_if<bool>(&value)) return *b;
  if (const int64_t* i = std::get_if<int64_t>(&value)) return *i != 0;
  if (const double* d = std::get_if<double>(&value)) return *d != 0;
  wrong_type(key, "a bool");
}

int64_t option_int(const std::string& key, const OptionValue& value) {
  if (const int64_t* i = std::get_if<int64_t>(&value)) return *i;
  // A whole float (JSON written by a float-only writer) is the same int.
  if (const double* d = std::get_if<double>(&value); d && std::trunc(*d) == *d && std::abs(*d) < 9.0e15) {
    return static_cast<int64_t>(*d);
  }
  wrong_type(key, "an int");
}

std::optional<std::string> option_optional_string(const std::string& key, const OptionValue& value) {
  if (std::holds_alternative<std::monostate>(value)) return std::nullopt;
  if (const std::string* s = std::get_if<std::string>(&value)) return *s;
  wrong_type(key, "a string or None");
}

std::pair<double, double> option_pair(const std::string& key, const OptionValue& value) {
  const auto* list = std::get_if<std::vector<double>>(&value);
  if (!list || list->size() != 2) wrong_type(key, "a pair of numbers");
  return {(*list)[0], (*list)[1]};
}

}  // namespace ember::optim::detail
