// A Sequential's Linear followed by ReLU or GELU runs as one matmul launch with the activation in its
// store, and a Conv followed by ReLU as one convolution launch: the same values, graph and gradients as
// LibTorch's unfused modules, one launch fewer, and no fusion where a hook, a subclass or the input's
// rank asks for the unfused path.
#include <torch/torch.h>

#include <limits>

#include "ember.h"
#include "tests/nn/torch_parameters.h"
#include "tests/oracle.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

class SequentialFusionTest : public BackendTest {
 protected:
  void copy_parameters(nn::Module& ours, const torch::nn::Module& theirs) {
    test::copy_parameters(ours, theirs, device);
  }

  // Kernel launches `f` issues on the device's stream.
  template <class F>
  uint64_t dispatches_of(const F& f) {
    const uint64_t before = stream->stats().dispatches;
    f();
    return stream->stats().dispatches - before;
  }
};

// A user's module that is a Linear by type, but computes something else.
struct DoubledLinearImpl : nn::LinearImpl {
  using nn::LinearImpl::LinearImpl;
  Tensor forward(const Tensor& input) { return nn::LinearImpl::forward(input) * 2; }
};

TEST_P(SequentialFusionTest, LinearReLUMatchesLibTorchWithItsGraph) {
  torch::nn::Sequential theirs(torch::nn::Linear(9, 33), torch::nn::ReLU(), torch::nn::Linear(33, 5));
  nn::Sequential ours(nn::Linear(9, 33), nn::ReLU(), nn::Linear(33, 5));
  ours->to(device);
  copy_parameters(*ours, *theirs);
  for (int64_t batch : {1, 17, 64}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    const at::Tensor x = random_torch({batch, 9}, kFloat32, 40 + batch);
    const at::Tensor tx = x.clone().requires_grad_(true);
    const Tensor ex = from_torch(x, device).requires_grad_(true);
    const at::Tensor ty = theirs->forward(tx);
    const Tensor ey = ours(ex);
    EXPECT_TENSOR_EQ(ey, ty.detach());
    // The graph of the unfused ops: the last Linear's addmm, relu's node, the first Linear's addmm.
    const auto relu = ey.grad_fn()->next_edge(1).function;
    ASSERT_NE(relu, nullptr);
    EXPECT_EQ(relu->name(), "ReluBackward0");
    ASSERT_NE(relu->next_edge(0).function, nullptr);
    EXPECT_EQ(relu->next_edge(0).function->name(), "AddmmBackward0");

    const at::Tensor seed = random_torch({batch, 5}, kFloat32, 7);
    ty.backward(seed);
    ey.backward(from_torch(seed, device));
    EXPECT_TENSOR_EQ(ex.grad(), tx.grad());
    for (const auto& p : theirs->named_parameters()) {
      SCOPED_TRACE(p.key());
      EXPECT_TENSOR_EQ(ours->named_parameters()[p.key()].grad(), p.value().grad());
    }
    ours->zero_grad();
    theirs->zero_grad();
  }
}

TEST_P(SequentialFusionTest, FusedPairIsOneLaunchFewer) {
  if (GetParam() != "vulkan") {
    GTEST_SKIP() << "the activation in the matmul's store is Vulkan's: CUDA's matmul runs it as an elementwise "
                    "launch after cuBLAS (kernels_cuda/matmul/matmul.cu), so fused and unfused launch as often";
  }
  nn::Linear first(12, 20), second(20, 4);
  nn::Sequential fused(first, nn::ReLU(), second);
  nn::Sequential unfused(first, nn::Functional([](const Tensor& x) { return x.relu(); }), second);
  fused->to(device);
  const Tensor x = from_torch(random_torch({8, 12}, kFloat32, 3), device);
  Tensor a, b;
  const uint64_t fused_launches = dispatches_of([&] { a = fused(x); });
  const uint64_t unfused_launches = dispatches_of([&] { b = unfused(x); });
  EXPECT_EQ(fused_launches + 1, unfused_launches);
  EXPECT_TENSOR_EQ(a, to_torch(b), 0, 0);  // relu in the store is the same arithmetic, bit for bit
}

TEST_P(SequentialFusionTest, GELUFusesWhereNothingIsRecorded) {
  for (const std::string approximate : {"none", "tanh"}) {
    SCOPED_TRACE(approximate);
    torch::nn::Sequential theirs(torch::nn::Linear(6, 40), torch::nn::GELU(torch::nn::GELUOptions().approximate(approximate)));
    nn::Sequential ours(nn::Linear(6, 40), nn::GELU(nn::GELUOptions().approximate(approximate)));
    ours->to(device);
    copy_parameters(*ours, *theirs);
    const at::Tensor x = random_torch({10, 6}, kFloat32, 5);
    {
      NoGradGuard no_grad;
      const Tensor input = from_torch(x, device);
      Tensor fused;
      const uint64_t launches = dispatches_of([&] { fused = ours(input); });
      // CUDA's matmul runs the activation (and the bias cast) as launches of their own after cuBLAS: the
      // fused path still runs there, and its values are checked below.
      if (GetParam() == "vulkan") {
        EXPECT_EQ(launches, 1u);
      }
      EXPECT_TENSOR_EQ(fused, theirs->forward(x).detach(), 1e-5, 1e-6);
    }
    // With autograd, gelu's backward needs the sum before the activation: the modules run apart.
    const at::Tensor tx = x.clone().requires_grad_(true);
    const Tensor ex = from_torch(x, device).requires_grad_(true);
    const at::Tensor ty = theirs->forward(tx);
    const Tensor ey = ours(ex);
    EXPECT_EQ(ey.grad_fn()->name(), "GeluBackward0");
    EXPECT_TENSOR_EQ(ey, ty.detach(), 1e-5, 1e-6);
    ty.sum().backward();
    ey.sum().backward();
    EXPECT_TENSOR_EQ(ex.grad(), tx.grad(), 1e-5, 1e-6);
  }
}

TEST_P(SequentialFusionTest, HooksSubclassesAndBatchedInputsRunUnfused) {
  nn::Linear linear(4, 6);
  nn::ReLU relu;
  nn::Sequential model(linear, relu);
  model->to(device);
  const at::Tensor x = random_torch({5, 4}, kFloat32, 9);
  const at::Tensor expected = at::relu(at::addmm(to_torch(linear->bias), x, to_torch(linear->weight).t()));
  // A hook on ReLU sees ReLU's input, the sum with its negative entries, which the fused store never
  // writes anywhere.
  at::Tensor seen;
  auto handle = relu->register_forward_hook([&](nn::Module&, const autograd::tensor_list& inputs, const autograd::tensor_list&) {
    seen = to_torch(inputs[0]);
    return std::optional<autograd::tensor_list>{};
  });
  EXPECT_TENSOR_EQ(model(from_torch(x, device)), expected);
  ASSERT_TRUE(seen.defined());
  EXPECT_TRUE((seen < 0).any().item<bool>());
  handle.remove();
  EXPECT_TENSOR_EQ(model(from_torch(x, device)), expected);

  // A subclass of Linear keeps its own forward.
  nn::Sequential doubled(std::make_shared<DoubledLinearImpl>(4, 6), nn::ReLU());
  doubled->to(device);
  auto& inner = doubled->at<DoubledLinearImpl>(0);
  const at::Tensor doubled_expected =
      at::relu(at::addmm(to_torch(inner.bias), x, to_torch(inner.weight).t()) * 2);
  EXPECT_TENSOR_EQ(doubled(from_torch(x, device)), doubled_expected);

  // A batch of sequences: linear is a matmul and an add there, not one addmm.
  const at::Tensor batched = random_torch({2, 3, 4}, kFloat32, 10);
  EXPECT_TENSOR_EQ(model(from_torch(batched, device)),
                   at::relu(at::matmul(batched, to_torch(linear->weight).t()) + to_torch(linear->bias)));
}

// Conv1d, Conv2d (zero and reflect padding, groups) and Conv3d followed by ReLU: the relu in the
// convolution's store, with LibTorch's values, graph and gradients.
TEST_P(SequentialFusionTest, ConvReLUMatchesLibTorchWithItsGraph) {
  torch::nn::Sequential theirs(
      torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).padding(1)), torch::nn::ReLU(),
      torch::nn::Conv2d(torch::nn::Conv2dOptions(8, 6, 3).padding(1).padding_mode(torch::kReflect).groups(2)),
      torch::nn::ReLU(torch::nn::ReLUOptions().inplace(true)));
  nn::Sequential ours(nn::Conv2d(nn::Conv2dOptions(3, 8, 3).padding(1)), nn::ReLU(),
                      nn::Conv2d(nn::Conv2dOptions(8, 6, 3).padding(1).padding_mode(kReflect).groups(2)),
                      nn::ReLU(nn::ReLUOptions().inplace(true)));
  ours->to(device);
  copy_parameters(*ours, *theirs);
  for (int64_t batch : {1, 5}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    const at::Tensor x = random_torch({batch, 3, 7, 9}, kFloat32, 60 + batch);
    const at::Tensor tx = x.clone().requires_grad_(true);
    const Tensor ex = from_torch(x, device).requires_grad_(true);
    const at::Tensor ty = theirs->forward(tx);
    const Tensor ey = ours(ex);
    EXPECT_TENSOR_EQ(ey, ty.detach(), 1e-5, 1e-6);
    // The graph of the unfused ops: relu's node, then the convolution's.
    ASSERT_NE(ey.grad_fn(), nullptr);
    EXPECT_EQ(ey.grad_fn()->name(), "ReluBackward0");
    ASSERT_NE(ey.grad_fn()->next_edge(0).function, nullptr);
    EXPECT_EQ(ey.grad_fn()->next_edge(0).function->name(), "ConvolutionBackward0");

    const at::Tensor seed = random_torch(ty.sizes().vec(), kFloat32, 8);
    ty.backward(seed);
    ey.backward(from_torch(seed, device));
    EXPECT_TENSOR_EQ(ex.grad(), tx.grad(), 1e-5, 1e-6);
    for (const auto& p : theirs->named_parameters()) {
      SCOPED_TRACE(p.key());
      EXPECT_TENSOR_EQ(ours->named_parameters()[p.key()].grad(), p.value().grad(), 1e-4, 1e-5);
    }
    ours->zero_grad();
    theirs->zero_grad();
  }
  // One and three spatial dims, unbatched too.
  torch::nn::Sequential theirs1(torch::nn::Conv1d(torch::nn::Conv1dOptions(2, 4, 3)), torch::nn::ReLU());
  nn::Sequential ours1(nn::Conv1d(nn::Conv1dOptions(2, 4, 3)), nn::ReLU());
  torch::nn::Sequential theirs3(torch::nn::Conv3d(torch::nn::Conv3dOptions(2, 3, 2)), torch::nn::ReLU());
  nn::Sequential ours3(nn::Conv3d(nn::Conv3dOptions(2, 3, 2)), nn::ReLU());
  ours1->to(device);
  ours3->to(device);
  copy_parameters(*ours1, *theirs1);
  copy_parameters(*ours3, *theirs3);
  for (const std::vector<int64_t>& sizes : {std::vector<int64_t>{3, 2, 11}, std::vector<int64_t>{2, 11}}) {
    const at::Tensor x = random_torch(sizes, kFloat32, 70);
    EXPECT_TENSOR_EQ(ours1(from_torch(x, device)), theirs1->forward(x).detach(), 1e-5, 1e-6);
  }
  const at::Tensor x3 = random_torch({2, 2, 4, 5, 3}, kFloat32, 71);
  EXPECT_TENSOR_EQ(ours3(from_torch(x3, device)), theirs3->forward(x3).detach(), 1e-5, 1e-6);
}

TEST_P(SequentialFusionTest, ConvReLUIsOneLaunchFewerAndKeepsNaN) {
  nn::Conv2d conv(nn::Conv2dOptions(2, 5, 3).padding(1));
  nn::Sequential fused(conv, nn::ReLU());
  nn::Sequential unfused(conv, nn::Functional([](const Tensor& x) { return x.relu(); }));
  fused->to(device);
  at::Tensor x = random_torch({3, 2, 6, 6}, kFloat32, 12);
  x[1][0][2][3] = std::numeric_limits<float>::quiet_NaN();  // NaN reaches nine positions of every channel
  const Tensor input = from_torch(x, device);
  Tensor a, b;
  const uint64_t fused_launches = dispatches_of([&] { a = fused(input); });
  const uint64_t unfused_launches = dispatches_of([&] { b = unfused(input); });
  // CUDA runs relu as a launch of its own after cuDNN (kernels_cuda/conv/conv.cu).
  if (GetParam() == "vulkan") {
    EXPECT_EQ(fused_launches + 1, unfused_launches);
  }
  const at::Tensor fused_values = to_torch(a), unfused_values = to_torch(b);
  EXPECT_EQ(at::isnan(fused_values).sum().item<int64_t>(), 9 * 5);
  EXPECT_TRUE(at::equal(at::isnan(fused_values), at::isnan(unfused_values)));
  EXPECT_TRUE(at::equal(at::nan_to_num(fused_values), at::nan_to_num(unfused_values)));
}

TEST_P(SequentialFusionTest, WrongInputGetsLinearsMessage) {
  nn::Sequential model(nn::Linear(4, 6), nn::ReLU());
  model->to(device);
  expect_error<Error>([&] { model(from_torch(random_torch({3, 5}, kFloat32, 1), device)); },
                      "mat1 and mat2 shapes cannot be multiplied (3x5 and 4x6)");
}

INSTANTIATE_TEST_SUITE_P(Backends, SequentialFusionTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
