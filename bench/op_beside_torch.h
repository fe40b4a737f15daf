#pragma once
// One op timed on the bench device beside PyTorch's CPU time for the same op, for the benchmarks whose
// reference script prints "<tag> <name> <ms per op>" lines (bench/torch_reference.py --sorting-cpu,
// --indexing-cpu).
#include <benchmark/benchmark.h>

#include <functional>
#include <map>
#include <string>

namespace ember_bench {

// PyTorch's milliseconds per op by name, from the lines of bench/<script_and_args> that start with `tag`.
std::map<std::string, double> torch_ms_by_name(const std::string& script_and_args, const std::string& tag);

// Times `op` (after one untimed call that compiles its pipelines) and reports `ms`, the `dispatches` one
// call records, and where `torch_ms` has `name`, PyTorch's time and the ratio `vs_torch`.
void run_beside_torch(benchmark::State& state, const std::string& name, const std::map<std::string, double>& torch_ms,
                      const std::function<void()>& op);

}  // namespace ember_bench
