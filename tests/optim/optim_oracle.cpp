#include "tests/optim/optim_oracle.h"

#include <string>

namespace ember::test {

std::vector<at::Tensor> trajectory_parameters(at::ScalarType dtype, uint64_t seed) {
  const DType d = ember_dtype(dtype);
  std::vector<at::Tensor> params = {
      random_torch({5, 7}, d, seed, -1, 1),
      random_torch({13}, d, seed + 1, -1, 1),
      random_torch({}, d, seed + 2, -1, 1),
      random_torch({8197}, d, seed + 3, -1, 1),  // past optim.comp's TILE of 8192
      random_torch({6, 4}, d, seed + 4, -1, 1).t(),
  };
  return params;
}

at::Tensor trajectory_gradient(const at::Tensor& p, size_t index, int step) {
  const at::Tensor noise = random_torch(p.sizes(), ember_dtype(p.scalar_type()), 1000 + 37 * step + index, -1, 1);
  return noise + 0.5 * p.detach();
}

namespace {

void set_gradients(Trajectory& t, int step) {
  for (size_t i = 0; i < t.torch_params.size(); ++i) {
    if (i == 1 && step % 2 == 1) {
      t.torch_params[i].mutable_grad() = at::Tensor();
      t.ember_params[i].mutable_grad() = Tensor();
      continue;
    }
    const at::Tensor g = trajectory_gradient(t.torch_params[i], i, step);
    t.torch_params[i].mutable_grad() = g;
    // The same values, in the parameter's layout (a transposed parameter gets a transposed gradient).
    Tensor ge = from_torch(g.contiguous(), t.ember_params[i].device());
    if (!g.is_contiguous()) ge = from_torch(g.t().contiguous(), t.ember_params[i].device()).t();
    t.ember_params[i].mutable_grad() = ge;
  }
}

}  // namespace

void expect_equal_params(const Trajectory& t, int step, double rtol, double atol) {
  for (size_t i = 0; i < t.torch_params.size(); ++i) {
    EXPECT_TENSOR_EQ(t.ember_params[i], t.torch_params[i].detach(), rtol, atol,
                     "parameter " + std::to_string(i) + " after step " + std::to_string(step + 1));
  }
}

Trajectory expect_same_trajectory(const std::shared_ptr<Device>& device, const EmberOptimizerFactory& make_ember,
                                  const TorchOptimizerFactory& make_torch, int steps, at::ScalarType dtype,
                                  double rtol, double atol) {
  Trajectory t;
  for (const at::Tensor& p : trajectory_parameters(dtype)) {
    at::Tensor torch_p = p.clone();  // keeps the transposed layout
    torch_p.requires_grad_(true);
    Tensor ember_p = p.is_contiguous() ? from_torch(p, device) : from_torch(p.t().contiguous(), device).t();
    ember_p.requires_grad_(true);
    t.torch_params.push_back(torch_p);
    t.ember_params.push_back(ember_p);
  }
  t.torch = make_torch(t.torch_params);
  t.ember = make_ember(t.ember_params);
  continue_trajectory(t, 0, steps, rtol, atol);
  return t;
}

void continue_trajectory(Trajectory& t, int first, int steps, double rtol, double atol) {
  for (int k = first; k < first + steps; ++k) {
    set_gradients(t, k);
    t.torch->step();
    t.ember->step();
    expect_equal_params(t, k, rtol, atol);
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace ember::test
