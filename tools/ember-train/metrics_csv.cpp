#include <fstream>
#include <sstream>
#include <string>

#include "runtime/error.h"
#include "tools/ember-train/metrics.h"

namespace ember::train {

namespace {

constexpr const char* kHeader = "epoch,train_loss,test_loss,test_accuracy,seconds,samples_per_second";

}  // namespace

void write_metrics_csv(const std::filesystem::path& path, const std::vector<EpochMetrics>& rows) {
  const std::filesystem::path temporary = path.string() + ".tmp";
  {
    std::ofstream out(temporary);
    if (!out) throw Error("cannot write " + temporary.string());
    out.precision(9);
    out << kHeader << "\n";
    for (const EpochMetrics& r : rows) {
      out << r.epoch << ',' << printable_loss(r.train_loss) << ',' << printable_loss(r.test_loss) << ','
          << r.test_accuracy << ',' << r.seconds << ',' << r.samples_per_second << "\n";
    }
    if (!out.flush()) throw Error("cannot write " + temporary.string());
  }
  std::filesystem::rename(temporary, path);
}

std::vector<EpochMetrics> read_metrics_csv(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read " + path.string());
  std::string line;
  if (!std::getline(in, line) || line != kHeader) throw Error(path.string() + ": line 1 is not the metrics header");
  std::vector<EpochMetrics> rows;
  for (int number = 2; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    for (char& c : line) {
      if (c == ',') c = ' ';
    }
    std::istringstream fields(line);
    EpochMetrics r;
    if (!(fields >> r.epoch >> r.train_loss >> r.test_loss >> r.test_accuracy >> r.seconds >> r.samples_per_second)) {
      throw Error(path.string() + ": line " + std::to_string(number) + " does not hold six numbers");
    }
    rows.push_back(r);
  }
  return rows;
}

}  // namespace ember::train
