// PackedSequence, pack_padded_sequence, pad_packed_sequence and pack_sequence against LibTorch's
// torch::nn::utils::rnn: the packed data, batch sizes and orders, the padded result and lengths, the
// gradient back to the input, conversion with to(), and PyTorch's messages; unpack_sequence, which
// LibTorch lacks, against what it packed. The recurrent layers' packed forward is in rnn_test.cpp.
#include <torch/torch.h>

#include <optional>

#include "ember.h"
#include "tests/oracle.h"
#include "tests/same_error.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

namespace ours = ember::nn::utils::rnn;
namespace theirs = torch::nn::utils::rnn;

class PackedSequenceTest : public BackendTest {
 protected:
  static void expect_same_indices(const Tensor& ember_indices, const at::Tensor& torch_indices) {
    ASSERT_EQ(ember_indices.defined(), torch_indices.defined());
    if (torch_indices.defined()) {
      EXPECT_TRUE(at::equal(to_torch(ember_indices), torch_indices));
    }
  }
  static void expect_same_packing(const ours::PackedSequence& ember, const theirs::PackedSequence& torch) {
    EXPECT_TENSOR_EQ(ember.data(), torch.data().detach());
    EXPECT_EQ(ember.batch_sizes(), std::vector<int64_t>(torch.batch_sizes().data_ptr<int64_t>(),
                                                        torch.batch_sizes().data_ptr<int64_t>() +
                                                            torch.batch_sizes().numel()));
    expect_same_indices(ember.sorted_indices(), torch.sorted_indices());
    expect_same_indices(ember.unsorted_indices(), torch.unsorted_indices());
  }
};

TEST_P(PackedSequenceTest, PackAndPadMatchLibTorch) {
  struct Case {
    std::vector<int64_t> sizes;
    std::vector<int64_t> lengths;
    bool batch_first;
    bool enforce_sorted;
    std::optional<int64_t> total_length;
  };
  const std::vector<Case> cases = {
      {{5, 3, 2}, {5, 3, 1}, false, true, std::nullopt},
      {{5, 3, 2}, {2, 5, 3}, false, false, std::nullopt},
      {{6, 3, 2, 2}, {1, 3, 3, 2, 1, 3}, true, false, 4},  // ties keep their order
      {{4, 2}, {4, 1}, false, true, 6},                   // no feature dims: 1-D data
      {{2, 3, 2}, {2, 2}, true, true, std::nullopt},
      {{6, 2, 3}, {3, 2}, false, true, std::nullopt},     // the input is longer than any sequence
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << "sizes " << at::IntArrayRef(c.sizes) << " lengths " << at::IntArrayRef(c.lengths)
                                    << " batch_first " << c.batch_first << " enforce_sorted " << c.enforce_sorted);
    const at::Tensor value = random_torch(c.sizes, kFloat32, 3);
    const at::Tensor torch_input = value.clone().requires_grad_(true);
    const Tensor input = from_torch(value, device).requires_grad_(true);
    const ours::PackedSequence packed = ours::pack_padded_sequence(input, c.lengths, c.batch_first, c.enforce_sorted);
    const theirs::PackedSequence expected =
        theirs::pack_padded_sequence(torch_input, torch::tensor(c.lengths), c.batch_first, c.enforce_sorted);
    expect_same_packing(packed, expected);

    const auto [padded, lengths] = ours::pad_packed_sequence(packed, c.batch_first, 0.5, c.total_length);
    const auto [torch_padded, torch_lengths] =
        theirs::pad_packed_sequence(expected, c.batch_first, 0.5,
                                    c.total_length ? c10::optional<int64_t>(*c.total_length) : c10::nullopt);
    EXPECT_TENSOR_EQ(padded, torch_padded.detach());
    EXPECT_TRUE(at::equal(to_torch(lengths), torch_lengths));

    // The gradient of a weighting of both the packed data and the padded result.
    const at::Tensor data_weights = random_torch(expected.data().sizes(), kFloat32, 4);
    const at::Tensor padded_weights = random_torch(torch_padded.sizes(), kFloat32, 5);
    ((expected.data() * data_weights).sum() + (torch_padded * padded_weights).sum()).backward();
    ((packed.data() * from_torch(data_weights, device)).sum() + (padded * from_torch(padded_weights, device)).sum())
        .backward();
    EXPECT_TENSOR_EQ(input.grad(), torch_input.grad());
  }
}

TEST_P(PackedSequenceTest, PackSequenceMatchesLibTorch) {
  for (bool enforce_sorted : {true, false}) {
    const std::vector<int64_t> lengths = enforce_sorted ? std::vector<int64_t>{4, 3, 1} : std::vector<int64_t>{3, 1, 4};
    std::vector<Tensor> sequences;
    std::vector<at::Tensor> torch_sequences;
    for (size_t i = 0; i < lengths.size(); ++i) {
      const at::Tensor value = random_torch({lengths[i], 2}, kFloat32, 10 + i);
      torch_sequences.push_back(value);
      sequences.push_back(from_torch(value, device));
    }
    expect_same_packing(ours::pack_sequence(sequences, enforce_sorted),
                        theirs::pack_sequence(torch_sequences, enforce_sorted));
  }
}

// Python's unpack_sequence (LibTorch 1.13 has none) is pack_sequence's inverse: each sequence back in
// the caller's order, and a gradient that reaches each one unchanged.
TEST_P(PackedSequenceTest, UnpackSequenceGivesBackThePackedSequences) {
  const std::vector<std::vector<int64_t>> feature_shapes = {{}, {2, 3}};
  for (bool enforce_sorted : {true, false}) {
    for (const std::vector<int64_t>& features : feature_shapes) {
      SCOPED_TRACE(testing::Message() << "enforce_sorted " << enforce_sorted << " features "
                                      << at::IntArrayRef(features));
      const std::vector<int64_t> lengths = enforce_sorted ? std::vector<int64_t>{5, 3, 3, 1}
                                                          : std::vector<int64_t>{2, 5, 1, 5};
      std::vector<Tensor> sequences;
      std::vector<at::Tensor> values;
      for (size_t i = 0; i < lengths.size(); ++i) {
        std::vector<int64_t> sizes = {lengths[i]};
        sizes.insert(sizes.end(), features.begin(), features.end());
        values.push_back(random_torch(sizes, kFloat32, 30 + i));
        sequences.push_back(from_torch(values.back(), device).requires_grad_(true));
      }
      const std::vector<Tensor> unpacked = ours::unpack_sequence(ours::pack_sequence(sequences, enforce_sorted));
      ASSERT_EQ(unpacked.size(), sequences.size());
      Tensor loss = from_torch(at::zeros({}), device);
      std::vector<at::Tensor> weights;
      for (size_t i = 0; i < unpacked.size(); ++i) {
        EXPECT_TENSOR_EQ(unpacked[i], values[i], 0, 0);
        weights.push_back(random_torch(values[i].sizes(), kFloat32, 40 + i));
        loss = loss + (unpacked[i] * from_torch(weights.back(), device)).sum();
      }
      loss.backward();
      for (size_t i = 0; i < sequences.size(); ++i) EXPECT_TENSOR_EQ(sequences[i].grad(), weights[i], 0, 0);
    }
  }
}

TEST_P(PackedSequenceTest, ConversionAndPermutations) {
  const Tensor input = from_torch(random_torch({4, 3, 2}, kFloat32, 20), device);
  const ours::PackedSequence packed = ours::pack_padded_sequence(input, {2, 4, 3}, false, false);
  const ours::PackedSequence wide = packed.to(TensorOptions().dtype(kFloat64));
  EXPECT_EQ(wide.data().dtype(), kFloat64);
  EXPECT_EQ(wide.batch_sizes(), packed.batch_sizes());
  EXPECT_TRUE(at::equal(to_torch(wide.sorted_indices()), to_torch(packed.sorted_indices())));
  EXPECT_TRUE(packed.to(TensorOptions().dtype(kFloat32)).data().is_same(packed.data())) << "no conversion, no copy";

  const at::Tensor permutation = at::tensor({2, 0, 3, 1}, at::kLong);
  EXPECT_TRUE(at::equal(to_torch(ours::invert_permutation(from_torch(permutation, device))),
                        theirs::invert_permutation(permutation)));
  EXPECT_FALSE(ours::invert_permutation(Tensor()).defined());
}

TEST_P(PackedSequenceTest, BadInputsFailAsInLibTorch) {
  const at::Tensor value = random_torch({3, 2, 4}, kFloat32, 30);
  const Tensor input = from_torch(value, device);
  const auto same = [&](const std::string& what, std::vector<int64_t> lengths, bool enforce_sorted) {
    expect_same_error([&] { ours::pack_padded_sequence(input, lengths, false, enforce_sorted); },
                      [&] { theirs::pack_padded_sequence(value, torch::tensor(lengths), false, enforce_sorted); }, what);
  };
  same("more lengths than sequences", {3, 2, 1}, true);
  same("a length of 0", {3, 0}, true);
  same("a length of 0, unsorted", {0, 3}, false);
  same("a negative length", {-1, 3}, false);
  same("increasing lengths", {2, 3}, true);
  expect_same_error([&] { ours::pack_padded_sequence(from_torch(value.narrow(0, 0, 0), device), {0, 0}); },
                    [&] { theirs::pack_padded_sequence(value.narrow(0, 0, 0), torch::tensor({0, 0})); },
                    "an empty input");
  expect_same_error(
      [&] { ours::pad_packed_sequence(ours::pack_padded_sequence(input, {3, 2}), false, 0, 2); },
      [&] { theirs::pad_packed_sequence(theirs::pack_padded_sequence(value, torch::tensor({3, 2})), false, 0, 2); },
      "total_length below the longest sequence");
  // LibTorch reads past the input for a length longer than it; ember refuses.
  expect_error_containing([&] { ours::pack_padded_sequence(input, {4, 2}); },
                          "a sequence of length 4 is longer than the input's 3 steps");
  expect_error_containing([&] { ours::pack_padded_sequence(input, from_torch(at::ones({1, 2}, at::kLong), device)); },
                          "'lengths' argument should be a 1D tensor, but got a 2D Long tensor");
}

INSTANTIATE_TEST_SUITE_P(Backends, PackedSequenceTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
