#pragma once
// What the optimizers' options share: LibTorch's constructor checks and the conversions of Python's
// param-group values (state_dict's JSON). Internal to optim/.
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "optim/optimizer.h"
#include "runtime/error.h"

namespace ember::optim::detail {

// Throws LibTorch's (and Python's) "<what>: <value>, <value>..." unless `ok`, each value printed as
// c10::str does.
template <class... Values>
void check_option(bool ok, const char* what, const Values&... values) {
  if (ok) return;
  std::ostringstream message;
  message << what << ": ";
  const char* separator = "";
  ((message << separator << values, separator = ", "), ...);
  throw Error(message.str());
}

double option_double(const std::string& key, const OptionValue& value);
bool option_bool(const std::string& key, const OptionValue& value);
int64_t option_int(const std::string& key, const OptionValue& value);
std::optional<std::string> option_optional_string(const std::string& key, const OptionValue& value);
std::pair<double, double> option_pair(const std::string& key, const OptionValue& value);

}  // namespace ember::optim::detail
