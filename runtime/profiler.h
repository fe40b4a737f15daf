#pragma once
// Where the device's time goes, asked from the program: ember's counterpart of
// torch.autograd.profiler.profile and its key_averages().table(), for the kernels ember launches.
//
//   ember::profiler::Profile profile;  // starts
//   for (int i = 0; i < 10; ++i) train_step();
//   profile.stop();                    // waits for the devices
//   std::cout << profile.table();
//
// While a Profile runs, each batch of dispatches a Vulkan stream begins writes a GPU timestamp before and
// after every dispatch, and the profile sums the time between them per shader: an op that launches several
// kernels shows up as each of them. EMBER_PROFILE=1 times a whole run the same way and prints its table
// at exit (runtime/vulkan/kernel_profile.h).
//
// The timestamps cost time on every dispatch (on lavapipe about as much as a small kernel); each batch
// also times a pair with nothing between them, and the table's "net" column takes that cost off. On a
// GPU that overlaps dispatches a pair of timestamps brackets more than one kernel, so a total is an upper
// bound there. CUDA kernels are not timed (Nsight Systems does that); a profile of CUDA work has no kernels.
//
// The profile also gathers the named regions of the program (runtime/record_function.h): ember's own
// around backward nodes and optimizer steps, and the program's. op_table() shows each name's host time
// and the device time of the dispatches recorded in it, as PyTorch's key_averages().table(sort_by=...).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/record_function.h"

namespace ember::profiler {

// One kernel's dispatches within a profile.
struct KernelAverage {
  std::string name;  // the shader
  uint64_t count = 0;
  double device_time_total_ms = 0;  // the sum of the intervals between each dispatch's timestamps
};

class Profile {
 public:
  Profile();  // waits for the batches already timed, then starts timing the batches begun from now
  ~Profile();
  Profile(const Profile&) = delete;
  Profile& operator=(const Profile&) = delete;

  // Waits for every stream that timed a batch, so that each batch begun while the profile ran is
  // counted, then stops timing new batches (unless another Profile or EMBER_PROFILE still wants them).
  void stop();
  bool running() const { return running_; }

  // The kernels timed between start and stop(), the longest total first. Each stops a running profile.
  std::vector<KernelAverage> key_averages();
  // The mean interval of a timestamp pair with nothing between, in ms: what timing adds to a dispatch.
  double timestamp_overhead_ms();
  // key_averages() as a table: dispatches, total, mean, net mean (less the overhead) and share of the net
  // total, per kernel.
  std::string table();

  // The regions that ended between start and stop(), by name, sorted by `sort_by`: PyTorch's keys
  // "self_cpu_time_total", "cpu_time_total", "self_device_time_total", "device_time_total" (or "cuda" for
  // "device"), and "count". A region still open at stop() is left out, as PyTorch leaves it. Each stops
  // a running profile.
  std::vector<OpAverage> op_averages(std::string_view sort_by = "self_cpu_time_total");
  // op_averages() as a table, its first `row_limit` rows.
  std::string op_table(std::string_view sort_by = "self_cpu_time_total", size_t row_limit = 100);

 private:
  struct Totals {
    std::vector<KernelAverage> kernels;
    uint64_t empty_pairs = 0;
    double empty_total_ms = 0;
    std::vector<detail::ScopeTotals> scopes;
  };
  static Totals totals_now();

  bool running_ = true;
  Totals at_start_, measured_;
};

}  // namespace ember::profiler
