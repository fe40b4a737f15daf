// The optimizer kernel family's contract (runtime/kernels/optim.h) on every backend: the step count read
// from slot `parity` and written to the other, the first-step state, parameters in separate memory blocks
// (several launches) and the argument checks.
#include <torch/optim/adam.h>

#include "optim/adam.h"
#include "runtime/kernels/optim.h"
#include "tests/optim/optim_oracle.h"
#include "tests/oracle.h"

namespace ember::test {
namespace {

class OptimKernelsTest : public BackendTest {
 protected:
  OptimKernels& kernels() { return device->kernels().get<OptimKernels>(); }
};

// Adam from a saved state: step count 9 in slot 1 (parity 1), moments given; the kernel must use t = 10
// for the bias corrections and write 10 into slot 0, leaving slot 1 alone.
TEST_P(OptimKernelsTest, StepCountComesFromTheDevice) {
  const TensorOptions f32 = TensorOptions().dtype(DType::Float32).device(device);
  const at::Tensor p0 = random_torch({300}, DType::Float32, 1), g = random_torch({300}, DType::Float32, 2);
  const at::Tensor m0 = random_torch({300}, DType::Float32, 3) * 0.1;
  const at::Tensor v0 = random_torch({300}, DType::Float32, 4).abs() * 0.1;

  at::Tensor tp = p0.clone().requires_grad_(true);
  tp.mutable_grad() = g;
  torch::optim::Adam adam({tp}, torch::optim::AdamOptions(0.01).weight_decay(0.1));
  auto state = std::make_unique<torch::optim::AdamParamState>();
  state->step(9);
  state->exp_avg(m0.clone());
  state->exp_avg_sq(v0.clone());
  adam.state()[torch_state_key(tp)] = std::move(state);
  adam.step();

  Tensor p = from_torch(p0, device), grad = from_torch(g, device), m = from_torch(m0, device), v = from_torch(v0, device);
  Tensor steps = from_torch(at::tensor({5.0f, 9.0f}), device);
  OptimStepArgs args;
  args.algorithm = OptimAlgorithm::Adam;
  args.hyper.lr = 0.01;
  args.hyper.weight_decay = 0.1;
  OptimTensor t;
  t.param = p.ref();
  t.grad = grad.ref();
  t.state[0] = m.ref();
  t.state[1] = v.ref();
  t.steps = steps.ref();
  t.parity = 1;
  args.tensors = {t};
  kernels().step(*stream, args);
  EXPECT_TENSOR_EQ(p, tp.detach());
  EXPECT_EQ(steps.to_vector<float>(), (std::vector<float>{10, 9}));

  // Fresh: the memory's contents are ignored (as zeros), the count starts at 0 and 1 goes to slot 1.
  Tensor q = from_torch(p0, device);
  Tensor junk_m = full({300}, 1e30, f32), junk_v = full({300}, -5.0, f32);
  Tensor fresh_steps = from_torch(at::tensor({7.0f, 7.0f}), device);
  t.param = q.ref();
  t.state[0] = junk_m.ref();
  t.state[1] = junk_v.ref();
  t.steps = fresh_steps.ref();
  t.parity = 0;
  t.fresh = true;
  args.tensors = {t};
  kernels().step(*stream, args);
  at::Tensor tq = p0.clone().requires_grad_(true);
  tq.mutable_grad() = g;
  torch::optim::Adam first({tq}, torch::optim::AdamOptions(0.01).weight_decay(0.1));
  first.step();
  EXPECT_TENSOR_EQ(q, tq.detach());
  EXPECT_EQ(fresh_steps.to_vector<float>(), (std::vector<float>{7, 1}));
}

// Parameters of 12 MiB get memory blocks of their own (once the cache holds no larger block to split):
// one launch per block, each correct.
TEST_P(OptimKernelsTest, ParametersInSeparateBlocks) {
  device->synchronize();
  device->empty_cache();
  const int64_t n = 3 << 20;
  std::vector<Tensor> params;
  std::vector<at::Tensor> torch_params;
  for (int i = 0; i < 3; ++i) {
    const at::Tensor p0 = random_torch({n}, DType::Float32, 10 + i);
    const at::Tensor g = random_torch({n}, DType::Float32, 20 + i);
    at::Tensor tp = p0.clone().requires_grad_(true);
    tp.mutable_grad() = g;
    torch_params.push_back(tp);
    Tensor p = from_torch(p0, device).requires_grad_(true);
    p.mutable_grad() = from_torch(g, device);
    params.push_back(p);
  }
  torch::optim::Adam torch_adam(torch_params, torch::optim::AdamOptions(0.01));
  optim::Adam adam(params, optim::AdamOptions(0.01));
  adam.step();  // allocates the state
  torch_adam.step();
  device->synchronize();
  const StreamStats before = stream->stats();
  adam.step();
  torch_adam.step();
  const uint64_t dispatches = stream->stats().dispatches - before.dispatches;
  if (device->backend() == Backend::Vulkan) {
    EXPECT_GE(dispatches, 3u);  // the parameters' blocks differ
    EXPECT_LE(dispatches, 4u);  // and perhaps one table upload
  }
  for (size_t i = 0; i < params.size(); ++i) EXPECT_TENSOR_EQ(params[i].detach(), torch_params[i].detach());
}

TEST_P(OptimKernelsTest, ArgumentChecks) {
  const TensorOptions f32 = TensorOptions().dtype(DType::Float32).device(device);
  Tensor p = ones({4, 3}, f32), g = ones({4, 3}, f32), m = ones({4, 3}, f32), steps = zeros({2}, f32);
  OptimStepArgs args;
  args.algorithm = OptimAlgorithm::SGD;
  args.hyper.momentum = 0.9;
  OptimTensor t;
  t.param = p.ref();
  t.grad = g.t().contiguous().t().ref();  // other strides
  t.state[0] = m.ref();
  args.tensors = {t};
  expect_error<Error>([&] { kernels().step(*stream, args); },
                      "optimizer step (sgd): tensor 0: the gradient must have the parameter's dtype, sizes and strides");
  args.tensors[0].grad = g.ref();
  args.tensors[0].state[0].reset();
  expect_error<Error>([&] { kernels().step(*stream, args); }, "optimizer step (sgd): tensor 0: state slot 0 is missing");
  args.tensors[0].state[0] = m.ref();
  args.tensors[0].steps = steps.ref();
  expect_error<Error>([&] { kernels().step(*stream, args); },
                      "optimizer step (sgd): tensor 0: this algorithm keeps no step count");
  args.tensors[0].steps.reset();
  args.tensors[0].param = p.t().ref();
  args.tensors[0].grad = g.t().ref();
  args.tensors[0].state[0] = m.t().ref();
  kernels().step(*stream, args);  // a transposed, dense parameter is fine
  args.tensors[0].param = p.slice(1, 0, 2).ref();
  args.tensors[0].grad = g.slice(1, 0, 2).ref();
  args.tensors[0].state[0] = m.slice(1, 0, 2).ref();
  expect_error<Error>([&] { kernels().step(*stream, args); }, "optimizer step (sgd): tensor 0: the parameter is not dense");
  // NAdam keeps two scalars, the step count and mu_product: a pair for one is too short.
  const Tensor v = ones({4, 3}, f32);
  OptimStepArgs nadam;
  nadam.algorithm = OptimAlgorithm::NAdam;
  OptimTensor n;
  n.param = p.ref();
  n.grad = g.ref();
  n.state[0] = m.ref();
  n.state[1] = v.ref();
  n.steps = steps.ref();
  nadam.tensors = {n};
  expect_error<Error>([&] { kernels().step(*stream, nadam); },
                      "optimizer step (nadam): tensor 0: the step scalars must be 4 contiguous float32 elements");
}

INSTANTIATE_TEST_SUITE_P(Backends, OptimKernelsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
