#pragma once
// Named regions of a program for the profiler's table of ops: ember's counterpart of
// torch.profiler.record_function (RECORD_FUNCTION in LibTorch).
//
//   {
//     ember::profiler::RecordFunction scope("attention");
//     y = attend(q, k, v);  // host time and the kernels launched here count to "attention"
//   }
//
// While a profiler::Profile runs (or the run has EMBER_PROFILE=1), a region measures the host time
// between its construction and its destruction on its thread, and the Vulkan dispatches that thread
// records inside it count to it on the device. Regions nest: a region's self time leaves out what its
// nested regions took. Ember opens regions of its own with PyTorch's names, so that a profile of a
// training step reads as PyTorch's does: "autograd::engine::evaluate_function: AddmmBackward0" around
// each backward node, "Optimizer.step#Adam.step" and "Optimizer.zero_grad#Adam.zero_grad" around an
// optimizer's, and "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__" around a loader's fetch.
// CUDA kernels are not timed (runtime/profiler.h), so there a region has host time only. While nothing
// records, a region costs one atomic load.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ember::profiler {

// Whether regions are measured now: a Profile runs, or the run has EMBER_PROFILE=1.
bool recording();

// A region from construction to destruction. One with an empty name measures nothing, which lets a
// caller skip building a name while nothing records.
class RecordFunction {
 public:
  explicit RecordFunction(std::string_view name);
  ~RecordFunction();
  RecordFunction(const RecordFunction&) = delete;
  RecordFunction& operator=(const RecordFunction&) = delete;

 private:
  uint32_t scope_ = 0;  // 0: made while nothing was recording, so it measures nothing
  uint32_t enclosing_ = 0;
  int64_t start_ns_ = 0;
};

// One name's regions within a profile (Profile::op_averages).
struct OpAverage {
  std::string name;
  uint64_t count = 0;  // the regions of this name that ended
  double cpu_time_total_ms = 0;  // host time in them
  double self_cpu_time_total_ms = 0;  // less the host time in the regions nested in them
  uint64_t dispatches = 0;  // Vulkan dispatches recorded in them, nested regions included
  // Those dispatches' time on the device, net of what the timestamps cost (as the kernel table's "net"):
  // all of them, and those recorded in no nested region.
  double device_time_total_ms = 0;
  double self_device_time_total_ms = 0;
};

namespace detail {

// The region the calling thread is in, as a path from the outermost (0: none). A dispatch recorded now
// counts to it.
uint32_t current_scope();

// What each path of regions gathered so far. Paths are numbered in the order they were first entered,
// so a path's enclosing one has a smaller number; number 0 is outside every region.
struct ScopeTotals {
  std::string name;  // the innermost region's
  uint32_t enclosing = 0;
  uint64_t calls = 0;  // regions that ended
  double cpu_ms = 0;  // host time between each one's start and end
  uint64_t dispatches = 0;  // recorded in it and in no nested region
  double device_ms = 0;  // their time between timestamps
};
std::vector<ScopeTotals> scope_totals();
// One dispatch recorded in `scope` took `nanoseconds` between its timestamps.
void add_scope_device_time(uint32_t scope, double nanoseconds);

// What the regions gathered between two snapshots of scope_totals(), by name, with `empty_ms` (the
// timestamps' own cost per dispatch) taken off each dispatch; sorted by `sort_by` (OpTable's keys).
std::vector<OpAverage> op_averages(const std::vector<ScopeTotals>& before, const std::vector<ScopeTotals>& after,
                                   double empty_ms, std::string_view sort_by);
// `ops` as a table under `title`, the first `row_limit` of them.
std::string op_table(const std::string& title, const std::vector<OpAverage>& ops, size_t row_limit);

}  // namespace detail
}  // namespace ember::profiler
