#pragma once
// Where a Vulkan device's time goes, shader by shader. With EMBER_PROFILE=1 in the environment when a
// stream is made, that stream writes a GPU timestamp before and after each dispatch and adds the time
// between them to its shader's total when the batch finishes; the totals are printed to stderr at exit
// (a table, largest first). Off by default: the timestamps cost a little on every dispatch.
//
// On a GPU that overlaps dispatches the two timestamps bracket more than one shader's work, so a total
// is an upper bound there; lavapipe runs one dispatch at a time, so its totals add up.
#include <cstdint>
#include <string>
#include <vector>

namespace ember::vulkan {

// Whether streams made now profile: EMBER_PROFILE is 1 (read at each call). The first call that answers
// yes has the report printed at exit.
bool kernel_profiling();

// Adds one dispatch of `shader` that took `nanoseconds` on the device.
void add_kernel_time(const std::string& shader, double nanoseconds);

struct KernelTime {
  std::string shader;
  uint64_t dispatches = 0;
  double milliseconds = 0;
};

// Every shader timed so far, the longest total first.
std::vector<KernelTime> kernel_times();
void reset_kernel_times();
// kernel_times() as a table with each shader's share of the total.
std::string kernel_profile_report();

}  // namespace ember::vulkan
