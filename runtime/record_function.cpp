#include "runtime/record_function.h"

#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>

#include "runtime/vulkan/kernel_profile.h"

namespace ember::profiler {

namespace {

struct Scopes {
  std::mutex mutex;
  std::vector<detail::ScopeTotals> paths{detail::ScopeTotals{}};  // [0]: outside every region
  std::map<std::pair<uint32_t, std::string>, uint32_t, std::less<>> numbers;
};

Scopes& scopes() {
  static auto* instance = new Scopes;  // never destroyed: batches may retire while statics go away
  return *instance;
}

thread_local uint32_t current = 0;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

uint32_t number_of(uint32_t enclosing, std::string_view name) {
  Scopes& s = scopes();
  std::lock_guard lock(s.mutex);
  auto key = std::make_pair(enclosing, std::string(name));
  if (auto it = s.numbers.find(key); it != s.numbers.end()) return it->second;
  const auto number = static_cast<uint32_t>(s.paths.size());
  s.paths.push_back({key.second, enclosing});
  s.numbers.emplace(std::move(key), number);
  return number;
}

}  // namespace

bool recording() {
  // EMBER_PROFILE is read once here: regions are on the hot path, and the variable names the whole run.
  static const bool by_environment = vulkan::kernel_profiling();
  return by_environment || vulkan::profile_running();
}

RecordFunction::RecordFunction(std::string_view name) {
  if (name.empty() || !recording()) return;
  enclosing_ = current;
  scope_ = number_of(enclosing_, name);
  current = scope_;
  start_ns_ = now_ns();
}

RecordFunction::~RecordFunction() {
  if (scope_ == 0) return;
  const int64_t elapsed = now_ns() - start_ns_;
  current = enclosing_;
  Scopes& s = scopes();
  std::lock_guard lock(s.mutex);
  detail::ScopeTotals& totals = s.paths[scope_];
  totals.calls += 1;
  totals.cpu_ms += static_cast<double>(elapsed) * 1e-6;
}

namespace detail {

uint32_t current_scope() { return current; }

std::vector<ScopeTotals> scope_totals() {
  Scopes& s = scopes();
  std::lock_guard lock(s.mutex);
  return s.paths;
}

void add_scope_device_time(uint32_t scope, double nanoseconds) {
  Scopes& s = scopes();
  std::lock_guard lock(s.mutex);
  if (scope >= s.paths.size()) return;
  s.paths[scope].dispatches += 1;
  s.paths[scope].device_ms += nanoseconds * 1e-6;
}

}  // namespace detail
}  // namespace ember::profiler
