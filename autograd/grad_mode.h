#pragma once
// Thread-local switches that decide whether ops record a graph, as LibTorch's GradMode and
// InferenceMode do. Guards restore the previous state when they leave scope.
namespace ember::autograd {

struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

// Sets grad mode for a scope (torch.set_grad_enabled as a context manager).
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : previous_(GradMode::is_enabled()) { GradMode::set_enabled(enabled); }
  ~AutoGradMode() { GradMode::set_enabled(previous_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool previous_;
};

struct NoGradGuard : AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};

struct EnableGradGuard : AutoGradMode {
  EnableGradGuard() : AutoGradMode(true) {}
};

// torch.set_grad_enabled(bool) as a function: changes the mode until changed again.
inline void set_grad_enabled(bool enabled) { GradMode::set_enabled(enabled); }
inline bool is_grad_enabled() { return GradMode::is_enabled(); }

// Stricter than NoGradGuard: tensors created inside are inference tensors, which can never require
// grad and cannot be saved for backward.
class InferenceMode {
 public:
  explicit InferenceMode(bool enabled = true);
  ~InferenceMode();
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;
  static bool is_enabled();

 private:
  bool previous_inference_;
  bool previous_grad_;
};

}  // namespace ember::autograd

namespace ember {
// LibTorch spells the guards torch::NoGradGuard, torch::AutoGradMode and torch::InferenceMode.
using autograd::AutoGradMode;
using autograd::InferenceMode;
using autograd::NoGradGuard;
}  // namespace ember
