// nn::utils against LibTorch's torch::nn::utils: clipping (without a host wait) and parameter vectors.
#include <torch/torch.h>

#include <limits>

#include "ember.h"
#include "tests/oracle.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

class NnUtilsTest : public BackendTest {
 protected:
  // Parameters with gradients, on both sides.
  void make(std::vector<Tensor>& ours, std::vector<at::Tensor>& theirs) {
    const std::vector<std::vector<int64_t>> shapes = {{3, 4}, {4}, {2, 2, 3}};
    for (size_t i = 0; i < shapes.size(); ++i) {
      const at::Tensor value = random_torch(shapes[i], kFloat32, 40 + i);
      const at::Tensor grad = random_torch(shapes[i], kFloat32, 50 + i, -3, 3);
      theirs.push_back(value.clone().requires_grad_(true));
      theirs.back().mutable_grad() = grad.clone();
      ours.push_back(from_torch(value, device).requires_grad_(true));
      ours.back().mutable_grad() = from_torch(grad, device);
    }
  }
};

TEST_P(NnUtilsTest, ClipGradNormMatchesLibTorchWithoutHostWait) {
  for (double norm_type : {2.0, 1.0, 3.5, std::numeric_limits<double>::infinity()}) {
    for (double max_norm : {0.5, 1e6}) {
      SCOPED_TRACE("norm_type " + std::to_string(norm_type) + " max_norm " + std::to_string(max_norm));
      std::vector<Tensor> ours;
      std::vector<at::Tensor> theirs;
      make(ours, theirs);
      const uint64_t waits = stream->stats().host_waits;
      const Tensor total = nn::utils::clip_grad_norm_(ours, max_norm, norm_type);
      EXPECT_EQ(stream->stats().host_waits, waits);
      EXPECT_EQ(total.dim(), 0);
      const double expected = torch::nn::utils::clip_grad_norm_(theirs, max_norm, norm_type);
      EXPECT_NEAR(total.item<double>(), expected, 1e-5 * expected);
      for (size_t i = 0; i < ours.size(); ++i) EXPECT_TENSOR_EQ(ours[i].grad(), theirs[i].grad());
    }
  }
}

TEST_P(NnUtilsTest, ClipGradValueMatchesLibTorch) {
  std::vector<Tensor> ours;
  std::vector<at::Tensor> theirs;
  make(ours, theirs);
  nn::utils::clip_grad_value_(ours, 0.7);
  torch::nn::utils::clip_grad_value_(theirs, 0.7);
  for (size_t i = 0; i < ours.size(); ++i) EXPECT_TENSOR_EQ(ours[i].grad(), theirs[i].grad());
}

TEST_P(NnUtilsTest, ParametersToVectorAndBack) {
  std::vector<Tensor> ours;
  std::vector<at::Tensor> theirs;
  make(ours, theirs);
  const Tensor flat = nn::utils::parameters_to_vector(ours);
  const at::Tensor expected = torch::nn::utils::parameters_to_vector(theirs);
  EXPECT_TENSOR_EQ(flat, expected.detach());
  const at::Tensor replacement = random_torch({flat.numel()}, kFloat32, 99);
  Tensor held = ours[1];  // a handle kept elsewhere sees the new values, as with Python's param.data
  nn::utils::vector_to_parameters(from_torch(replacement, device), ours);
  torch::NoGradGuard no_grad;
  torch::nn::utils::vector_to_parameters(replacement, theirs);
  for (size_t i = 0; i < ours.size(); ++i) EXPECT_TENSOR_EQ(ours[i], theirs[i].detach());
  EXPECT_TENSOR_EQ(held, theirs[1].detach());
  EXPECT_TRUE(held.requires_grad());
  expect_error<Error>([&] { nn::utils::vector_to_parameters(from_torch(replacement, device).narrow(0, 0, 3), ours); },
                      "vector_to_parameters: the vector has 3 elements, the parameters " + std::to_string(flat.numel()));
}

INSTANTIATE_TEST_SUITE_P(Backends, NnUtilsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
