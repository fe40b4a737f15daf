#pragma once
// The per-epoch progress line: batches done of total, samples per second, time left and the running loss.
// On a terminal it redraws one line about four times a second; otherwise it prints a line per tenth of the
// epoch, so that logs stay short. The loss is read from the device only when a line is printed: the
// losses of the steps since are kept as tensors and summed on the device then.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "ember.h"

namespace ember::train {

class EpochProgress {
 public:
  EpochProgress(int epoch, int epochs, int64_t batches, bool terminal);

  // One step done on `samples` samples; `loss` is the step's 0-dim loss, still on the device.
  void step(const Tensor& loss, int64_t samples);

  // Prints the final line of the epoch and returns the epoch's mean training loss.
  double finish();

  double seconds() const;
  double samples_per_second() const;

 private:
  void print(bool last);

  int epoch_, epochs_;
  int64_t batches_, done_ = 0, samples_ = 0;
  bool terminal_;
  std::chrono::steady_clock::time_point start_, last_print_;
  int last_tenth_ = 0;
  std::vector<Tensor> unread_losses_;
  double loss_sum_ = 0;  // of the losses read so far
  int64_t losses_read_ = 0;
};

// "1:05" or "1:02:03".
std::string format_duration(double seconds);

}  // namespace ember::train
