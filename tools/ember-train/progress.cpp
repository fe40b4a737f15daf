#include "tools/ember-train/progress.h"

#include <cmath>
#include <cstdio>

#include "tools/ember-train/metrics.h"

namespace ember::train {

namespace {

constexpr double kRedrawSeconds = 0.25;
constexpr int kBarWidth = 30;

}  // namespace

std::string format_duration(double seconds) {
  const auto total = static_cast<int64_t>(std::llround(std::max(0.0, seconds)));
  char text[32];
  if (total >= 3600) {
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", static_cast<long long>(total / 3600),
                  static_cast<long long>(total / 60 % 60), static_cast<long long>(total % 60));
  } else {
    std::snprintf(text, sizeof text, "%lld:%02lld", static_cast<long long>(total / 60), static_cast<long long>(total % 60));
  }
  return text;
}

EpochProgress::EpochProgress(int epoch, int epochs, int64_t batches, bool terminal)
    : epoch_(epoch), epochs_(epochs), batches_(batches), terminal_(terminal),
      start_(std::chrono::steady_clock::now()), last_print_(start_) {}

double EpochProgress::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

double EpochProgress::samples_per_second() const {
  const double s = seconds();
  return s > 0 ? static_cast<double>(samples_) / s : 0;
}

void EpochProgress::step(const Tensor& loss, int64_t samples) {
  ++done_;
  samples_ += samples;
  unread_losses_.push_back(loss.detach());
  const auto now = std::chrono::steady_clock::now();
  const int tenth = static_cast<int>(done_ * 10 / std::max<int64_t>(batches_, 1));
  const bool due = terminal_ ? std::chrono::duration<double>(now - last_print_).count() >= kRedrawSeconds
                             : tenth > last_tenth_;
  if (due && done_ < batches_) {
    last_tenth_ = tenth;
    last_print_ = now;
    print(false);
  }
}

double EpochProgress::finish() {
  print(true);
  return losses_read_ ? loss_sum_ / static_cast<double>(losses_read_) : std::nan("");
}

void EpochProgress::print(bool last) {
  if (!unread_losses_.empty()) {
    // One sum on the device and one read for all the steps since the last line.
    loss_sum_ += stack(unread_losses_).sum().item<double>();
    losses_read_ += static_cast<int64_t>(unread_losses_.size());
    unread_losses_.clear();
  }
  const double elapsed = seconds();
  const double rate = samples_per_second();
  const double left = done_ ? elapsed / static_cast<double>(done_) * static_cast<double>(batches_ - done_) : 0;
  const int filled = static_cast<int>(kBarWidth * done_ / std::max<int64_t>(batches_, 1));
  const std::string bar = std::string(filled, '#') + std::string(kBarWidth - filled, '.');
  const double loss = losses_read_ ? loss_sum_ / static_cast<double>(losses_read_) : std::nan("");
  std::printf("%sepoch %d/%d [%s] %lld/%lld  %.0f samples/s  %s %s  loss %.4f%s", terminal_ ? "\r" : "", epoch_,
              epochs_, bar.c_str(), static_cast<long long>(done_), static_cast<long long>(batches_), rate,
              last ? "took" : "ETA", format_duration(last ? elapsed : left).c_str(), printable_loss(loss),
              terminal_ && !last ? "" : "\n");
  std::fflush(stdout);
}

}  // namespace ember::train
