// GradScaler (optim/grad_scaler.h) and the device-side skip it relies on (Optimizer::step_unless): a
// step with a non-finite gradient changes nothing, the scale follows torch.cuda.amp.GradScaler's
// documented update (backoff after an inf, growth after growth_interval clean steps), the parameters
// follow LibTorch's optimizer on the unscaled gradients, and a whole mixed-precision step never waits on
// the host (stream stats).
#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "ember.h"
#include "tests/oracle.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

namespace eo = ember::optim;
namespace F = ember::nn::functional;

class GradScalerTest : public BackendTest {};

// Host copies of the parameters and of every state tensor (step counts included), for "unchanged" checks.
std::vector<at::Tensor> snapshot(const eo::Optimizer& opt, const std::vector<Tensor>& params) {
  std::vector<at::Tensor> out;
  for (const Tensor& p : params) {
    out.push_back(to_torch(p).detach().clone());
    for (const auto& item : opt.state(p)) out.push_back(to_torch(item.value()).clone());
  }
  return out;
}

void expect_same_snapshot(const std::vector<at::Tensor>& actual, const std::vector<at::Tensor>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_TRUE(actual[i].equal(expected[i])) << "tensor " << i << "\n" << actual[i] << "\n" << expected[i];
  }
}

StreamStats waits_of(Stream& stream, const std::function<void()>& f) {
  const StreamStats before = stream.stats();
  f();
  const StreamStats after = stream.stats();
  return {after.dispatches - before.dispatches, after.barriers - before.barriers, after.submits - before.submits,
          after.host_waits - before.host_waits};
}

// What torch.cuda.amp.GradScaler documents for update(): after an inf the scale is multiplied by
// backoff_factor and the tracker restarts; after growth_interval clean steps in a row it is multiplied by
// growth_factor.
struct ScaleFormula {
  double scale;
  int64_t tracker = 0;
  void update(bool found_inf, double growth, double backoff, int64_t interval) {
    if (found_inf) {
      scale *= backoff;
      tracker = 0;
    } else if (++tracker == interval) {
      scale *= growth;
      tracker = 0;
    }
  }
};

using OptimizerFactory = std::function<std::unique_ptr<eo::Optimizer>(const std::vector<Tensor>&)>;

// The fused kernel's skip, per algorithm: a skipped step leaves parameters and state (step counts too)
// exactly as they were, and the steps after it are those of an optimizer that never saw it. A skipped
// first step leaves the parameter as if it had never been stepped.
TEST_P(GradScalerTest, SkippedStepLeavesEveryOptimizerUnchanged) {
  const std::vector<std::pair<std::string, OptimizerFactory>> optimizers = {
      {"SGD",
       [](const auto& p) { return std::make_unique<eo::SGD>(p, eo::SGDOptions(0.1).momentum(0.9).nesterov(true)); }},
      {"Adam", [](const auto& p) { return std::make_unique<eo::Adam>(p, eo::AdamOptions(0.01).amsgrad(true)); }},
      {"AdamW", [](const auto& p) { return std::make_unique<eo::AdamW>(p, eo::AdamWOptions(0.01)); }},
      {"RMSprop",
       [](const auto& p) {
         return std::make_unique<eo::RMSprop>(p, eo::RMSpropOptions(0.01).momentum(0.5).centered(true));
       }},
      {"Adagrad", [](const auto& p) { return std::make_unique<eo::Adagrad>(p, eo::AdagradOptions(0.1)); }},
      {"Adamax", [](const auto& p) { return std::make_unique<eo::Adamax>(p, eo::AdamaxOptions(0.01)); }},
      {"Adadelta", [](const auto& p) { return std::make_unique<eo::Adadelta>(p, eo::AdadeltaOptions(0.5)); }},
      {"RAdam", [](const auto& p) { return std::make_unique<eo::RAdam>(p, eo::RAdamOptions(0.01)); }},
      // A skipped first step must leave Rprop's step size at lr, the value it starts from.
      {"Rprop", [](const auto& p) { return std::make_unique<eo::Rprop>(p, eo::RpropOptions(0.01)); }},
      // A skip must carry NAdam's mu_product over unchanged, as the step count.
      {"NAdam", [](const auto& p) { return std::make_unique<eo::NAdam>(p, eo::NAdamOptions(0.01)); }},
      // And ASGD's eta and mu; with t0 = 0 its mu halves after the second step and the third averages.
      {"ASGD", [](const auto& p) { return std::make_unique<eo::ASGD>(p, eo::ASGDOptions(0.1).lambd(0.1).t0(0)); }},
  };
  const TensorOptions f32 = TensorOptions().dtype(kFloat32).device(device);
  const Tensor skip = ones({1}, f32), go = zeros({}, f32);
  // 5001 elements: more than one workgroup's tile, blocks of four and a ragged end.
  std::vector<at::Tensor> grads;
  for (int k = 0; k < 3; ++k) grads.push_back(random_torch({5001}, kFloat32, 100 + k));
  const at::Tensor initial = random_torch({5001}, kFloat32, 99);
  for (const auto& [name, make] : optimizers) {
    SCOPED_TRACE(name);
    // Reference: three plain steps. Tested: a skipped first step, two steps, a skipped step, the third.
    std::vector<Tensor> ref = {from_torch(initial, device).requires_grad_(true)};
    std::vector<Tensor> tested = {from_torch(initial, device).requires_grad_(true)};
    std::unique_ptr<eo::Optimizer> ref_opt = make(ref), opt = make(tested);
    auto set_grad = [&](std::vector<Tensor>& p, const at::Tensor& g) { p[0].mutable_grad() = from_torch(g, device); };

    set_grad(tested, grads[0] * std::numeric_limits<float>::infinity());
    opt->step_unless(skip);
    EXPECT_TRUE(to_torch(tested[0]).equal(initial)) << "a skipped first step";
    for (int k = 0; k < 2; ++k) {
      set_grad(ref, grads[k]);
      ref_opt->step();
      set_grad(tested, grads[k]);
      opt->step_unless(go);
    }
    expect_same_snapshot(snapshot(*opt, tested), snapshot(*ref_opt, ref));
    const std::vector<at::Tensor> after_two = snapshot(*opt, tested);
    set_grad(tested, grads[2] * std::numeric_limits<float>::quiet_NaN());
    opt->step_unless(skip);
    expect_same_snapshot(snapshot(*opt, tested), after_two);
    set_grad(ref, grads[2]);
    ref_opt->step();
    set_grad(tested, grads[2]);
    opt->step_unless(go);
    expect_same_snapshot(snapshot(*opt, tested), snapshot(*ref_opt, ref));
  }
}

// Scaled training against LibTorch's Adam stepping on the unscaled gradients, with an inf gradient at
// step 2: the scale follows the documented formula, the inf step is skipped (parameters and Adam's state,
// its step count included, unchanged), and the unscaled gradients are exact (powers of two).
TEST_P(GradScalerTest, ScaledTrainingMatchesLibTorchOnUnscaledGradients) {
  const std::vector<at::Tensor> initial = {random_torch({5, 3}, kFloat32, 1), random_torch({7}, kFloat32, 2)};
  std::vector<Tensor> params;
  std::vector<at::Tensor> torch_params;
  for (const at::Tensor& p : initial) {
    params.push_back(from_torch(p, device).requires_grad_(true));
    torch_params.push_back(p.clone().requires_grad_(true));
  }
  eo::Adam opt(params, eo::AdamOptions(0.01));
  torch::optim::Adam torch_opt(torch_params, torch::optim::AdamOptions(0.01));
  const auto options = amp::GradScalerOptions().init_scale(1024).growth_interval(2);
  amp::GradScaler scaler(options);
  EXPECT_EQ(scaler.get_scale(), 1024.0);
  ScaleFormula formula{1024.0};
  const int kInfStep = 2;
  for (int k = 0; k < 6; ++k) {
    SCOPED_TRACE("step " + std::to_string(k));
    // loss = sum(p_i * g_i): its gradient is g_i.
    std::vector<at::Tensor> g = {random_torch({5, 3}, kFloat32, 10 + k), random_torch({7}, kFloat32, 20 + k)};
    if (k == kInfStep) g[1][3] = std::numeric_limits<float>::infinity();
    opt.zero_grad();
    const Tensor loss = (params[0] * from_torch(g[0], device)).sum() + (params[1] * from_torch(g[1], device)).sum();
    const std::vector<at::Tensor> before = snapshot(opt, params);
    scaler.scale(loss).backward();
    EXPECT_TENSOR_EQ(params[0].grad(), g[0] * formula.scale);
    scaler.unscale_(opt);
    EXPECT_TENSOR_EQ(params[0].grad(), g[0], 0, 0);
    scaler.step(opt);
    scaler.update();
    formula.update(k == kInfStep, 2.0, 0.5, 2);
    EXPECT_EQ(scaler.get_scale(), formula.scale);
    EXPECT_EQ(scaler.get_growth_tracker(), formula.tracker);
    if (k == kInfStep) {
      expect_same_snapshot(snapshot(opt, params), before);
      continue;
    }
    torch_opt.zero_grad();
    for (size_t i = 0; i < g.size(); ++i) torch_params[i].mutable_grad() = g[i].clone();
    torch_opt.step();
    for (size_t i = 0; i < params.size(); ++i) EXPECT_TENSOR_EQ(params[i], torch_params[i].detach());
  }
  EXPECT_EQ(opt.state(params[0])["step"].item<float>(), 5.0f);
  EXPECT_EQ(scaler.get_scale(), 2048.0);
}

TEST_P(GradScalerTest, BacksOffOnInfAndGrowsAfterGrowthInterval) {
  Tensor p = zeros({4}, TensorOptions().device(device)).requires_grad_(true);
  eo::SGD opt({p}, eo::SGDOptions(0.1));
  amp::GradScaler scaler(
      amp::GradScalerOptions().init_scale(8.0).growth_interval(3).growth_factor(4).backoff_factor(0.25));
  ScaleFormula formula{8.0};
  const std::vector<bool> infs = {false, false, false, true, false, false, false, false, true, true};
  for (size_t k = 0; k < infs.size(); ++k) {
    SCOPED_TRACE("step " + std::to_string(k));
    opt.zero_grad();
    const double bad = infs[k] ? std::numeric_limits<double>::quiet_NaN() : 1.0;
    scaler.scale((p * bad).sum()).backward();
    scaler.step(opt);
    scaler.update();
    formula.update(infs[k], 4, 0.25, 3);
    EXPECT_EQ(scaler.get_scale(), formula.scale);
    EXPECT_EQ(scaler.get_growth_tracker(), formula.tracker);
  }
  // Growth stops short of float32's infinity.
  amp::GradScaler huge(amp::GradScalerOptions().init_scale(3e38).growth_interval(1));
  opt.zero_grad();
  huge.scale((p * 0).sum()).backward();
  huge.step(opt);
  huge.update();
  EXPECT_EQ(huge.get_scale(), static_cast<double>(3e38f));
}

// A mixed-precision training step (autocast forward, scaled backward, unscale, step, update) records its
// work and returns without the host waiting once, including the steps the scaler skips. The model starts
// with a scale whose float16 gradients overflow, so the first steps are skipped until the scale backs off.
// The targets are class probabilities: cross_entropy with class indices reads a bounds flag on the host.
TEST_P(GradScalerTest, MixedPrecisionStepsNeverWaitOnTheHost) {
  manual_seed(3);
  nn::Sequential model(nn::Linear(8, 16), nn::ReLU(), nn::Linear(16, 3));
  model->to(device);
  eo::Adam opt(model->parameters(), eo::AdamOptions(1e-2));
  amp::GradScaler scaler(amp::GradScalerOptions().init_scale(std::pow(2.0, 28)));
  const Tensor x = from_torch(random_torch({32, 8}, kFloat32, 5), device);
  const at::Tensor labels = at::randint(0, 3, {32}, at::TensorOptions().dtype(at::kLong));
  const Tensor y = from_torch(at::one_hot(labels, 3).to(at::kFloat), device);
  std::vector<at::Tensor> initial;
  for (const Tensor& p : model->parameters()) initial.push_back(to_torch(p).detach().clone());
  auto parameters_now = [&] {
    std::vector<at::Tensor> now;
    for (const Tensor& p : model->parameters()) now.push_back(to_torch(p).detach().clone());
    return now;
  };
  auto train_step = [&] {
    opt.zero_grad();
    Tensor loss;
    {
      autocast::AutocastGuard autocast(kFloat16);
      loss = F::cross_entropy(model->forward(x), y);
    }
    scaler.scale(loss).backward();
    scaler.step(opt);
    scaler.update();
    return loss;
  };
  device->synchronize();
  StreamStats stats = waits_of(*stream, train_step);
  EXPECT_EQ(stats.host_waits, 0u) << "the first step";
  // 2^28 makes the float16 gradients overflow: the step was skipped on the device, and the scale halved.
  expect_same_snapshot(parameters_now(), initial);
  EXPECT_EQ(scaler.get_scale(), std::pow(2.0, 27));
  device->synchronize();
  Tensor loss;
  stats = waits_of(*stream, [&] {
    for (int k = 0; k < 16; ++k) loss = train_step();
  });
  EXPECT_EQ(stats.host_waits, 0u) << "16 steps";
  // A read finds the device done at times and then counts no wait, but it always submits the work recorded
  // before it: with no read, the stream submits only when a batch fills (about 80 dispatches a step here
  // and 256 to a batch on Vulkan), so fewer times than there are steps.
  EXPECT_LT(stats.submits, 16u) << stats.dispatches << " dispatches";
  // The scale backed off far enough for steps to run, and they trained.
  EXPECT_LT(scaler.get_scale(), std::pow(2.0, 27));
  EXPECT_FALSE(to_torch(model->parameters()[0]).equal(initial[0]));
  EXPECT_TRUE(std::isfinite(loss.item<float>()));
  for (const Tensor& p : model->parameters()) EXPECT_EQ(p.grad().dtype(), kFloat32);
}

TEST_P(GradScalerTest, DisabledScalerPassesThrough) {
  Tensor p = ones({3}, TensorOptions().device(device)).requires_grad_(true);
  eo::SGD opt({p}, eo::SGDOptions(0.5));
  amp::GradScaler scaler(amp::GradScalerOptions().enabled(false).growth_factor(0.5));  // unchecked when disabled
  const Tensor loss = (p * 2).sum();
  EXPECT_TRUE(scaler.scale(loss).is_same(loss));
  loss.backward();
  scaler.unscale_(opt);
  scaler.step(opt);
  scaler.update();
  EXPECT_TENSOR_EQ(p, at::zeros({3}));
  EXPECT_EQ(scaler.get_scale(), 1.0);
  EXPECT_FALSE(scaler.state_dict().has_value());
  EXPECT_FALSE(scaler.is_enabled());
}

TEST_P(GradScalerTest, StateDictRoundTrips) {
  Tensor p = ones({3}, TensorOptions().device(device)).requires_grad_(true);
  eo::SGD opt({p}, eo::SGDOptions(0.1));
  amp::GradScaler scaler(amp::GradScalerOptions().init_scale(256).growth_interval(5));
  for (int k = 0; k < 3; ++k) {
    opt.zero_grad();
    scaler.scale(p.sum()).backward();
    scaler.step(opt);
    scaler.update();
  }
  const std::optional<amp::GradScalerState> state = scaler.state_dict();
  ASSERT_TRUE(state.has_value());
  EXPECT_EQ(state->scale, 256.0);
  EXPECT_EQ(state->growth_factor, 2.0);
  EXPECT_EQ(state->backoff_factor, 0.5);
  EXPECT_EQ(state->growth_interval, 5);
  EXPECT_EQ(state->growth_tracker, 3);
  amp::GradScaler loaded;
  loaded.load_state_dict(state);
  EXPECT_EQ(loaded.get_scale(), 256.0);
  EXPECT_EQ(loaded.get_growth_tracker(), 3);
  EXPECT_EQ(loaded.get_growth_interval(), 5);
  // Two more clean steps reach growth_interval: the loaded tracker counts.
  for (int k = 0; k < 2; ++k) {
    opt.zero_grad();
    loaded.scale(p.sum()).backward();
    loaded.step(opt);
    loaded.update();
  }
  EXPECT_EQ(loaded.get_scale(), 512.0);
  expect_error<Error>([&] { loaded.load_state_dict(std::nullopt); },
                      "The source state dict is empty, possibly because it was saved from a disabled instance of "
                      "GradScaler.");
}

// PyTorch's messages for calls out of order and for float16 gradients.
TEST_P(GradScalerTest, RefusesWhatPyTorchRefuses) {
  expect_error<Error>([] { amp::GradScaler(amp::GradScalerOptions().growth_factor(1.0)); },
                      "The growth factor must be > 1.0.");
  expect_error<Error>([] { amp::GradScaler(amp::GradScalerOptions().backoff_factor(1.0)); },
                      "The backoff factor must be < 1.0.");
  Tensor p = ones({3}, TensorOptions().device(device)).requires_grad_(true);
  eo::SGD opt({p}, eo::SGDOptions(0.1));
  amp::GradScaler scaler;
  EXPECT_EQ(scaler.get_scale(), 65536.0);
  expect_error<Error>([&] { scaler.unscale_(opt); },
                      "Attempted unscale_ but _scale is None.  This may indicate your script did not use "
                      "scaler.scale(loss or outputs) earlier in the iteration.");
  scaler.scale(p.sum()).backward();
  expect_error<Error>([&] { scaler.update(); }, "No inf checks were recorded prior to update.");
  scaler.unscale_(opt);
  expect_error<Error>([&] { scaler.unscale_(opt); },
                      "unscale_() has already been called on this optimizer since the last update().");
  scaler.step(opt);
  expect_error<Error>([&] { scaler.step(opt); }, "step() has already been called since the last update().");
  expect_error<Error>([&] { scaler.unscale_(opt); }, "unscale_() is being called after step().");
  scaler.update();
  opt.zero_grad();
  expect_error<Error>([&] { scaler.step(opt); }, "No inf checks were recorded for this optimizer.");
  scaler.update(32.0);
  EXPECT_EQ(scaler.get_scale(), 32.0);
  p.mutable_grad() = ones({3}, TensorOptions().dtype(kFloat16).device(device));
  expect_error<Error>([&] { scaler.unscale_(opt); }, "Attempting to unscale FP16 gradients.");
}

INSTANTIATE_TEST_SUITE_P(Backends, GradScalerTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
