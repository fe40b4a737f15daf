// Rows of the losses in nn/functional/loss.h, against LibTorch's torch::nn::functional.
#include "tests/ops/nn_row.h"

namespace ember::test {
namespace {

// Random ±1 labels of `shape`.
at::Tensor signs(at::IntArrayRef shape, DType dtype, at::Generator& gen) {
  return at::randint(0, 2, shape, gen, at::TensorOptions().dtype(torch_dtype(dtype))) * 2 - 1;
}

// Inputs of the given ranges, then ±1 labels of the last shape.
InputMaker with_signs(std::vector<ValueRange> ranges = {}) {
  return [ranges](DType dtype, const Shapes& shapes, at::Generator& gen) {
    std::vector<at::Tensor> inputs;
    for (size_t i = 0; i + 1 < shapes.size(); ++i) {
      inputs.push_back(random_torch(shapes[i], dtype, gen, ranges.empty() ? std::nullopt
                                                                          : std::optional(ranges[std::min(i, ranges.size() - 1)])));
    }
    inputs.push_back(signs(shapes.back(), dtype, gen));
    return inputs;
  };
}

// Scores (N, C), then class indices (N), then optionally a weight per class.
InputMaker scores_and_classes(bool weight) {
  return [weight](DType dtype, const Shapes& shapes, at::Generator& gen) {
    const int64_t classes = shapes[0].back();
    std::vector<at::Tensor> inputs{random_torch(shapes[0], dtype, gen),
                                   at::randint(0, classes, shapes[1], gen, at::TensorOptions().dtype(at::kLong))};
    if (weight) inputs.push_back(random_torch({classes}, dtype, gen, ValueRange{0.5, 2}));
    return inputs;
  };
}

// Scores (N, C), then per row a list of target classes ended by -1 (and anything after it).
at::Tensor label_lists(at::IntArrayRef shape, at::Generator& gen) {
  at::Tensor labels = at::randint(0, shape.back(), shape, gen, at::TensorOptions().dtype(at::kLong));
  const at::Tensor stop = at::randint(0, 2, shape, gen, at::TensorOptions().dtype(at::kLong)).eq(1);
  return labels.masked_fill(stop, -1);
}

// CTC operands for a case {(T, N, C), (N, S), (N), (N)}: log-probabilities as any values (PyTorch's
// gradient is then CtcLossBackward0's formula on both sides), padded targets of classes 1 to C - 1, and
// at least 2S + 1 frames per sequence, so that every target can be aligned.
InputMaker ctc_inputs() {
  return [](DType dtype, const Shapes& shapes, at::Generator& gen) {
    const int64_t frames = shapes[0][0], classes = shapes[0][2], longest = shapes[1][1];
    const at::TensorOptions longs = at::TensorOptions().dtype(at::kLong);
    return std::vector<at::Tensor>{random_torch(shapes[0], dtype, gen, ValueRange{-3, 0}),
                                   at::randint(1, classes, shapes[1], gen, longs),
                                   at::randint(2 * longest + 1, frames + 1, shapes[2], gen, longs),
                                   at::randint(0, longest + 1, shapes[3], gen, longs)};
  };
}

const std::vector<Shapes> kSameShapes = {{{}, {}}, {{7}, {7}}, {{3, 5}, {3, 5}}, {{2, 0}, {2, 0}}, {{4, 3, 5}, {4, 3, 5}}};

}  // namespace

EMBER_OP_ROWS(pointwise_loss_rows) {
  return {
      EMBER_NN_OP("mse_loss", 2, F::mse_loss(x[0], x[1])).with_dtypes(kFloating).grad2(),
      EMBER_NN_OP("mse_loss sum", 2, F::mse_loss(x[0], x[1], F::MSELossFuncOptions(kSum))).grad2(),
      EMBER_NN_OP("mse_loss none", 2, F::mse_loss(x[0], x[1], F::MSELossFuncOptions(kNone))).grad2(),
      EMBER_NN_OP("l1_loss", 2, F::l1_loss(x[0], x[1])).with_dtypes(kFloating).grad(),
      EMBER_NN_OP("l1_loss none", 2, F::l1_loss(x[0], x[1], F::L1LossFuncOptions(kNone))).grad(),
      EMBER_NN_OP("smooth_l1_loss", 2, F::smooth_l1_loss(x[0], x[1])).with_dtypes(kFloating).in_range(-2, 2).grad2(),
      // LibTorch 1.13's F::smooth_l1_loss ignores options.beta(); its aten op is the reference for beta.
      op_pair(
          "smooth_l1_loss beta", 2,
          [](const std::vector<Tensor>& x) {
            namespace F = nn::functional;
            return F::smooth_l1_loss(x[0], x[1], F::SmoothL1LossFuncOptions(kSum).beta(0.3));
          },
          [](const std::vector<at::Tensor>& x) { return at::smooth_l1_loss(x[0], x[1], at::Reduction::Sum, 0.3); })
          .in_range(-2, 2)
          .grad2(),
      op_pair(
          "smooth_l1_loss beta 0", 2,
          [](const std::vector<Tensor>& x) {
            namespace F = nn::functional;
            return F::smooth_l1_loss(x[0], x[1], F::SmoothL1LossFuncOptions(kNone).beta(0));
          },
          [](const std::vector<at::Tensor>& x) { return at::smooth_l1_loss(x[0], x[1], at::Reduction::None, 0); })
          .grad(),
      EMBER_NN_OP("huber_loss", 2, F::huber_loss(x[0], x[1], F::HuberLossFuncOptions().delta(0.7)))
          .with_dtypes(kFloating)
          .in_range(-2, 2)
          .grad2(),
      EMBER_NN_OP("huber_loss none", 2, F::huber_loss(x[0], x[1], F::HuberLossFuncOptions(kNone))).in_range(-3, 3).grad2(),
      EMBER_NN_OP("soft_margin_loss", 2, F::soft_margin_loss(x[0], x[1]))
          .with_dtypes(kFloating)
          .with_cases(kSameShapes)
          .with_inputs(with_signs())
          .constant_inputs({1})
          .grad2(),
      EMBER_NN_OP("binary_cross_entropy", 2, F::binary_cross_entropy(x[0], x[1]))
          .with_dtypes({kFloat32, kFloat64})
          .in_ranges({{0.02, 0.98}, {0, 1}})
          .grad(),
      EMBER_NN_OP("binary_cross_entropy weighted", 3,
                  F::binary_cross_entropy(x[0], x[1], F::BinaryCrossEntropyFuncOptions().weight(x[2]).reduction(kSum)))
          .with_cases({{{4, 3}, {4, 3}, {4, 3}}, {{5}, {5}, {5}}})
          .in_ranges({{0.02, 0.98}, {0, 1}, {0.5, 2}})
          .constant_inputs({2})
          .grad(),
      EMBER_NN_OP("binary_cross_entropy_with_logits", 2, F::binary_cross_entropy_with_logits(x[0], x[1]))
          .with_dtypes(kFloating)
          .with_cases(kSameShapes)
          .in_ranges({{-6, 6}, {0, 1}})
          .grad(),
      EMBER_NN_OP("binary_cross_entropy_with_logits pos_weight", 4,
                  F::binary_cross_entropy_with_logits(
                      x[0], x[1], F::BinaryCrossEntropyWithLogitsFuncOptions().weight(x[2]).pos_weight(x[3]).reduction(kNone)))
          .with_cases({{{4, 3}, {4, 3}, {4, 3}, {3}}, {{2, 5}, {2, 5}, {1, 5}, {5}}})
          .in_ranges({{-6, 6}, {0, 1}, {0.5, 2}, {0.5, 3}})
          .constant_inputs({2, 3})
          .grad(),
      EMBER_NN_OP("kl_div batchmean", 2, F::kl_div(x[0], x[1], F::KLDivFuncOptions(kBatchMean)))
          .with_dtypes({kFloat32, kFloat64})
          .with_cases({{{4, 5}, {4, 5}}, {{3}, {3}}})
          .in_ranges({{-4, 0}, {0, 1}})
          .grad(),
      EMBER_NN_OP("kl_div log_target", 2, F::kl_div(x[0], x[1], F::KLDivFuncOptions(kSum).log_target(true)))
          .with_cases({{{4, 5}, {4, 5}}})
          .in_ranges({{-4, 0}, {-4, 0}})
          .grad(),
      EMBER_NN_OP("kl_div none", 2, F::kl_div(x[0], x[1], F::KLDivFuncOptions(kNone)))
          .with_cases({{{4, 5}, {4, 5}}})
          .in_ranges({{-4, 0}, {0, 1}})
          .grad(),
      EMBER_NN_OP("poisson_nll_loss", 2, F::poisson_nll_loss(x[0], x[1]))
          .with_dtypes({kFloat32, kFloat64})
          .in_ranges({{-2, 2}, {0, 5}})
          .grad(),
      EMBER_NN_OP("poisson_nll_loss rates full", 2,
                  F::poisson_nll_loss(x[0], x[1], F::PoissonNLLLossFuncOptions().log_input(false).full(true)))
          .with_cases(kSameShapes)
          .in_ranges({{0.1, 3}, {0, 5}})
          .grad(),
  };
}

EMBER_OP_ROWS(margin_loss_rows) {
  return {
      EMBER_NN_OP("margin_ranking_loss", 3,
                  F::margin_ranking_loss(x[0], x[1], x[2], F::MarginRankingLossFuncOptions().margin(0.2)))
          .with_dtypes(kFloating)
          .with_cases({{{6}, {6}, {6}}, {{3, 4}, {3, 4}, {3, 4}}, {{0}, {0}, {0}}})
          .with_inputs(with_signs())
          .constant_inputs({2})
          .grad(),
      EMBER_NN_OP("hinge_embedding_loss", 2, F::hinge_embedding_loss(x[0], x[1]))
          .with_dtypes(kFloating)
          .with_cases(kSameShapes)
          .with_inputs(with_signs({{-2, 2}}))
          .constant_inputs({1})
          .grad(),
      EMBER_NN_OP("cosine_embedding_loss", 3,
                  F::cosine_embedding_loss(x[0], x[1], x[2], F::CosineEmbeddingLossFuncOptions().margin(0.1)))
          .with_dtypes({kFloat32, kFloat64})
          .with_cases({{{5, 4}, {5, 4}, {5}}, {{7}, {7}, {}}})
          .with_inputs(with_signs())
          .constant_inputs({2})
          .grad(),
      EMBER_NN_OP("triplet_margin_loss", 3, F::triplet_margin_loss(x[0], x[1], x[2]))
          .with_dtypes({kFloat32, kFloat64})
          .with_cases({{{5, 4}, {5, 4}, {5, 4}}, {{3}, {3}, {3}}})
          .grad(),
      EMBER_NN_OP("triplet_margin_loss swap p1", 3,
                  F::triplet_margin_loss(x[0], x[1], x[2], F::TripletMarginLossFuncOptions().p(1).swap(true).margin(0.5)))
          .with_cases({{{5, 4}, {5, 4}, {5, 4}}})
          .grad(),
      EMBER_NN_OP("multi_margin_loss", 2, F::multi_margin_loss(x[0], x[1]))
          .with_dtypes({kFloat32, kFloat64})
          .with_cases({{{5, 4}, {5}}, {{1, 3}, {1}}})
          .with_inputs(scores_and_classes(false))
          .grad(),
      // (LibTorch 1.13 reads a non-contiguous weight wrongly, hence contiguous().)
      EMBER_NN_OP("multi_margin_loss p2 weighted", 3,
                  F::multi_margin_loss(x[0], x[1],
                                       F::MultiMarginLossFuncOptions().p(2).margin(0.7).weight(x[2].contiguous()).reduction(kNone)))
          .with_cases({{{5, 4}, {5}, {4}}})
          .with_inputs(scores_and_classes(true))
          .constant_inputs({2})
          .grad(),
      EMBER_NN_OP("multilabel_margin_loss", 2, F::multilabel_margin_loss(x[0], x[1]))
          .with_dtypes({kFloat32, kFloat64})
          .with_cases({{{5, 4}, {5, 4}}, {{6}, {6}}})
          .with_inputs([](DType dtype, const Shapes& shapes, at::Generator& gen) {
            return std::vector<at::Tensor>{random_torch(shapes[0], dtype, gen), label_lists(shapes[1], gen)};
          })
          .grad(),
      EMBER_NN_OP("ctc_loss", 4, F::ctc_loss(x[0], x[1], x[2], x[3]))
          .with_cases({{{8, 3, 5}, {3, 3}, {3}, {3}}, {{5, 1, 4}, {1, 2}, {1}, {1}}})
          .with_inputs(ctc_inputs())
          .constant_inputs({1, 2, 3})
          .grad(),
      EMBER_NN_OP("ctc_loss sum zero_infinity", 4,
                  F::ctc_loss(x[0], x[1], x[2], x[3], F::CTCLossFuncOptions().reduction(kSum).zero_infinity(true)))
          .with_cases({{{9, 4, 6}, {4, 4}, {4}, {4}}})
          .with_inputs(ctc_inputs())
          .constant_inputs({1, 2, 3})
          .grad(),
  };
}

}  // namespace ember::test
