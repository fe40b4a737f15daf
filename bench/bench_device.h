#pragma once
// The one device every benchmark runs on, opened once for the whole run, and the process's CPU time.
#include <memory>

#include "ember.h"

namespace ember_bench {

// EMBER_DEVICE when set, otherwise ember's default device. Throws when there is none.
const std::shared_ptr<ember::Device>& bench_device();

// CPU seconds of the whole process (every thread, so lavapipe's workers too): on a CPU device this
// measures the kernels' work apart from other load on the machine, which wall time does not.
double process_cpu_seconds();

}  // namespace ember_bench
