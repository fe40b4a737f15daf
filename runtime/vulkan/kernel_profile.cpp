#include "runtime/vulkan/kernel_profile.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

namespace ember::vulkan {

namespace {

struct Totals {
  std::mutex mutex;
  std::map<std::string, KernelTime, std::less<>> by_shader;
};

Totals& totals() {
  static auto* instance = new Totals;  // never destroyed: streams may still add while statics go away
  return *instance;
}

void print_report_at_exit() {
  const std::string report = kernel_profile_report();
  std::fputs(report.c_str(), stderr);
}

}  // namespace

bool kernel_profiling() {
  const char* value = std::getenv("EMBER_PROFILE");
  if (value == nullptr || std::string(value) != "1") return false;
  static const bool registered = std::atexit(print_report_at_exit) == 0;
  (void)registered;
  return true;
}

void add_kernel_time(const std::string& shader, double nanoseconds) {
  Totals& t = totals();
  std::lock_guard lock(t.mutex);
  auto it = t.by_shader.find(shader);
  if (it == t.by_shader.end()) it = t.by_shader.emplace(shader, KernelTime{shader}).first;
  it->second.dispatches += 1;
  it->second.milliseconds += nanoseconds * 1e-6;
}

std::vector<KernelTime> kernel_times() {
  Totals& t = totals();
  std::vector<KernelTime> times;
  {
    std::lock_guard lock(t.mutex);
    for (const auto& [shader, time] : t.by_shader) times.push_back(time);
  }
  std::stable_sort(times.begin(), times.end(),
                   [](const KernelTime& a, const KernelTime& b) { return a.milliseconds > b.milliseconds; });
  return times;
}

void reset_kernel_times() {
  Totals& t = totals();
  std::lock_guard lock(t.mutex);
  t.by_shader.clear();
}

std::string kernel_profile_report() {
  const std::vector<KernelTime> times = kernel_times();
  double total_ms = 0;
  uint64_t total_dispatches = 0;
  for (const KernelTime& time : times) {
    total_ms += time.milliseconds;
    total_dispatches += time.dispatches;
  }
  std::string report = "ember kernel profile (EMBER_PROFILE=1), device time between timestamps around each dispatch:\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-44s %10s %12s %10s %7s\n", "shader", "dispatches", "total ms", "mean us",
                "share");
  report += line;
  for (const KernelTime& time : times) {
    std::snprintf(line, sizeof line, "%-44s %10llu %12.3f %10.1f %6.1f%%\n", time.shader.c_str(),
                  static_cast<unsigned long long>(time.dispatches), time.milliseconds,
                  1e3 * time.milliseconds / static_cast<double>(time.dispatches),
                  total_ms > 0 ? 100.0 * time.milliseconds / total_ms : 0.0);
    report += line;
  }
  std::snprintf(line, sizeof line, "%-44s %10llu %12.3f\n", "all", static_cast<unsigned long long>(total_dispatches),
                total_ms);
  report += line;
  return report;
}

}  // namespace ember::vulkan
