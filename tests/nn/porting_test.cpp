// Porting: tests/nn/porting/torch_cnn.inc is LibTorch code; its copy with `torch::` renamed to `ember::`
// (made by tests/CMakeLists.txt) compiles against ember and, given LibTorch's weights, gives LibTorch's
// outputs and gradients.
#include <torch/torch.h>

#include <sstream>

#include "ember.h"
#include "tests/oracle.h"
#include "tests/test_support.h"

namespace libtorch_model {
#include "porting/torch_cnn.inc"
}  // namespace libtorch_model

namespace ember_model {
#include "ember_cnn.inc"
}  // namespace ember_model

namespace ember::test {
namespace {

class PortingTest : public BackendTest {};

TEST_P(PortingTest, RenamedLibTorchCnnGivesLibTorchsOutputs) {
  libtorch_model::Net theirs;
  ember_model::Net ours;
  ours->to(device);
  OrderedDict<std::string, Tensor> state;
  for (const auto& p : theirs->named_parameters()) state.insert(p.key(), from_torch(p.value().detach(), device));
  for (const auto& b : theirs->named_buffers()) state.insert(b.key(), from_torch(b.value(), device));
  ours->load_state_dict(state);
  // In eval mode: dropout draws from different generators in training, so only eval is deterministic.
  theirs->eval();
  ours->eval();
  const at::Tensor images = random_torch({4, 1, 28, 28}, kFloat32, 1, 0, 1);
  const at::Tensor labels = at::tensor({3, 1, 4, 1}, at::kLong);
  const at::Tensor out_t = theirs->forward(images);
  const Tensor out = ours->forward(from_torch(images, device));
  EXPECT_TENSOR_EQ(out, out_t.detach(), 1e-4, 1e-5);
  // Sizes, strides and device print as LibTorch prints them, the device's spec in place of "cpu".
  std::string expected = libtorch_model::describe(out_t.t());
  expected.replace(expected.rfind("cpu"), 3, device->spec());
  EXPECT_EQ(ember_model::describe(out.t()), expected);
  // The log-probabilities of the labels, as nll_loss picks them.
  const at::Tensor picked = at::one_hot(labels, 10).to(at::kFloat);
  (-(out_t * picked).sum()).backward();
  (-(out * from_torch(picked, device)).sum()).backward();
  auto grads = ours->named_parameters();
  for (const auto& p : theirs->named_parameters()) {
    SCOPED_TRACE(p.key());
    EXPECT_TENSOR_EQ(grads[p.key()].grad(), p.value().grad(), 1e-3, 1e-5);
  }
  EXPECT_EQ(ours->named_buffers().keys(), std::vector<std::string>({"bn.running_mean", "bn.running_var", "bn.num_batches_tracked"}));
}

INSTANTIATE_TEST_SUITE_P(Backends, PortingTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
