#pragma once
// Sets an environment variable for its lifetime ("" unsets it) and puts back what was there: how tests
// and benchmarks flip ember's switches that are read at every call (EMBER_MATMUL_VARIANT,
// EMBER_TEXEL_READS) to run every kernel on one device.
#include <cstdlib>
#include <optional>
#include <string>

namespace ember {

class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) previous_ = old;
    if (value.empty()) unsetenv(name);
    else setenv(name, value.c_str(), 1);
  }
  ~ScopedEnvironment() {
    if (previous_) setenv(name_.c_str(), previous_->c_str(), 1);
    else unsetenv(name_.c_str());
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  std::string name_;
  std::optional<std::string> previous_;
};

}  // namespace ember
