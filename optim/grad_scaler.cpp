// GradScaler (optim/grad_scaler.h): every step's arithmetic is device ops on the scale, the growth tracker
// and the found-inf flags, so that nothing in a training step reads device memory on the host.
#include "optim/grad_scaler.h"

#include <algorithm>
#include <string>

#include "autograd/grad_mode.h"
#include "runtime/error.h"

namespace ember::amp {

namespace {

const TensorOptions kFlagOptions = TensorOptions().dtype(DType::Float32);

}  // namespace

GradScaler::GradScaler(GradScalerOptions options) : options_(std::move(options)) {
  if (!options_.enabled()) return;
  if (!(options_.growth_factor() > 1.0)) throw Error("The growth factor must be > 1.0.");
  if (!(options_.backoff_factor() < 1.0)) throw Error("The backoff factor must be < 1.0.");
}

void GradScaler::check_initialized(const char* function) const {
  if (!scale_.defined()) {
    throw Error(std::string("Attempted ") + function + " but _scale is None.  This may indicate your script did not "
                "use scaler.scale(loss or outputs) earlier in the iteration.");
  }
}

void GradScaler::lazy_init(const std::shared_ptr<Device>& device) {
  scale_ = full({1}, options_.init_scale(), kFlagOptions.device(device));
  growth_tracker_ = full({1}, init_growth_tracker_, TensorOptions().dtype(DType::Int32).device(device));
}

Tensor GradScaler::scale(const Tensor& outputs) {
  if (!is_enabled()) return outputs;
  if (!scale_.defined()) lazy_init(outputs.device());
  return outputs * scale_.to(outputs.device());
}

std::vector<Tensor> GradScaler::scale(const std::vector<Tensor>& outputs) {
  std::vector<Tensor> scaled;
  scaled.reserve(outputs.size());
  for (const Tensor& output : outputs) scaled.push_back(scale(output));
  return scaled;
}

std::vector<std::pair<std::shared_ptr<Device>, Tensor>> GradScaler::unscale_grads(optim::Optimizer& optimizer,
                                                                                  const Tensor& inv_scale,
                                                                                  bool allow_fp16) {
  autograd::NoGradGuard no_grad;
  struct PerDevice {
    std::shared_ptr<Device> device;
    Tensor inv_scale;  // 0-dim, so that it multiplies a gradient of any shape in place
    std::vector<Tensor> all_finite;
  };
  std::vector<PerDevice> devices;
  for (optim::OptimizerParamGroup& group : optimizer.param_groups()) {
    for (Tensor& param : group.params()) {
      Tensor grad = param.grad();
      if (!grad.defined()) continue;
      if (!allow_fp16 && grad.dtype() == DType::Float16) throw Error("Attempting to unscale FP16 gradients.");
      auto it = std::find_if(devices.begin(), devices.end(),
                             [&](const PerDevice& d) { return d.device == grad.device(); });
      if (it == devices.end()) {
        devices.push_back({grad.device(), inv_scale.to(grad.device()).reshape({}), {}});
        it = devices.end() - 1;
      }
      // The check reads the scaled values, as PyTorch's kernel does, before the multiply overwrites them.
      it->all_finite.push_back(grad.isfinite().all());
      grad.mul_(it->inv_scale);
    }
  }
  std::vector<std::pair<std::shared_ptr<Device>, Tensor>> found;
  for (const PerDevice& d : devices) {
    found.emplace_back(d.device, stack(d.all_finite).all().logical_not().to(DType::Float32).reshape({1}));
  }
  return found;
}

void GradScaler::unscale_(optim::Optimizer& optimizer) {
  if (!is_enabled()) return;
  check_initialized("unscale_");
  OptimizerState& state = per_optimizer_[&optimizer];
  if (state.stage == Stage::Unscaled) {
    throw Error("unscale_() has already been called on this optimizer since the last update().");
  }
  if (state.stage == Stage::Stepped) throw Error("unscale_() is being called after step().");
  Tensor inv_scale;
  {
    autograd::NoGradGuard no_grad;
    inv_scale = scale_.reciprocal();
  }
  state.found_inf_per_device = unscale_grads(optimizer, inv_scale, /*allow_fp16=*/false);
  state.stage = Stage::Unscaled;
}

void GradScaler::step(optim::Optimizer& optimizer) {
  if (!is_enabled()) {
    optimizer.step();
    return;
  }
  check_initialized("step");
  if (per_optimizer_[&optimizer].stage == Stage::Stepped) {
    throw Error("step() has already been called since the last update().");
  }
  if (per_optimizer_[&optimizer].stage == Stage::Ready) unscale_(optimizer);
  OptimizerState& state = per_optimizer_[&optimizer];
  if (state.found_inf_per_device.empty()) throw Error("No inf checks were recorded for this optimizer.");
  // PyTorch skips the step when the flags of all devices sum to nonzero; the sum is a device op here.
  Tensor found_inf;
  {
    autograd::NoGradGuard no_grad;
    found_inf = state.found_inf_per_device.front().second;
    for (size_t i = 1; i < state.found_inf_per_device.size(); ++i) {
      found_inf = found_inf + state.found_inf_per_device[i].second.to(found_inf.device());
    }
  }
  optimizer.step_unless(found_inf);
  state.stage = Stage::Stepped;
}

// PyTorch's _amp_update_scale_, as device ops: after a non-finite gradient the scale backs off and the
// tracker restarts; otherwise the tracker counts the step, and at growth_interval the scale grows (unless
// that would overflow float32) and the tracker restarts.
void GradScaler::update_scale(const Tensor& found_inf) {
  autograd::NoGradGuard no_grad;
  const Tensor found = found_inf.gt(0);
  const Tensor successful = growth_tracker_ + 1;
  const Tensor grow = found.logical_not().logical_and(successful.eq(options_.growth_interval()));
  const Tensor grown = scale_ * options_.growth_factor();
  const Tensor kept_or_grown = where(grow.logical_and(grown.isfinite()), grown, scale_);
  const Tensor next_scale = where(found, scale_ * options_.backoff_factor(), kept_or_grown);
  const Tensor next_tracker = where(found.logical_or(grow), Scalar(0), successful);
  scale_.copy_(next_scale);
  growth_tracker_.copy_(next_tracker);
}

void GradScaler::update(std::optional<double> new_scale) {
  if (!is_enabled()) return;
  check_initialized("update");
  if (new_scale) {
    scale_.fill_(*new_scale);
  } else {
    Tensor combined;
    {
      autograd::NoGradGuard no_grad;
      for (const auto& [optimizer, state] : per_optimizer_) {
        for (const auto& [device, found] : state.found_inf_per_device) {
          const Tensor here = found.to(scale_.device());
          combined = combined.defined() ? combined + here : here;
        }
      }
    }
    if (!combined.defined()) throw Error("No inf checks were recorded prior to update.");
    update_scale(combined);
  }
  per_optimizer_.clear();
}

void GradScaler::update(const Tensor& new_scale) {
  if (!is_enabled()) return;
  check_initialized("update");
  if (!new_scale.defined() || new_scale.dtype() != DType::Float32 || new_scale.numel() != 1 ||
      new_scale.requires_grad()) {
    throw Error("new_scale should be a float or a 1-element torch.cuda.FloatTensor with requires_grad=False.");
  }
  scale_.copy_(new_scale.reshape({1}));
  per_optimizer_.clear();
}

double GradScaler::get_scale() const {
  if (!is_enabled()) return 1.0;
  return scale_.defined() ? scale_.item<float>() : options_.init_scale();
}

int64_t GradScaler::get_growth_tracker() const {
  if (!is_enabled()) return 0;
  return growth_tracker_.defined() ? growth_tracker_.item<int32_t>() : init_growth_tracker_;
}

std::optional<GradScalerState> GradScaler::state_dict() const {
  if (!is_enabled()) return std::nullopt;
  return GradScalerState{get_scale(), options_.growth_factor(), options_.backoff_factor(), options_.growth_interval(),
                         get_growth_tracker()};
}

void GradScaler::load_state_dict(const std::optional<GradScalerState>& state) {
  if (!is_enabled()) return;
  if (!state) {
    throw Error("The source state dict is empty, possibly because it was saved from a disabled instance of "
                "GradScaler.");
  }
  options_.init_scale(state->scale);
  if (scale_.defined()) scale_.fill_(state->scale);
  options_.growth_factor(state->growth_factor);
  options_.backoff_factor(state->backoff_factor);
  options_.growth_interval(state->growth_interval);
  init_growth_tracker_ = state->growth_tracker;
  if (growth_tracker_.defined()) growth_tracker_.fill_(state->growth_tracker);
}

}  // namespace ember::amp
