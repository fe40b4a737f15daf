// ember-bench: names the device first, so that every figure below (and in the JSON context) can be
// traced to the hardware that produced it.
#include <benchmark/benchmark.h>

#include <exception>
#include <iostream>

#include "bench/bench_device.h"

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  try {
    const ember::DeviceInfo& info = ember_bench::bench_device()->info();
    std::cerr << "ember-bench: device " << info.spec() << ": " << info.name << " (" << info.driver
              << ")\n";
    benchmark::AddCustomContext("ember_device", info.spec() + " " + info.name);
    benchmark::AddCustomContext("ember_driver", info.driver);
  } catch (const std::exception& e) {
    std::cerr << "ember-bench: no device to measure: " << e.what() << "\n";
    return 1;
  }

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
