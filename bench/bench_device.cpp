#include "bench/bench_device.h"

namespace ember_bench {

const std::shared_ptr<ember::Device>& bench_device() {
  // Opening a device costs instance and pipeline creation; doing it per benchmark would dwarf small ones.
  static const std::shared_ptr<ember::Device> device = ember::default_device();
  return device;
}

}  // namespace ember_bench
