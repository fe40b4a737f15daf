#pragma once
// The oracle of the optimizer tests: LibTorch's torch::optim stepping the same parameters with the same
// gradients, step by step.
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <vector>

#include "optim/optim.h"
#include "tests/oracle.h"

namespace ember::test {

// The key of `param` in torch::optim's per-parameter state: its TensorImpl, written as a string in
// LibTorch 1.13 (CI's), the pointer itself in 2.x (the GPU machine's).
inline auto torch_state_key(const at::Tensor& param) {
#if TORCH_VERSION_MAJOR >= 2
  return static_cast<void*>(param.unsafeGetTensorImpl());
#else
  return c10::guts::to_string(param.unsafeGetTensorImpl());
#endif
}

using EmberOptimizerFactory = std::function<std::unique_ptr<optim::Optimizer>(const std::vector<Tensor>&)>;
using TorchOptimizerFactory =
    std::function<std::unique_ptr<torch::optim::Optimizer>(const std::vector<at::Tensor>&)>;

// The parameters every trajectory steps: a matrix, a vector, a 0-dim tensor, one longer than a
// workgroup's tile and a transposed (dense, not contiguous) one.
std::vector<at::Tensor> trajectory_parameters(at::ScalarType dtype = at::kFloat, uint64_t seed = 1);

// The gradient of step `k` for parameter `p`: seeded noise plus 0.5 p, so that it depends on where the
// trajectory is. Parameter 1 has no gradient on odd steps (both optimizers skip it there).
at::Tensor trajectory_gradient(const at::Tensor& p, size_t index, int step);

// Makes both optimizers over equal copies of trajectory_parameters(dtype) and expects the parameters
// equal after each of `steps` steps (within rtol and atol; below zero: the dtype's tolerance). Returns
// the ember optimizer and its parameters, for tests that go on from there.
struct Trajectory {
  std::unique_ptr<optim::Optimizer> ember;
  std::vector<Tensor> ember_params;
  std::unique_ptr<torch::optim::Optimizer> torch;
  std::vector<at::Tensor> torch_params;
};
Trajectory expect_same_trajectory(const std::shared_ptr<Device>& device, const EmberOptimizerFactory& make_ember,
                                  const TorchOptimizerFactory& make_torch, int steps = 20,
                                  at::ScalarType dtype = at::kFloat, double rtol = -1, double atol = -1);
// Steps both further, from step number `first`, expecting equal parameters after each.
void continue_trajectory(Trajectory& t, int first, int steps, double rtol = -1, double atol = -1);
// Expects each of t's ember parameters equal to its torch one; `step` (from 0) names the step in messages.
void expect_equal_params(const Trajectory& t, int step, double rtol = -1, double atol = -1);

}  // namespace ember::test
