// The autograd oracle on the ops the engine work started with; the op families have their own files.
#include "tests/autograd_oracle.h"

namespace ember::test {
namespace {

class AutogradSmokeTest : public BackendTest {};

TEST_P(AutogradSmokeTest, BroadcastMulAddExpTanhSum) {
  GradCase test;
  test.inputs = {random_torch({3, 5}, DType::Float32, 1), random_torch({5}, DType::Float32, 2)};
  test.context = "tanh(a*b+exp(a)).sum(1)";
  auto ember_fn = [](const std::vector<Tensor>& x) { return (x[0] * x[1] + x[0].exp()).tanh().sum({1}); };
  auto torch_fn = [](const std::vector<at::Tensor>& x) { return (x[0] * x[1] + x[0].exp()).tanh().sum(1); };
  expect_grads_match(device, test, ember_fn, torch_fn);
  expect_second_order_match(device, test, ember_fn, torch_fn);
}

INSTANTIATE_TEST_SUITE_P(Backends, AutogradSmokeTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
