#pragma once
// ember::amp::GradScaler: loss scaling for mixed-precision training, as torch.cuda.amp.GradScaler
// (PyTorch 1.13; torch.amp.GradScaler in 2.x), with the same defaults, arithmetic and messages:
//
//   ember::amp::GradScaler scaler;
//   for (...) {
//     optimizer.zero_grad();
//     {
//       ember::autocast::AutocastGuard autocast(ember::kFloat16);
//       loss = loss_fn(model->forward(x), y);
//     }
//     scaler.scale(loss).backward();
//     scaler.step(optimizer);  // unscales the gradients; skips the step if one is inf or NaN
//     scaler.update();         // halves the scale after a skipped step, doubles it after growth_interval good ones
//   }
//
// No step waits on the host. The scale, the growth tracker and the found-inf flags are device tensors,
// and a skipped step is skipped on the device: step() hands the flag to Optimizer::step_unless, whose
// fused kernel leaves parameters and state alone where it is set (where PyTorch 1.13 reads the flag on
// the host, and its 2.x fused optimizers read it on the device, as here). Only get_scale(),
// get_growth_tracker() and state_dict() read device memory.
//
// Where ember deviates from PyTorch: scaling works on every backend (PyTorch's CUDA GradScaler disables
// itself without CUDA); step() takes no arguments and returns nothing, since whether the step ran is
// known only on the device; the inverse scale is a float32 reciprocal (PyTorch's is computed in float64
// and rounded), the same for the default power-of-two scales; a skipped first step leaves the optimizer's
// state made (zeros, a step count of 0) where PyTorch's has none (see optim/README.md).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "nn/arg.h"
#include "optim/optimizer.h"

namespace ember::amp {

struct GradScalerOptions {
  EMBER_ARG(double, init_scale) = 65536.0;  // 2^16
  EMBER_ARG(double, growth_factor) = 2.0;   // must be > 1
  EMBER_ARG(double, backoff_factor) = 0.5;  // must be < 1
  EMBER_ARG(int64_t, growth_interval) = 2000;
  // false: scale() returns its input, step() calls optimizer.step(), the rest does nothing.
  EMBER_ARG(bool, enabled) = true;
};

// Python's GradScaler.state_dict(): {"scale", "growth_factor", "backoff_factor", "growth_interval",
// "_growth_tracker"}.
struct GradScalerState {
  double scale = 65536.0;
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;
  int64_t growth_tracker = 0;
};

class GradScaler {
 public:
  // Throws PyTorch's errors for growth_factor <= 1 or backoff_factor >= 1 (when enabled).
  explicit GradScaler(GradScalerOptions options = {});

  // outputs * scale (a 1-element float32 tensor, made on the first call's device, as PyTorch's).
  Tensor scale(const Tensor& outputs);
  std::vector<Tensor> scale(const std::vector<Tensor>& outputs);

  // Divides the optimizer's gradients by the scale in place and records, per device, whether any of them
  // held an inf or NaN. Optional: step() unscales when this was not called since the last update().
  // Throws for float16 gradients ("Attempting to unscale FP16 gradients."), as PyTorch does.
  void unscale_(optim::Optimizer& optimizer);
  // unscale_ (unless called already), then the optimizer's step, skipped on the device when a gradient
  // was not finite.
  void step(optim::Optimizer& optimizer);
  // The next scale: backoff_factor times the scale after a skipped step (of any optimizer stepped since
  // the last update), growth_factor times it after growth_interval unskipped steps in a row; or
  // `new_scale`.
  void update(std::optional<double> new_scale = std::nullopt);
  void update(const Tensor& new_scale);  // a 1-element float32 tensor that does not require grad

  // The scale: init_scale before the first scale(), 1 when disabled. Waits for the device.
  double get_scale() const;
  // The scale as its device tensor (undefined before the first scale()), for reading without a wait.
  const Tensor& get_scale_async() const { return scale_; }
  // Consecutive unskipped steps since the last growth or backoff. Waits for the device.
  int64_t get_growth_tracker() const;
  double get_growth_factor() const { return options_.growth_factor(); }
  void set_growth_factor(double factor) { options_.growth_factor(factor); }
  double get_backoff_factor() const { return options_.backoff_factor(); }
  void set_backoff_factor(double factor) { options_.backoff_factor(factor); }
  int64_t get_growth_interval() const { return options_.growth_interval(); }
  void set_growth_interval(int64_t interval) { options_.growth_interval(interval); }
  bool is_enabled() const { return options_.enabled(); }

  // Empty when disabled, as Python's {}. Reads the scale and tracker from the device.
  std::optional<GradScalerState> state_dict() const;
  // Does nothing when disabled; throws PyTorch's error for an empty state.
  void load_state_dict(const std::optional<GradScalerState>& state);

 private:
  enum class Stage { Ready, Unscaled, Stepped };
  struct OptimizerState {
    Stage stage = Stage::Ready;
    // One 1-element float32 flag per device that held gradients: 1 when one of them was not finite.
    std::vector<std::pair<std::shared_ptr<Device>, Tensor>> found_inf_per_device;
  };

  void check_initialized(const char* function) const;
  void lazy_init(const std::shared_ptr<Device>& device);
  std::vector<std::pair<std::shared_ptr<Device>, Tensor>> unscale_grads(optim::Optimizer& optimizer,
                                                                        const Tensor& inv_scale, bool allow_fp16);
  void update_scale(const Tensor& found_inf);

  GradScalerOptions options_;
  int64_t init_growth_tracker_ = 0;
  Tensor scale_;           // float32 [1]
  Tensor growth_tracker_;  // int32 [1]
  std::map<const optim::Optimizer*, OptimizerState> per_optimizer_;
};

}  // namespace ember::amp
