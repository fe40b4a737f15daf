#include "runtime/vulkan/kernel_profile.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

#include "runtime/record_function.h"
#include "runtime/stream.h"

namespace ember::vulkan {

namespace {

struct Totals {
  std::mutex mutex;
  std::map<std::string, KernelTime, std::less<>> by_shader;
  uint64_t empty_intervals = 0;
  double empty_nanoseconds = 0;
  std::vector<std::weak_ptr<Stream>> timed_streams;
};

std::atomic<int> running_profiles{0};

Totals& totals() {
  static auto* instance = new Totals;  // never destroyed: streams may still add while statics go away
  return *instance;
}

void print_report_at_exit() {
  std::string report = kernel_profile_report();
  const std::vector<profiler::OpAverage> ops = profiler::detail::op_averages(
      {}, profiler::detail::scope_totals(), 1e-6 * empty_interval_nanoseconds(), "self_cpu_time_total");
  if (!ops.empty()) report.append("\n").append(profiler::detail::op_table("ember op profile (EMBER_PROFILE=1)", ops, 100));
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

bool profile_running() { return running_profiles.load(std::memory_order_relaxed) > 0; }
void add_running_profile() { running_profiles.fetch_add(1); }
void remove_running_profile() { running_profiles.fetch_sub(1); }

void track_timed_stream(const std::shared_ptr<Stream>& stream) {
  Totals& t = totals();
  std::lock_guard lock(t.mutex);
  std::erase_if(t.timed_streams, [](const std::weak_ptr<Stream>& weak) { return weak.expired(); });
  t.timed_streams.push_back(stream);
}

void synchronize_timed_streams() {
  std::vector<std::shared_ptr<Stream>> live;
  {
    Totals& t = totals();
    std::lock_guard lock(t.mutex);  // released before the waits: a finished batch takes it to add its times
    for (const std::weak_ptr<Stream>& weak : t.timed_streams) {
      if (std::shared_ptr<Stream> stream = weak.lock()) live.push_back(std::move(stream));
    }
  }
  for (const std::shared_ptr<Stream>& stream : live) stream->synchronize();
}

void add_kernel_time(const std::string& shader, double nanoseconds) {
  Totals& t = totals();
  std::lock_guard lock(t.mutex);
  auto it = t.by_shader.find(shader);
  if (it == t.by_shader.end()) it = t.by_shader.emplace(shader, KernelTime{shader}).first;
  it->second.dispatches += 1;
  it->second.milliseconds += nanoseconds * 1e-6;
}

void add_empty_interval(double nanoseconds) {
  Totals& t = totals();
  std::lock_guard lock(t.mutex);
  t.empty_intervals += 1;
  t.empty_nanoseconds += nanoseconds;
}

double empty_interval_nanoseconds() {
  Totals& t = totals();
  std::lock_guard lock(t.mutex);
  return t.empty_intervals == 0 ? 0.0 : t.empty_nanoseconds / static_cast<double>(t.empty_intervals);
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

std::pair<uint64_t, double> empty_intervals() {
  Totals& t = totals();
  std::lock_guard lock(t.mutex);
  return {t.empty_intervals, t.empty_nanoseconds};
}

void reset_kernel_times() {
  Totals& t = totals();
  std::lock_guard lock(t.mutex);
  t.by_shader.clear();
  t.empty_intervals = 0;
  t.empty_nanoseconds = 0;
}

std::string kernel_table(const std::string& title, const std::vector<KernelTime>& times, double empty_us) {
  // A dispatch's net time: its interval less the timestamps' own cost, never below zero on average.
  auto net_ms = [&](const KernelTime& time) {
    return std::max(0.0, time.milliseconds - 1e-3 * empty_us * static_cast<double>(time.dispatches));
  };
  double total_ms = 0, total_net_ms = 0;
  uint64_t total_dispatches = 0;
  for (const KernelTime& time : times) {
    total_ms += time.milliseconds;
    total_net_ms += net_ms(time);
    total_dispatches += time.dispatches;
  }
  char line[256];
  std::string report = title + ", device time between timestamps around each dispatch;\n";
  std::snprintf(line, sizeof line, "net: less %.1f us, the mean time between two timestamps with nothing between them\n",
                empty_us);
  report += line;
  std::snprintf(line, sizeof line, "%-44s %10s %12s %10s %10s %7s\n", "shader", "dispatches", "total ms", "mean us",
                "net us", "share");
  report += line;
  for (const KernelTime& time : times) {
    const auto dispatches = static_cast<double>(time.dispatches);
    std::snprintf(line, sizeof line, "%-44s %10llu %12.3f %10.1f %10.1f %6.1f%%\n", time.shader.c_str(),
                  static_cast<unsigned long long>(time.dispatches), time.milliseconds, 1e3 * time.milliseconds / dispatches,
                  1e3 * net_ms(time) / dispatches, total_net_ms > 0 ? 100.0 * net_ms(time) / total_net_ms : 0.0);
    report += line;
  }
  std::snprintf(line, sizeof line, "%-44s %10llu %12.3f %10s %10s\n", "all", static_cast<unsigned long long>(total_dispatches),
                total_ms, "", "");
  report += line;
  std::snprintf(line, sizeof line, "%-44s %10s %12.3f\n", "all, net", "", total_net_ms);
  report += line;
  return report;
}

std::string kernel_profile_report() {
  return kernel_table("ember kernel profile (EMBER_PROFILE=1)", kernel_times(), 1e-3 * empty_interval_nanoseconds());
}

}  // namespace ember::vulkan
