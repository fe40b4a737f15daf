#include "bench/bench_device.h"

#include <sys/resource.h>

namespace ember_bench {

const std::shared_ptr<ember::Device>& bench_device() {
  // Opening a device costs instance and pipeline creation; doing it per benchmark would dwarf small ones.
  static const std::shared_ptr<ember::Device> device = ember::default_device();
  return device;
}

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace ember_bench
