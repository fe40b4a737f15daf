#pragma once
// Per-epoch metrics: kept in memory, written as CSV (one row per epoch) and drawn as a PNG plot of the
// training loss and test accuracy. A resumed run reads the CSV back and continues it.
#include <cmath>
#include <filesystem>
#include <vector>

namespace ember::train {

struct EpochMetrics {
  int epoch = 0;
  double train_loss = 0;
  double test_loss = 0;
  double test_accuracy = 0;  // fraction of the test set, 0 to 1
  double seconds = 0;        // the epoch's training time, evaluation excluded
  double samples_per_second = 0;
};

// `loss` with a NaN's sign cleared: glibc's printf and the streams write a negative NaN as "-nan", where
// PyTorch prints "nan" for a loss that diverged.
inline double printable_loss(double loss) { return std::isnan(loss) ? std::fabs(loss) : loss; }

// Writes every row with a header, replacing the file (through a temporary file and a rename).
void write_metrics_csv(const std::filesystem::path& path, const std::vector<EpochMetrics>& rows);

// The rows of a file write_metrics_csv wrote; an error names the file and line that does not parse.
std::vector<EpochMetrics> read_metrics_csv(const std::filesystem::path& path);

// Two panels, training and test loss per epoch above, test accuracy below, as a PNG through cairo.
void plot_metrics_png(const std::filesystem::path& path, const std::vector<EpochMetrics>& rows, const std::string& title);

}  // namespace ember::train
