// Embedding modules against LibTorch's: padding rows, from_pretrained, max_norm's in-place renorm, and
// Python's reprs.
#include <torch/torch.h>

#include "ember.h"
#include "tests/oracle.h"
#include "tests/python_oracle.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

class EmbeddingTest : public BackendTest {
 protected:
  Tensor from(const at::Tensor& t) { return from_torch(t, device); }
};

TEST_P(EmbeddingTest, PaddingRowStartsZeroAndGetsNoGradient) {
  nn::Embedding table(nn::EmbeddingOptions(6, 4).padding_idx(-1));
  EXPECT_EQ(*table->options.padding_idx(), 5);
  EXPECT_EQ(table->weight.select(0, 5).abs().sum().item<float>(), 0.0f);
  table->to(device);
  const at::Tensor indices = at::tensor({5, 1, 5, 2}, at::kLong);
  table(from(indices)).sum().backward();
  torch::nn::Embedding theirs(torch::nn::EmbeddingOptions(6, 4).padding_idx(-1));
  theirs(indices).sum().backward();
  EXPECT_TENSOR_EQ(table->weight.grad(), theirs->weight.grad());
}

// The forward checks the indices (one read-back); the backward adds rows at the same indices without
// reading them again, so a training step's backward never waits for the device.
TEST_P(EmbeddingTest, BackwardDoesNotWaitForTheDevice) {
  nn::Embedding table(10, 4);
  table->to(device);
  const Tensor out = table(from(at::tensor({3, 1, 3, 9}, at::kLong)));
  const StreamStats before = device->default_stream()->stats();
  out.sum().backward();
  EXPECT_EQ(device->default_stream()->stats().host_waits, before.host_waits);
  EXPECT_TENSOR_EQ(table->weight.grad().sum(1), at::tensor({0, 4, 0, 8, 0, 0, 0, 0, 0, 4}, at::kFloat));
}

TEST_P(EmbeddingTest, FromPretrainedFreezesByDefault) {
  const at::Tensor values = random_torch({4, 3}, kFloat32, 5);
  nn::Embedding frozen = nn::Embedding::from_pretrained(from(values));
  EXPECT_FALSE(frozen->weight.requires_grad());
  nn::Embedding trained = nn::Embedding::from_pretrained(from(values), nn::EmbeddingFromPretrainedOptions().freeze(false));
  EXPECT_TRUE(trained->weight.requires_grad());
  const at::Tensor indices = at::tensor({0, 3, 2, 2}, at::kLong).reshape({2, 2});
  EXPECT_TENSOR_EQ(frozen(from(indices)), torch::nn::Embedding::from_pretrained(values)(indices).detach());
  nn::EmbeddingBag bags = nn::EmbeddingBag::from_pretrained(from(values), nn::EmbeddingBagFromPretrainedOptions().mode(ember::kSum));
  EXPECT_TENSOR_EQ(bags(from(indices)),
                   torch::nn::EmbeddingBag::from_pretrained(values, torch::nn::EmbeddingBagFromPretrainedOptions().mode(torch::kSum))(indices).detach());
}

TEST_P(EmbeddingTest, MaxNormRenormalisesLookedUpRowsInPlace) {
  const at::Tensor values = random_torch({5, 3}, kFloat32, 7, -3, 3);
  const at::Tensor indices = at::tensor({0, 2, 2}, at::kLong);
  nn::Embedding ours = nn::Embedding::from_pretrained(from(values), nn::EmbeddingFromPretrainedOptions().max_norm(1.0));
  torch::nn::Embedding theirs =
      torch::nn::Embedding::from_pretrained(values.clone(), torch::nn::EmbeddingFromPretrainedOptions().max_norm(1.0));
  EXPECT_TENSOR_EQ(ours(from(indices)), theirs(indices).detach());
  EXPECT_TENSOR_EQ(ours->weight, theirs->weight.detach());
}

TEST_P(EmbeddingTest, BadInputGetsPyTorchsMessage) {
  const at::Tensor weight = at::rand({4, 3});
  expect_error<Error>([&] { nn::functional::embedding(from(at::rand({2})), from(weight)); },
                      "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
                      "but got float32 instead (while checking arguments for embedding)");
  expect_error<Error>([&] { nn::Embedding(nn::EmbeddingOptions(4, 3).padding_idx(4)); },
                      torch_error([] { torch::nn::Embedding(torch::nn::EmbeddingOptions(4, 3).padding_idx(4)); }));
  // embedding_bag's first offset must be 0 and its last within the input, as PyTorch's CPU kernel checks.
  // The oracle is ATen's op, whose text Python shows, to its first line (ATen prints offsets[0] as a
  // 0-dim tensor after it); LibTorch's C++ functional checks the last offset itself first, with a text
  // that prints the numbers in braces.
  const at::Tensor indices = at::tensor({int64_t{1}, int64_t{2}, int64_t{3}});
  for (const at::Tensor& offsets : {at::tensor({int64_t{1}, int64_t{0}}), at::tensor({int64_t{0}, int64_t{4}}),
                                    at::tensor({int64_t{2}, int64_t{5}}).to(at::kInt)}) {
    std::string expected = torch_error([&] { at::embedding_bag(weight, indices, offsets); });
    expected = expected.substr(0, expected.find('\n'));
    ASSERT_FALSE(expected.empty());
    expect_error<Error>(
        [&] {
          nn::functional::embedding_bag(from(indices), from(weight),
                                        nn::functional::EmbeddingBagFuncOptions().offsets(from(offsets)));
        },
        expected);
  }
  // An offset equal to the input's length is an empty last bag.
  EXPECT_NO_THROW(nn::functional::embedding_bag(
      from(indices), from(weight), nn::functional::EmbeddingBagFuncOptions().offsets(from(at::tensor({int64_t{0}, int64_t{3}})))));
}

INSTANTIATE_TEST_SUITE_P(Backends, EmbeddingTest, testing::Values("vulkan", "cuda"), backend_test_name);

TEST(EmbeddingPythonTest, ReprsMatchPyTorch) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"torch.nn.Embedding(10, 3)", nn::Embedding(10, 3)->repr()},
      {"torch.nn.Embedding(10, 3, padding_idx=-1, max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True)",
       nn::Embedding(nn::EmbeddingOptions(10, 3).padding_idx(-1).max_norm(2).norm_type(1).scale_grad_by_freq(true))->repr()},
      {"torch.nn.EmbeddingBag(10, 3)", nn::EmbeddingBag(10, 3)->repr()},
      {"torch.nn.EmbeddingBag(10, 3, mode='max', padding_idx=0)",
       nn::EmbeddingBag(nn::EmbeddingBagOptions(10, 3).mode(ember::kMax).padding_idx(0))->repr()},
  };
  if (const std::string why = expect_python_prints(cases); !why.empty()) GTEST_SKIP() << why;
  expect_no_validation_messages();
}

}  // namespace
}  // namespace ember::test
