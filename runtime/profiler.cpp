// profiler::Profile over the Vulkan streams' kernel timings (runtime/vulkan/kernel_profile.h): it counts
// the running profiles there, so that streams time their batches, and reports what the totals gained
// between its start and its stop.
#include "runtime/profiler.h"

#include <algorithm>
#include <map>

#include "runtime/vulkan/kernel_profile.h"

namespace ember::profiler {

Profile::Profile() {
  // Times are added when a batch finishes: batches already timed (another profile's, EMBER_PROFILE's)
  // finish first, so that what they add falls before the start.
  vulkan::synchronize_timed_streams();
  at_start_ = totals_now();
  vulkan::add_running_profile();
}

Profile::~Profile() {
  if (!running_) return;
  try {
    stop();
  } catch (...) {
    // A lost device while waiting: nothing left to time, and a destructor must not throw.
    if (running_) vulkan::remove_running_profile();
  }
}

void Profile::stop() {
  if (!running_) return;
  vulkan::synchronize_timed_streams();
  const Totals now = totals_now();
  running_ = false;
  vulkan::remove_running_profile();
  std::map<std::string, KernelAverage> before;
  for (const KernelAverage& kernel : at_start_.kernels) before.emplace(kernel.name, kernel);
  measured_ = {};
  for (const KernelAverage& kernel : now.kernels) {
    KernelAverage gained = kernel;
    // Totals reset since the start (vulkan::reset_kernel_times) count from zero.
    if (auto it = before.find(kernel.name); it != before.end() && it->second.count <= kernel.count) {
      gained.count -= it->second.count;
      gained.device_time_total_ms -= it->second.device_time_total_ms;
    }
    if (gained.count > 0) measured_.kernels.push_back(gained);
  }
  std::stable_sort(measured_.kernels.begin(), measured_.kernels.end(),
                   [](const KernelAverage& a, const KernelAverage& b) {
                     return a.device_time_total_ms > b.device_time_total_ms;
                   });
  const bool reset = now.empty_pairs < at_start_.empty_pairs;
  measured_.empty_pairs = now.empty_pairs - (reset ? 0 : at_start_.empty_pairs);
  measured_.empty_total_ms = now.empty_total_ms - (reset ? 0 : at_start_.empty_total_ms);
  measured_.scopes = now.scopes;
}

std::vector<KernelAverage> Profile::key_averages() {
  stop();
  return measured_.kernels;
}

double Profile::timestamp_overhead_ms() {
  stop();
  return measured_.empty_pairs == 0 ? 0.0 : measured_.empty_total_ms / static_cast<double>(measured_.empty_pairs);
}

std::string Profile::table() {
  std::vector<vulkan::KernelTime> times;
  for (const KernelAverage& kernel : key_averages()) {
    times.push_back({kernel.name, kernel.count, kernel.device_time_total_ms});
  }
  return vulkan::kernel_table("ember profile", times, 1e3 * timestamp_overhead_ms());
}

std::vector<OpAverage> Profile::op_averages(std::string_view sort_by) {
  const double empty_ms = timestamp_overhead_ms();
  return detail::op_averages(at_start_.scopes, measured_.scopes, empty_ms, sort_by);
}

std::string Profile::op_table(std::string_view sort_by, size_t row_limit) {
  return detail::op_table("ember profile", op_averages(sort_by), row_limit);
}

Profile::Totals Profile::totals_now() {
  Totals totals;
  for (const vulkan::KernelTime& time : vulkan::kernel_times()) {
    totals.kernels.push_back({time.shader, time.dispatches, time.milliseconds});
  }
  const auto [pairs, nanoseconds] = vulkan::empty_intervals();
  totals.empty_pairs = pairs;
  totals.empty_total_ms = nanoseconds * 1e-6;
  totals.scopes = detail::scope_totals();
  return totals;
}

}  // namespace ember::profiler
