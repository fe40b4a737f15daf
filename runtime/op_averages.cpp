// The profiler's table of ops: the regions' totals (record_function.cpp) gathered by name.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>

#include "runtime/error.h"
#include "runtime/record_function.h"

namespace ember::profiler::detail {

namespace {

// What a path gained between the snapshots; a path new since `before` gained all it has.
ScopeTotals gained(const std::vector<ScopeTotals>& before, const ScopeTotals& now, size_t number) {
  ScopeTotals delta = now;
  if (number < before.size()) {
    delta.calls -= before[number].calls;
    delta.cpu_ms -= before[number].cpu_ms;
    delta.dispatches -= before[number].dispatches;
    delta.device_ms -= before[number].device_ms;
  }
  return delta;
}

using SortKey = std::function<double(const OpAverage&)>;

SortKey sort_key(std::string_view sort_by) {
  // PyTorch's keys, with its "cuda" spelling accepted for "device".
  static const std::map<std::string, SortKey, std::less<>> keys = {
      {"self_cpu_time_total", [](const OpAverage& op) { return op.self_cpu_time_total_ms; }},
      {"cpu_time_total", [](const OpAverage& op) { return op.cpu_time_total_ms; }},
      {"self_device_time_total", [](const OpAverage& op) { return op.self_device_time_total_ms; }},
      {"device_time_total", [](const OpAverage& op) { return op.device_time_total_ms; }},
      {"self_cuda_time_total", [](const OpAverage& op) { return op.self_device_time_total_ms; }},
      {"cuda_time_total", [](const OpAverage& op) { return op.device_time_total_ms; }},
      {"count", [](const OpAverage& op) { return static_cast<double>(op.count); }},
  };
  if (auto it = keys.find(sort_by); it != keys.end()) return it->second;
  std::string known;
  for (const auto& [name, key] : keys) known.append(known.empty() ? "" : ", ").append(name);
  throw Error("profiler: cannot sort the ops by '" + std::string(sort_by) + "'; the keys are " + known);
}

}  // namespace

std::vector<OpAverage> op_averages(const std::vector<ScopeTotals>& before, const std::vector<ScopeTotals>& after,
                                   double empty_ms, std::string_view sort_by) {
  const SortKey key = sort_key(sort_by);
  std::vector<ScopeTotals> delta(after.size());
  for (size_t p = 0; p < after.size(); ++p) delta[p] = gained(before, after[p], p);

  // A path's enclosing path has a smaller number, so one pass from the last path up adds each path's
  // nested totals into the path around it.
  std::vector<double> self_device(delta.size()), device(delta.size()), nested_cpu(delta.size());
  std::vector<uint64_t> dispatches(delta.size());
  for (size_t p = delta.size(); p-- > 0;) {
    self_device[p] = std::max(0.0, delta[p].device_ms - empty_ms * static_cast<double>(delta[p].dispatches));
    device[p] += self_device[p];
    dispatches[p] += delta[p].dispatches;
    if (p == 0) break;
    const uint32_t up = delta[p].enclosing;
    device[up] += device[p];
    dispatches[up] += dispatches[p];
    nested_cpu[up] += delta[p].cpu_ms;
  }

  std::map<std::string, OpAverage> by_name;
  for (size_t p = 1; p < delta.size(); ++p) {
    if (delta[p].calls == 0 && dispatches[p] == 0) continue;
    OpAverage& op = by_name[delta[p].name];
    op.name = delta[p].name;
    op.count += delta[p].calls;
    op.cpu_time_total_ms += delta[p].cpu_ms;
    op.self_cpu_time_total_ms += std::max(0.0, delta[p].cpu_ms - nested_cpu[p]);
    op.dispatches += dispatches[p];
    op.device_time_total_ms += device[p];
    op.self_device_time_total_ms += self_device[p];
  }
  std::vector<OpAverage> ops;
  for (auto& [name, op] : by_name) ops.push_back(std::move(op));
  std::stable_sort(ops.begin(), ops.end(), [&](const OpAverage& a, const OpAverage& b) { return key(a) > key(b); });
  return ops;
}

std::string op_table(const std::string& title, const std::vector<OpAverage>& ops, size_t row_limit) {
  // Names as long as PyTorch's ("autograd::engine::evaluate_function: ...") get a column as wide.
  size_t width = 4;
  for (size_t i = 0; i < ops.size() && i < row_limit; ++i) width = std::max(width, ops[i].name.size());
  const int name_width = static_cast<int>(std::min<size_t>(width, 72));
  std::string report = title + ": host time in each region, and the net device time of the dispatches recorded in it\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-*s %8s %13s %13s %15s %15s %10s\n", name_width, "name", "calls", "self CPU ms",
                "CPU total ms", "self device ms", "device total ms", "dispatches");
  report += line;
  for (size_t i = 0; i < ops.size() && i < row_limit; ++i) {
    const OpAverage& op = ops[i];
    std::snprintf(line, sizeof line, "%-*.*s %8llu %13.3f %13.3f %15.3f %15.3f %10llu\n", name_width, name_width,
                  op.name.c_str(), static_cast<unsigned long long>(op.count), op.self_cpu_time_total_ms,
                  op.cpu_time_total_ms, op.self_device_time_total_ms, op.device_time_total_ms,
                  static_cast<unsigned long long>(op.dispatches));
    report += line;
  }
  if (ops.size() > row_limit) {
    std::snprintf(line, sizeof line, "(%zu more)\n", ops.size() - row_limit);
    report += line;
  }
  return report;
}

}  // namespace ember::profiler::detail
