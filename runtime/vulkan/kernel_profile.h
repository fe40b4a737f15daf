#pragma once
// Where a Vulkan device's time goes, shader by shader. With EMBER_PROFILE=1 in the environment when a
// stream is made, that stream writes a GPU timestamp before and after each dispatch and adds the time
// between them to its shader's total when the batch finishes; the totals are printed to stderr at exit
// (a table, largest first), followed by the table of the program's regions (runtime/record_function.h).
// While a profiler::Profile runs (runtime/profiler.h), every stream does the same for the batches it
// begins. Off by default: the timestamps cost time on every dispatch, which each
// batch measures with a pair of timestamps around nothing, and the table subtracts.
//
// On a GPU that overlaps dispatches the two timestamps bracket more than one shader's work, so a total
// is an upper bound there; lavapipe runs one dispatch at a time, so its totals add up.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ember {
class Stream;
}

namespace ember::vulkan {

// Whether streams made now profile: EMBER_PROFILE is 1 (read at each call). The first call that answers
// yes has the report printed at exit.
bool kernel_profiling();

// Whether a profiler::Profile is running, so that every stream times the batches it begins; Profiles
// add and remove themselves.
bool profile_running();
void add_running_profile();
void remove_running_profile();
// A stream that timed a batch, so that synchronize_timed_streams() (a Profile's stop) can wait for it to
// add its times. Held weakly.
void track_timed_stream(const std::shared_ptr<Stream>& stream);
void synchronize_timed_streams();

// Adds one dispatch of `shader` that took `nanoseconds` on the device.
void add_kernel_time(const std::string& shader, double nanoseconds);
// Adds the interval of a timestamp pair with nothing between them: what the timestamps cost by
// themselves, which every dispatch's interval includes (on lavapipe 50-80 µs, since each timestamp after
// a dispatch flushes llvmpipe's context; a dependent add alone takes about 40 µs there).
void add_empty_interval(double nanoseconds);
// The mean of the empty intervals so far, in nanoseconds (0 before the first).
double empty_interval_nanoseconds();

struct KernelTime {
  std::string shader;
  uint64_t dispatches = 0;
  double milliseconds = 0;
};

// Every shader timed so far, the longest total first.
std::vector<KernelTime> kernel_times();
// The number of empty intervals so far and their sum, in nanoseconds.
std::pair<uint64_t, double> empty_intervals();
void reset_kernel_times();
// `times` as a table under `title`: each shader's total, its mean per dispatch, that mean less
// `empty_us`, the mean empty interval ("net"), and its share of the net total.
std::string kernel_table(const std::string& title, const std::vector<KernelTime>& times, double empty_us);
// The table of kernel_times().
std::string kernel_profile_report();

}  // namespace ember::vulkan
