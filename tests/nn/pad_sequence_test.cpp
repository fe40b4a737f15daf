// nn::utils::rnn against LibTorch's torch::nn::utils::rnn::pad_sequence: values, both layouts, the
// gradient into every sequence, PyTorch's conversion and broadcasting of later sequences, its messages;
// unpad_sequence as Python's (LibTorch 1.13 has none), which must give back what was padded.
#include <torch/torch.h>

#include "ember.h"
#include "tests/oracle.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

class PadSequenceTest : public BackendTest {
 protected:
  // Sequences of the given lengths with trailing shape `trailing`, on both sides, requiring gradients.
  void make(const std::vector<int64_t>& lengths, const std::vector<int64_t>& trailing, std::vector<Tensor>& ours,
            std::vector<at::Tensor>& theirs) {
    for (size_t i = 0; i < lengths.size(); ++i) {
      std::vector<int64_t> sizes = {lengths[i]};
      sizes.insert(sizes.end(), trailing.begin(), trailing.end());
      const at::Tensor value = random_torch(sizes, kFloat32, 70 + i);
      theirs.push_back(value.clone().requires_grad_(true));
      ours.push_back(from_torch(value, device).requires_grad_(true));
    }
  }
};

TEST_P(PadSequenceTest, ValuesAndGradientsMatchLibTorch) {
  for (const std::vector<int64_t>& trailing : {std::vector<int64_t>{}, std::vector<int64_t>{2, 3}}) {
    for (bool batch_first : {false, true}) {
      for (double padding_value : {0.0, -1.5}) {
        SCOPED_TRACE(testing::Message() << "trailing dims " << trailing.size() << " batch_first " << batch_first
                                        << " padding " << padding_value);
        std::vector<Tensor> ours;
        std::vector<at::Tensor> theirs;
        make({5, 2, 0, 3}, trailing, ours, theirs);
        const Tensor padded = nn::utils::rnn::pad_sequence(ours, batch_first, padding_value);
        const at::Tensor expected = torch::nn::utils::rnn::pad_sequence(theirs, batch_first, padding_value);
        EXPECT_TENSOR_EQ(padded, expected.detach());
        EXPECT_TRUE(padded.requires_grad());
        // Weights that differ per position, so that a gradient routed to the wrong slot shows.
        const at::Tensor weights = random_torch(expected.sizes(), kFloat32, 90);
        (padded * from_torch(weights, device)).sum().backward();
        (expected * weights).sum().backward();
        for (size_t i = 0; i < ours.size(); ++i) EXPECT_TENSOR_EQ(ours[i].grad(), theirs[i].grad());
      }
    }
  }
}

// As PyTorch: the first sequence sets the dtype (the padding value converted to it); later sequences are
// converted, and broadcast to the first one's trailing shape.
TEST_P(PadSequenceTest, LaterSequencesAreConvertedAndBroadcastAsPyTorch) {
  const at::Tensor whole = torch::arange(3, torch::kInt64), fractional = random_torch({4}, kFloat32, 5, -10, 10);
  EXPECT_TENSOR_EQ(nn::utils::rnn::pad_sequence({from_torch(whole, device), from_torch(fractional, device)}, true, 7.5),
                   torch::nn::utils::rnn::pad_sequence({whole, fractional}, true, 7.5));
  const at::Tensor rows = random_torch({2, 3}, kFloat32, 6), column = random_torch({3, 1}, kFloat32, 7),
                   row = random_torch({3}, kFloat32, 8);
  EXPECT_TENSOR_EQ(nn::utils::rnn::pad_sequence(
                       {from_torch(rows, device), from_torch(column, device), from_torch(row, device)}),
                   torch::nn::utils::rnn::pad_sequence({rows, column, row}));
}

TEST_P(PadSequenceTest, BadInputGetsLibTorchsMessages) {
  expect_error<Error>([&] { nn::utils::rnn::pad_sequence({}); },
                      torch_error([] { torch::nn::utils::rnn::pad_sequence(std::vector<at::Tensor>{}); }));
  const at::Tensor scalar = torch::tensor(1.0f), wide = torch::ones({2, 4}), narrow = torch::ones({2, 3});
  expect_error<Error>([&] { nn::utils::rnn::pad_sequence({from_torch(scalar, device)}); },
                      torch_error([&] { torch::nn::utils::rnn::pad_sequence({scalar}); }));
  expect_error<Error>(
      [&] { nn::utils::rnn::pad_sequence({from_torch(narrow, device), from_torch(wide, device)}); },
      torch_error([&] { torch::nn::utils::rnn::pad_sequence({narrow, wide}); }));
}

TEST_P(PadSequenceTest, UnpadSequenceGivesBackWhatWasPadded) {
  for (bool batch_first : {false, true}) {
    SCOPED_TRACE(batch_first);
    std::vector<Tensor> ours;
    std::vector<at::Tensor> theirs;
    make({3, 1, 0, 4}, {2}, ours, theirs);
    const Tensor padded = nn::utils::rnn::pad_sequence(ours, batch_first, -9);
    const std::vector<int64_t> lengths = {3, 1, 0, 4};
    const std::vector<Tensor> listed = nn::utils::rnn::unpad_sequence(padded, lengths, batch_first);
    const std::vector<Tensor> from_tensor =
        nn::utils::rnn::unpad_sequence(padded, from_torch(torch::tensor(lengths), device), batch_first);
    ASSERT_EQ(listed.size(), 4u);
    ASSERT_EQ(from_tensor.size(), 4u);
    for (size_t i = 0; i < listed.size(); ++i) {
      EXPECT_TENSOR_EQ(listed[i], theirs[i].detach());
      EXPECT_TENSOR_EQ(from_tensor[i], theirs[i].detach());
    }
    // The gradient of the unpadded sequences reaches the originals.
    (listed[0].sum() + listed[3].sum() * 2).backward();
    EXPECT_TENSOR_EQ(ours[0].grad(), torch::ones({3, 2}));
    EXPECT_TENSOR_EQ(ours[3].grad(), torch::full({4, 2}, 2.0f));
    // Copies, as Python's masked selection makes: writing to one leaves the padded batch alone.
    listed[0].detach().fill_(100);
    EXPECT_TENSOR_EQ(padded, torch::nn::utils::rnn::pad_sequence(theirs, batch_first, -9).detach());
  }
  const Tensor padded = from_torch(torch::zeros({5, 2}), device);
  expect_error<Error>([&] { nn::utils::rnn::unpad_sequence(padded, std::vector<int64_t>{1}); },
                      "unpad_sequence: 1 lengths for a batch of 2 sequences");
  expect_error<Error>([&] { nn::utils::rnn::unpad_sequence(padded, std::vector<int64_t>{1, 6}); },
                      "unpad_sequence: length 6 of sequence 1 is outside [0, 5]");
  expect_error<Error>([&] { nn::utils::rnn::unpad_sequence(padded, from_torch(torch::ones({2}), device)); },
                      "unpad_sequence: expected the lengths as a 1-D integer tensor, but got a 1-D float32 tensor");
  expect_error<Error>([&] { nn::utils::rnn::unpad_sequence(from_torch(torch::zeros({5}), device), std::vector<int64_t>{}); },
                      "unpad_sequence: expected padded sequences of at least 2 dimensions, but got 1");
}

INSTANTIATE_TEST_SUITE_P(Backends, PadSequenceTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
