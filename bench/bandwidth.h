#pragma once
// Shared pieces of the bandwidth benchmarks: buffer setup, how many ops go between host waits, and the
// device copy rate that the other kernels are expressed as a fraction of.
#include <cstdint>
#include <functional>
#include <memory>

#include "ember.h"
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/matmul.h"
#include "runtime/kernels/memory.h"

namespace ember_bench {

inline constexpr uint64_t kMiB = uint64_t{1} << 20;

// Ops recorded before each synchronize: enough that about 64 MiB moves per host wait, so the submit and
// wait latency (measured on its own in dispatch_bench) does not hide the bandwidth of small sizes.
int ops_per_sync(uint64_t bytes);

// A float32 buffer of `bytes`, filled with ones and synchronized, so timed kernels never meet denormals
// or garbage (llvmpipe runs float maths on the CPU, where denormals are slow).
std::shared_ptr<ember::Allocation> ones_buffer(ember::Device& device, uint64_t bytes);
ember::TensorRef float_view(ember::Allocation& allocation);

// Seconds for `ops` calls of `record` followed by one synchronize.
double time_synchronized(ember::Stream& stream, int ops, const std::function<void()>& record);

// Bytes per second (read + write) of Stream::copy at `bytes`, measured once per size and run, the
// roofline that fraction_of_copy divides by.
double device_copy_bytes_per_second(ember::Device& device, uint64_t bytes);

}  // namespace ember_bench
