#pragma once
// The one device every benchmark runs on, opened once for the whole run.
#include <memory>

#include "ember.h"

namespace ember_bench {

// EMBER_DEVICE when set, otherwise ember's default device. Throws when there is none.
const std::shared_ptr<ember::Device>& bench_device();

}  // namespace ember_bench
