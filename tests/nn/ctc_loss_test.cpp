// ctc_loss and CTCLoss against LibTorch's torch::nn::functional::ctc_loss: losses and gradients over
// padded and concatenated targets, repeated labels, short inputs, every reduction and zero_infinity,
// PyTorch's messages, and what PyTorch leaves unchecked.
#include <torch/torch.h>

#include <cmath>
#include <limits>

#include "ember.h"
#include "tests/oracle.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;

enum class Reduction { None, Mean, Sum };

struct Settings {
  int64_t blank = 0;
  Reduction reduction = Reduction::Mean;
  bool zero_infinity = false;

  F::CTCLossFuncOptions ours() const {
    F::CTCLossFuncOptions o;
    o.blank(blank).zero_infinity(zero_infinity);
    if (reduction == Reduction::None) o.reduction(ember::kNone);
    if (reduction == Reduction::Sum) o.reduction(ember::kSum);
    return o;
  }
  torch::nn::functional::CTCLossFuncOptions theirs() const {
    torch::nn::functional::CTCLossFuncOptions o;
    o.blank(blank).zero_infinity(zero_infinity);
    if (reduction == Reduction::None) o.reduction(torch::kNone);
    if (reduction == Reduction::Sum) o.reduction(torch::kSum);
    return o;
  }
};

at::Tensor lengths(std::vector<int64_t> values) { return at::tensor(values, at::kLong); }

// Labels in [0, classes) other than the blank, reproducible per seed.
at::Tensor random_labels(at::IntArrayRef sizes, int64_t classes, int64_t blank, uint64_t seed) {
  const at::Tensor draw = random_torch(sizes, kInt64, seed, 0, static_cast<double>(classes - 1));
  return draw + (draw >= blank).to(at::kLong);
}

class CtcLossTest : public BackendTest {
 protected:
  Tensor from(const at::Tensor& t) { return from_torch(t, device); }

  // The loss and the gradient of its sum by the logits, with log_probs = log_softmax(logits) and with
  // log_probs a leaf of its own (where PyTorch's gradient is not the derivative; ember's must be PyTorch's).
  void expect_same(const at::Tensor& logits, const at::Tensor& targets, const at::Tensor& il, const at::Tensor& tl,
                   const Settings& settings, double tolerance) {
    const int64_t class_dim = logits.dim() - 1;
    for (const bool through_log_softmax : {true, false}) {
      SCOPED_TRACE(through_log_softmax ? "log_probs = log_softmax(logits)" : "log_probs a leaf");
      at::Tensor x_theirs = (through_log_softmax ? logits : logits.log_softmax(class_dim)).clone().requires_grad_(true);
      Tensor x_ours = from(x_theirs.detach()).requires_grad_(true);
      const at::Tensor lp_theirs = through_log_softmax ? x_theirs.log_softmax(class_dim) : x_theirs;
      const Tensor lp_ours = through_log_softmax ? x_ours.log_softmax(class_dim) : x_ours;
      const at::Tensor expected = torch::nn::functional::ctc_loss(lp_theirs, targets, il, tl, settings.theirs());
      const Tensor loss = F::ctc_loss(lp_ours, from(targets), from(il), from(tl), settings.ours());
      EXPECT_TENSOR_EQ(loss, expected.detach(), tolerance, tolerance);
      ASSERT_TRUE(loss.grad_fn());
      EXPECT_EQ(loss.grad_fn()->name(), expected.grad_fn()->name());
      expected.sum().backward();
      loss.sum().backward();
      EXPECT_TENSOR_EQ(x_ours.grad(), x_theirs.grad(), tolerance, tolerance);
    }
  }
};

TEST_P(CtcLossTest, PaddedAndConcatenatedTargetsMatchLibTorch) {
  const int64_t frames = 12, batch = 4, classes = 6;
  const at::Tensor logits = random_torch({frames, batch, classes}, kFloat64, 1);
  at::Tensor padded = random_labels({batch, 5}, classes, 0, 2);
  // Repeated labels need a blank between them; the skip rule must refuse the shortcut.
  padded[0] = at::tensor({2, 2, 3, 3, 1}, at::kLong);
  padded[3][3] = -1;  // padding past a target's length is never read
  const std::vector<int64_t> target_count = {5, 3, 0, 2};
  const at::Tensor input_lengths = lengths({12, 10, 7, 12}), target_lengths = lengths(target_count);
  std::vector<at::Tensor> pieces;
  for (int64_t n = 0; n < batch; ++n) pieces.push_back(padded[n].narrow(0, 0, target_count[n]));
  const at::Tensor concatenated = at::cat(pieces);
  for (const Reduction reduction : {Reduction::None, Reduction::Mean, Reduction::Sum}) {
    SCOPED_TRACE(static_cast<int>(reduction));
    expect_same(logits, padded, input_lengths, target_lengths, {0, reduction, false}, 1e-10);
    expect_same(logits, concatenated, input_lengths, target_lengths, {0, reduction, false}, 1e-10);
  }
  // Another blank, float32, int32 targets and lengths.
  const int64_t blank = classes - 1;
  const at::Tensor labels = random_labels({batch, 4}, classes, blank, 3).to(at::kInt);
  expect_same(random_torch({frames, batch, classes}, kFloat32, 4), labels, lengths({12, 12, 9, 5}).to(at::kInt),
              lengths({4, 1, 4, 2}).to(at::kInt), {blank, Reduction::Mean, false}, 1e-5);
}

TEST_P(CtcLossTest, ImpossibleAlignmentsAndZeroInfinityMatchLibTorch) {
  // Sequence 1 has two frames for three labels; sequence 0's repeated label needs three frames for two.
  const at::Tensor logits = random_torch({6, 3, 4}, kFloat64, 5);
  const at::Tensor targets = at::tensor({2, 2, 0, 1, 2, 3, 3, 1, 0}, at::kLong).view({3, 3});
  for (const bool zero_infinity : {false, true}) {
    for (const Reduction reduction : {Reduction::None, Reduction::Sum}) {
      SCOPED_TRACE(zero_infinity);
      expect_same(logits, targets, lengths({2, 2, 6}), lengths({2, 3, 2}), {0, reduction, zero_infinity}, 1e-10);
    }
  }
}

TEST_P(CtcLossTest, UnbatchedLongAndModuleFormsMatchLibTorch) {
  // One sequence as (T, C) with 0-dim lengths.
  const at::Tensor logits = random_torch({9, 5}, kFloat64, 6);
  expect_same(logits, random_labels({4}, 5, 0, 7), at::tensor(9, at::kLong), at::tensor(4, at::kLong),
              {0, Reduction::None, false}, 1e-10);
  // Lengths from the host.
  const at::Tensor lp1 = logits.log_softmax(1).unsqueeze(1), targets1 = random_labels({4}, 5, 0, 7);
  EXPECT_TENSOR_EQ(F::ctc_loss(from(lp1), from(targets1), {9}, {4}),
                   torch::nn::functional::ctc_loss(lp1, targets1, lengths({9}), lengths({4})), 1e-10, 1e-10);
  // Long inputs: 300 frames, 40 labels.
  expect_same(random_torch({300, 2, 5}, kFloat64, 8), random_labels({2, 40}, 5, 0, 9), lengths({300, 251}),
              lengths({40, 33}), {0, Reduction::Mean, false}, 1e-9);
  // The module calls the functional with its options.
  const at::Tensor lp = random_torch({8, 2, 4}, kFloat32, 10).log_softmax(2), targets = random_labels({2, 3}, 4, 3, 11);
  const at::Tensor il = at::tensor({8, 6}, at::kLong), tl = at::tensor({3, 2}, at::kLong);
  nn::CTCLoss ours(nn::CTCLossOptions().blank(3).reduction(ember::kSum));
  torch::nn::CTCLoss theirs(torch::nn::CTCLossOptions().blank(3).reduction(torch::kSum));
  EXPECT_TENSOR_EQ(ours(from(lp), from(targets), from(il), from(tl)), theirs(lp, targets, il, tl), 1e-5, 1e-5);
}

TEST_P(CtcLossTest, SequencesWithoutFramesAreEmptyAlignments) {
  // Without frames, an empty target has probability one (loss 0) and any other probability zero (inf);
  // the other sequences of the batch are as they are alone.
  const at::Tensor lp = random_torch({5, 3, 4}, kFloat64, 12).log_softmax(2);
  const at::Tensor targets = random_labels({3, 2}, 4, 0, 13);
  const Tensor losses = F::ctc_loss(from(lp), from(targets), {5, 0, 0}, {2, 0, 1},
                                    F::CTCLossFuncOptions().reduction(ember::kNone));
  const std::vector<double> values = losses.to_vector<double>();
  const at::Tensor alone = torch::nn::functional::ctc_loss(
      lp.narrow(1, 0, 1), targets.narrow(0, 0, 1), at::tensor({5}, at::kLong), at::tensor({2}, at::kLong),
      torch::nn::functional::CTCLossFuncOptions().reduction(torch::kNone));
  EXPECT_NEAR(values[0], alone.item<double>(), 1e-10);
  EXPECT_EQ(values[1], 0.0);
  EXPECT_EQ(values[2], std::numeric_limits<double>::infinity());
  // No frames at all, and no sequences at all (whose mean is NaN, as PyTorch's).
  EXPECT_EQ(F::ctc_loss(from(lp.narrow(0, 0, 0)), from(targets), {0, 0, 0}, {0, 1, 0},
                        F::CTCLossFuncOptions().reduction(ember::kNone)).to_vector<double>(),
            (std::vector<double>{0.0, std::numeric_limits<double>::infinity(), 0.0}));
  EXPECT_TRUE(std::isnan(F::ctc_loss(from(lp.narrow(1, 0, 0)), from(targets.narrow(0, 0, 0)),
                                     std::vector<int64_t>{}, std::vector<int64_t>{}).item<double>()));
}

TEST_P(CtcLossTest, BadInputGetsPyTorchsMessage) {
  const at::Tensor lp = random_torch({6, 2, 4}, kFloat32, 14).log_softmax(2), targets = random_labels({2, 3}, 4, 0, 15);
  const at::Tensor il = at::tensor({6, 5}, at::kLong), tl = at::tensor({3, 2}, at::kLong);
  struct Case {
    const char* what;
    at::Tensor lp, targets, il, tl;
    int64_t blank = 0;
  };
  const std::vector<Case> cases = {
      {"blank past the classes", lp, targets, il, tl, 4},
      {"negative blank", lp, targets, il, tl, -1},
      {"input_lengths too many", lp, targets, at::tensor({6, 5, 4}, at::kLong), tl},
      {"target_lengths too few", lp, targets, il, at::tensor({3}, at::kLong)},
      {"an input longer than log_probs", lp, targets, at::tensor({7, 5}, at::kLong), tl},
      {"padded targets too short", lp, targets, il, at::tensor({4, 2}, at::kLong)},
      {"concatenated targets of another length", lp, at::tensor({1, 2, 3, 1}, at::kLong), il, tl},
      {"padded targets for another batch", lp, targets.narrow(0, 0, 1), il, tl},
      {"4-dim log_probs", lp.unsqueeze(0), targets, il, tl},
      {"1-dim log_probs", lp[0][0], targets, il, tl},
      {"3-dim targets", lp, targets.unsqueeze(0), il, tl},
      {"floating input_lengths", lp, targets, il.to(at::kFloat), tl},
      {"floating target_lengths", lp, targets, il, tl.to(at::kDouble)},
      {"float16 log_probs", lp.to(at::kHalf), targets, il, tl},
      {"int64 log_probs", lp.to(at::kLong), targets, il, tl},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    expect_error<Error>(
        [&] {
          F::ctc_loss(from(c.lp), from(c.targets), from(c.il), from(c.tl), F::CTCLossFuncOptions().blank(c.blank));
        },
        torch_error([&] {
          torch::nn::functional::ctc_loss(c.lp, c.targets, c.il, c.tl,
                                          torch::nn::functional::CTCLossFuncOptions().blank(c.blank));
        }));
  }
  // What PyTorch reads without checking (a wrong result or memory it does not own) is an error here.
  expect_error<Error>([&] { F::ctc_loss(from(lp), from(targets), {6, 5}, {-1, 2}); },
                      "ctc_loss: target_lengths must be non-negative, but got -1");
  expect_error<Error>([&] { F::ctc_loss(from(lp), from(targets), {-2, 5}, {3, 2}); },
                      "ctc_loss: input_lengths must be non-negative, but got -2");
  at::Tensor bad = targets.clone();
  bad[1][1] = 4;
  expect_error<IndexError>([&] { F::ctc_loss(from(lp), from(bad), {6, 5}, {3, 2}); },
                           "ctc_loss: target 4 at position 1 of sequence 1 is not a class index (log_probs has 4 "
                           "classes)");
  bad[1][1] = -1;
  expect_error<IndexError>([&] { F::ctc_loss(from(lp), from(bad), {6, 5}, {3, 2}); },
                           "ctc_loss: target -1 at position 1 of sequence 1 is not a class index (log_probs has 4 "
                           "classes)");
}

TEST_P(CtcLossTest, GradientHasNoDerivativeAsInPyTorch) {
  const at::Tensor logits = random_torch({5, 2, 3}, kFloat64, 16), targets = random_labels({2, 2}, 3, 0, 17);
  const at::Tensor il = at::tensor({5, 4}, at::kLong), tl = at::tensor({2, 1}, at::kLong);
  Tensor x = from(logits).requires_grad_(true);
  const Tensor loss = F::ctc_loss(x.log_softmax(2), from(targets), from(il), from(tl));
  const Tensor grad = autograd::grad({loss}, {x}, {}, std::nullopt, true)[0];
  at::Tensor xt = logits.clone().requires_grad_(true);
  const at::Tensor loss_t = torch::nn::functional::ctc_loss(xt.log_softmax(2), targets, il, tl);
  const at::Tensor grad_t = torch::autograd::grad({loss_t}, {xt}, {}, c10::nullopt, true)[0];
  EXPECT_TENSOR_EQ(grad, grad_t.detach(), 1e-10, 1e-10);
  expect_error<Error>([&] { grad.sum().backward(); }, torch_error([&] { grad_t.sum().backward(); }));
}

INSTANTIATE_TEST_SUITE_P(Backends, CtcLossTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
