#pragma once
// The kernel ops each op-registry row reached, kept on disk between test processes. ctest runs the rows
// in many processes (tests/ctest_batches.cmake) with EMBER_KERNEL_COVERAGE_DIR set; each OpRowTest writes
// what its row reached there, and the coverage test, which ctest runs after them, takes their union
// instead of running every row once more.
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ember::test {

// `name` with every character but letters and digits replaced by '_': a row's test name and file name.
std::string identifier_of(std::string name);

// EMBER_KERNEL_COVERAGE_DIR, when set and not empty.
std::optional<std::filesystem::path> kernel_coverage_dir();

// Writes the ops `row` reached into `dir` (created when missing).
void save_row_coverage(const std::filesystem::path& dir, const std::string& row, const std::set<std::string>& ops);

// The union of the ops every row in `rows` reached, when each row's record is newer than this test
// executable; otherwise nothing, with `why` naming what is missing or stale.
std::optional<std::set<std::string>> recorded_coverage(const std::filesystem::path& dir,
                                                       const std::vector<std::string>& rows, std::string& why);

}  // namespace ember::test
