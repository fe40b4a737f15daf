// Rows for cross_entropy and nll_loss against LibTorch's torch::nn::functional: class-index targets
// (some ignored) with and without weights and label smoothing, every reduction, unbatched, batched,
// and spatial (3-D, 4-D and 5-D) inputs, empty batches, rows of classes longer than a workgroup; class
// probabilities; nll_loss over log-probabilities. Errors and statistics are in tests/nn/functional_cross_entropy_test.cpp.
#include <torch/nn/functional/loss.h>

#include "nn/functional/cross_entropy.h"
#include "tests/op_registry.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;
namespace TF = torch::nn::functional;

enum class Red { None, Mean, Sum };

LossReduction ember_reduction(Red r) {
  if (r == Red::None) return kNone;
  return r == Red::Sum ? LossReduction(kSum) : LossReduction(kMean);
}
TF::CrossEntropyFuncOptions::reduction_t torch_reduction(Red r) {
  if (r == Red::None) return torch::kNone;
  return r == Red::Sum ? TF::CrossEntropyFuncOptions::reduction_t(torch::kSum) : torch::kMean;
}

Tensor ce(const Tensor& x, const Tensor& t, const Tensor& w, Red r, double smoothing) {
  return F::cross_entropy(
      x, t, F::CrossEntropyFuncOptions().weight(w).reduction(ember_reduction(r)).label_smoothing(smoothing));
}
at::Tensor ce(const at::Tensor& x, const at::Tensor& t, const at::Tensor& w, Red r, double smoothing) {
  return TF::cross_entropy(
      x, t, TF::CrossEntropyFuncOptions().weight(w).reduction(torch_reduction(r)).label_smoothing(smoothing));
}

Tensor nll(const Tensor& x, const Tensor& t, const Tensor& w, Red r) {
  return F::nll_loss(x, t, F::NLLLossFuncOptions().weight(w).reduction(ember_reduction(r)));
}
at::Tensor nll(const at::Tensor& x, const at::Tensor& t, const at::Tensor& w, Red r) {
  TF::NLLLossFuncOptions::reduction_t reduction = torch::kMean;
  if (r == Red::None) reduction = torch::kNone;
  if (r == Red::Sum) reduction = torch::kSum;
  return TF::nll_loss(x, t, TF::NLLLossFuncOptions().weight(w).reduction(reduction));
}

// Scores of the row's dtype, targets in range with one in four ignored (-100), and a positive weight per
// class when `weighted`.
InputMaker class_targets(bool weighted) {
  return [weighted](DType dtype, const Shapes& shapes, at::Generator& gen) {
    const at::Tensor x = random_torch(shapes[0], dtype, gen);
    const int64_t classes = shapes[0].size() == 1 ? shapes[0][0] : shapes[0][1];
    at::Tensor t = at::randint(0, std::max<int64_t>(classes, 1), shapes[1], gen, at::kLong);
    t.masked_fill_(at::randint(0, 4, shapes[1], gen, at::kLong).eq(0), -100);
    std::vector<at::Tensor> inputs = {x, t};
    if (weighted) inputs.push_back(random_torch({classes}, dtype, gen, ValueRange{0.2, 2}));
    return inputs;
  };
}

// Scores and class probabilities of the same shape (softmax over dim 1).
std::vector<at::Tensor> probability_targets(DType dtype, const Shapes& shapes, at::Generator& gen) {
  const at::Tensor x = random_torch(shapes[0], dtype, gen);
  const int64_t class_dim = shapes[0].size() == 1 ? 0 : 1;
  return {x, random_torch(shapes[0], DType::Float32, gen).softmax(class_dim).to(torch_dtype(dtype))};
}

const std::vector<Shapes> kBatches = {
    {{4, 5}, {4}}, {{1, 3}, {1}}, {{64, 10}, {64}}, {{7, 300}, {7}}, {{0, 4}, {0}}, {{3, 1}, {3}}};
const std::vector<Shapes> kSpatial = {{{2, 4, 3, 5}, {2, 3, 5}}, {{1, 3, 1, 2}, {1, 1, 2}}, {{0, 3, 2, 2}, {0, 2, 2}}};
const std::vector<Shapes> kSequences = {{{2, 4, 6}, {2, 6}}, {{3, 5, 1}, {3, 1}}};
const std::vector<Shapes> kVolumes = {{{2, 3, 2, 2, 3}, {2, 2, 2, 3}}};

EMBER_OP_ROWS(cross_entropy_rows) {
  return {
      op("cross_entropy", 2, [](const auto& x) { return ce(x[0], x[1], {}, Red::Mean, 0.0); })
          .with_dtypes(kFloating)
          .with_cases(kBatches)
          .with_inputs(class_targets(false))
          .grad2(),
      op("cross_entropy weighted sum", 3, [](const auto& x) { return ce(x[0], x[1], x[2], Red::Sum, 0.0); })
          .with_dtypes(kFloating)
          .with_cases({{{4, 5}, {4}, {5}}, {{9, 33}, {9}, {33}}})
          .with_inputs(class_targets(true))
          .constant_inputs({2})
          .grad(),
      op("cross_entropy weighted mean unbatched", 3, [](const auto& x) { return ce(x[0], x[1], x[2], Red::Mean, 0.0); })
          .with_dtypes(kFloating)
          .with_cases({{{5}, {}, {5}}, {{6, 5}, {6}, {5}}})
          .with_inputs(class_targets(true))
          .constant_inputs({2})
          .grad(),
      op("cross_entropy none", 2, [](const auto& x) { return ce(x[0], x[1], {}, Red::None, 0.0); })
          .with_dtypes(kFloating)
          .with_cases({{{4, 5}, {4}}, {{5}, {}}, {{0, 3}, {0}}})
          .with_inputs(class_targets(false))
          .grad2(),
      op("cross_entropy spatial", 2, [](const auto& x) { return ce(x[0], x[1], {}, Red::Mean, 0.0); })
          .with_dtypes(kFloating)
          .with_cases(kSpatial)
          .with_inputs(class_targets(false))
          .grad2(),
      op("cross_entropy spatial none", 2, [](const auto& x) { return ce(x[0], x[1], {}, Red::None, 0.0); })
          .with_dtypes(kFloating)
          .with_cases(kSpatial)
          .with_inputs(class_targets(false))
          .grad(),
      op("cross_entropy sequences", 2, [](const auto& x) { return ce(x[0], x[1], {}, Red::Sum, 0.0); })
          .with_dtypes(kFloating)
          .with_cases(kSequences)
          .with_inputs(class_targets(false))
          .grad(),
      op("cross_entropy sequences none", 2, [](const auto& x) { return ce(x[0], x[1], {}, Red::None, 0.0); })
          .with_dtypes(kFloating)
          .with_cases(kSequences)
          .with_inputs(class_targets(false))
          .grad(),
      op("cross_entropy volumes none", 2, [](const auto& x) { return ce(x[0], x[1], {}, Red::None, 0.0); })
          .with_dtypes(kFloating)
          .with_cases(kVolumes)
          .with_inputs(class_targets(false))
          .grad(),
      op("cross_entropy label smoothing", 3, [](const auto& x) { return ce(x[0], x[1], x[2], Red::Mean, 0.2); })
          .with_dtypes(kFloating)
          .with_cases({{{4, 5}, {4}, {5}}, {{2, 300}, {2}, {300}}, {{2, 3, 4}, {2, 4}, {3}}})
          .with_inputs(class_targets(true))
          .constant_inputs({2})
          .grad2(),
      op("cross_entropy label smoothing none", 2, [](const auto& x) { return ce(x[0], x[1], {}, Red::None, 0.1); })
          .with_dtypes(kFloating)
          .with_cases({{{4, 5}, {4}}, {{2, 3, 2, 2}, {2, 2, 2}}, {{2, 4, 3}, {2, 3}}})
          .with_inputs(class_targets(false))
          .grad(),
      op("cross_entropy label smoothing sum", 2, [](const auto& x) { return ce(x[0], x[1], {}, Red::Sum, 0.7); })
          .with_dtypes(kFloating)
          .with_cases({{{6, 3}, {6}}})
          .with_inputs(class_targets(false))
          .grad(),
      op("cross_entropy probabilities", 2, [](const auto& x) { return ce(x[0], x[1], {}, Red::Mean, 0.0); })
          .with_dtypes(kFloating)
          .with_cases({{{4, 5}, {4, 5}}, {{2, 3, 4}, {2, 3, 4}}, {{5}, {5}}})
          .with_inputs(probability_targets)
          .grad2(),
      op("cross_entropy probabilities smoothing none", 2, [](const auto& x) { return ce(x[0], x[1], {}, Red::None, 0.3); })
          .with_dtypes(kFloating)
          .with_cases({{{4, 5}, {4, 5}}})
          .with_inputs(probability_targets)
          .grad(),
      op("nll_loss", 2, [](const auto& x) { return nll(x[0], x[1], {}, Red::Mean); })
          .with_dtypes(kFloating)
          .with_cases(kBatches)
          .with_inputs(class_targets(false))
          .grad(),
      op("nll_loss weighted none", 3, [](const auto& x) { return nll(x[0], x[1], x[2], Red::None); })
          .with_dtypes(kFloating)
          .with_cases({{{4, 5}, {4}, {5}}, {{2, 3, 2, 2}, {2, 2, 2}, {3}}})
          .with_inputs(class_targets(true))
          .constant_inputs({2})
          .grad(),
      op("nll_loss spatial sum", 2, [](const auto& x) { return nll(x[0], x[1], {}, Red::Sum); })
          .with_dtypes(kFloating)
          .with_cases(kSpatial)
          .with_inputs(class_targets(false))
          .grad(),
  };
}

}  // namespace
}  // namespace ember::test
