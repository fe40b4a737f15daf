#include "optim/options_support.h"

#include <vector>

namespace ember::optim::detail {

namespace {
[[noreturn]] void wrong_type(const std::string& key, const char* expected) {
  throw Error("load_state_dict: param group option '" + key + "' must be " + expected);
}
}  // namespace

double option_double(const std::string& key, const OptionValue& value) {
  if (const double* d = std::get_if<double>(&value)) return *d;
  if (const bool* b = std::get_if<bool>(&value)) return *b ? 1.0 : 0.0;  // Python's bools are ints
  wrong_type(key, "a number");
}

bool option_bool(const std::string& key, const OptionValue& value) {
  if (const bool* b = std::get_if<bool>(&value)) return *b;
  if (const double* d = std::get_if<double>(&value)) return *d != 0;
  wrong_type(key, "a bool");
}

std::pair<double, double> option_pair(const std::string& key, const OptionValue& value) {
  const auto* list = std::get_if<std::vector<double>>(&value);
  if (!list || list->size() != 2) wrong_type(key, "a pair of numbers");
  return {(*list)[0], (*list)[1]};
}

}  // namespace ember::optim::detail
