#include "tests/ops/recorded_coverage.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <system_error>

namespace ember::test {
namespace {

namespace fs = std::filesystem;

fs::path row_file(const fs::path& dir, const std::string& row) { return dir / (identifier_of(row) + ".ops"); }

}  // namespace

std::string identifier_of(std::string name) {
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

std::optional<fs::path> kernel_coverage_dir() {
  const char* dir = std::getenv("EMBER_KERNEL_COVERAGE_DIR");
  if (!dir || !*dir) return std::nullopt;
  return fs::path(dir);
}

void save_row_coverage(const fs::path& dir, const std::string& row, const std::set<std::string>& ops) {
  fs::create_directories(dir);
  // Written aside and renamed, so that a reader never sees half a record. Not ember::AtomicFile: its two
  // syncs per file buy crash safety that a record, rewritten by every run, does not need, 766 times a run.
  const fs::path file = row_file(dir, row);
  const fs::path partial = file.string() + ".partial";
  {
    std::ofstream out(partial, std::ios::trunc);
    for (const std::string& op : ops) out << op << '\n';
  }
  fs::rename(partial, file);
}

std::optional<std::set<std::string>> recorded_coverage(const fs::path& dir, const std::vector<std::string>& rows,
                                                       std::string& why) {
  std::error_code error;
  const fs::file_time_type built = fs::last_write_time(fs::read_symlink("/proc/self/exe", error), error);
  if (error) {
    why = "this executable's build time is unknown (" + error.message() + ")";
    return std::nullopt;
  }
  std::set<std::string> reached;
  std::vector<std::string> unrecorded;
  for (const std::string& row : rows) {
    const fs::path file = row_file(dir, row);
    const fs::file_time_type written = fs::last_write_time(file, error);
    if (error || written < built) {
      unrecorded.push_back(row);
      continue;
    }
    std::ifstream in(file);
    for (std::string op; std::getline(in, op);) reached.insert(op);
  }
  if (unrecorded.empty()) return reached;
  why = std::to_string(unrecorded.size()) + " of " + std::to_string(rows.size()) + " rows have no record in " +
        dir.string() + " newer than this executable (the first: " + unrecorded.front() + ")";
  return std::nullopt;
}

}  // namespace ember::test
