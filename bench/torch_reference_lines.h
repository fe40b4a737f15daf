#pragma once
// The PyTorch side of the benchmarks that compare with it in the same run: a reference script of bench/
// run once, and its answer lines.
#include <string>
#include <vector>

namespace ember_bench {

// Runs bench/<script_and_args> with EMBER_PYTHON (default /usr/bin/python3) and returns the words after
// `tag` of every line that starts with it. When no line does, prints what the script said instead, so that
// a missing or broken PyTorch shows in the benchmark's output rather than as absent counters.
std::vector<std::vector<std::string>> torch_reference_lines(const std::string& script_and_args, const std::string& tag);

}  // namespace ember_bench
