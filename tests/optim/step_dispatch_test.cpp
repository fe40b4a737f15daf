// A fused step is one kernel launch per (device, dtype) of each param group and never waits on the host.
#include "tests/optim/optim_oracle.h"

namespace ember::test {
namespace {

namespace eo = ember::optim;

class OptimizerDispatchTest : public BackendTest {};

// The Fashion-MNIST MLP's parameters (784-256-10) with fixed gradients.
std::vector<Tensor> mlp_parameters(const std::shared_ptr<Device>& device) {
  const TensorOptions f32 = TensorOptions().dtype(DType::Float32).device(device);
  std::vector<Tensor> params = {rand({256, 784}, f32), rand({256}, f32), rand({10, 256}, f32), rand({10}, f32)};
  for (Tensor& p : params) {
    p.requires_grad_(true);
    p.mutable_grad() = rand(p.sizes(), f32);
  }
  return params;
}

StreamStats stats_of(const std::function<void()>& f, Stream& stream) {
  const StreamStats before = stream.stats();
  f();
  const StreamStats after = stream.stats();
  return {after.dispatches - before.dispatches, after.barriers - before.barriers, after.submits - before.submits,
          after.host_waits - before.host_waits};
}

TEST_P(OptimizerDispatchTest, OneDispatchPerGroupAndNoHostWait) {
  const std::vector<Tensor> params = mlp_parameters(device);
  device->synchronize();
  auto check = [&](eo::Optimizer& opt, uint64_t groups, const char* what) {
    SCOPED_TRACE(what);
    for (int k = 0; k < 6; ++k) {
      const StreamStats s = stats_of([&] { opt.step(); }, *stream);
      EXPECT_EQ(s.host_waits, 0u) << "step " << k;
      // The first steps may upload the table of a new layout (parity and first-step flags change); from
      // the fourth on every table is cached.
      if (k >= 3) EXPECT_EQ(s.dispatches, groups) << "step " << k;
      else EXPECT_LE(s.dispatches, 2 * groups) << "step " << k;
    }
  };
  eo::Adam adam(params, eo::AdamOptions(1e-3));
  check(adam, 1, "Adam, one group");
  eo::SGD sgd(params, eo::SGDOptions(0.1).momentum(0.9));
  check(sgd, 1, "SGD, one group");
  eo::RMSprop two_groups({eo::OptimizerParamGroup({params[0], params[1]}),
                          eo::OptimizerParamGroup({params[2], params[3]},
                                                  std::make_unique<eo::RMSpropOptions>(eo::RMSpropOptions(1e-3).centered(true)))});
  check(two_groups, 2, "RMSprop, two groups");
  // RAdam's rectification, like Adam's bias corrections, comes from the step count on the device.
  eo::RAdam radam(params, eo::RAdamOptions(1e-3));
  check(radam, 1, "RAdam, one group");
}

// A scheduler changes lr on the host: the next step needs no wait either.
TEST_P(OptimizerDispatchTest, SchedulerStepsDoNotWait) {
  const std::vector<Tensor> params = mlp_parameters(device);
  eo::Adam adam(params, eo::AdamOptions(1e-3));
  eo::CosineAnnealingLR scheduler(adam, 10);
  for (int k = 0; k < 4; ++k) adam.step();
  device->synchronize();
  const StreamStats s = stats_of(
      [&] {
        for (int k = 0; k < 3; ++k) {
          adam.step();
          scheduler.step();
        }
      },
      *stream);
  EXPECT_EQ(s.host_waits, 0u);
  EXPECT_EQ(s.dispatches, 3u);
}

INSTANTIATE_TEST_SUITE_P(Backends, OptimizerDispatchTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
