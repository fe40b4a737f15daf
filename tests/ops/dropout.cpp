// Rows for dropout against LibTorch's torch::nn::functional. Masks are random (ember's Philox is not
// LibTorch's generator), so the rows compare what does not depend on the mask: sizes and dtypes in
// training; the input itself in eval; and, with p = 0.5, where(y != 0, y / 2, x), which is x exactly
// when every kept value is twice the input, with a gradient of one everywhere only when the backward
// applies the forward's own mask. Statistics are tested in tests/nn/functional_dropout_test.cpp.
#include <torch/nn/functional/dropout.h>

#include "nn/functional/dropout.h"
#include "tests/op_registry.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;
namespace TF = torch::nn::functional;

Tensor dropout_of(const Tensor& x, double p, bool training) {
  return F::dropout(x, F::DropoutFuncOptions().p(p).training(training));
}
at::Tensor dropout_of(const at::Tensor& x, double p, bool training) {
  return TF::dropout(x, TF::DropoutFuncOptions().p(p).training(training));
}

Tensor dropout2d_of(const Tensor& x, double p, bool training) {
  return F::dropout2d(x, F::Dropout2dFuncOptions().p(p).training(training));
}
at::Tensor dropout2d_of(const at::Tensor& x, double p, bool training) {
  return TF::dropout2d(x, TF::Dropout2dFuncOptions().p(p).training(training));
}

Tensor alpha_dropout_of(const Tensor& x, double p, bool training) {
  return F::alpha_dropout(x, F::AlphaDropoutFuncOptions().p(p).training(training));
}
at::Tensor alpha_dropout_of(const at::Tensor& x, double p, bool training) {
  return TF::alpha_dropout(x, TF::AlphaDropoutFuncOptions().p(p).training(training));
}

Tensor feature_alpha_dropout_of(const Tensor& x, double p, bool training) {
  return F::feature_alpha_dropout(x, F::FeatureAlphaDropoutFuncOptions().p(p).training(training));
}
at::Tensor feature_alpha_dropout_of(const at::Tensor& x, double p, bool training) {
  return TF::feature_alpha_dropout(x, TF::FeatureAlphaDropoutFuncOptions().p(p).training(training));
}

// x where the dropout of x (p = 0.5) kept exactly 2x, and x where it dropped.
template <class T, class Dropout>
T kept_halved(const T& x, Dropout dropout) {
  const T y = dropout(x);
  return (y * 0.5).where(y.ne(0), x);
}

const std::vector<Shapes> kFeatureCases = {{{2, 3, 4, 5}}, {{1, 4, 3, 3}}, {{3, 2, 1, 7}}};

EMBER_OP_ROWS(dropout_rows) {
  return {
      op("dropout",
         [](const auto& x) { return dropout_of(x[0], 0.3, true); })
          .with_dtypes(kFloating)
          .sizes_only(),
      op("dropout kept values are scaled",
         [](const auto& x) { return kept_halved(x[0], [](const auto& t) { return dropout_of(t, 0.5, true); }); })
          .with_dtypes(kFloating)
          .without_broadcast_layout()
          .grad(),
      op("dropout eval", [](const auto& x) { return dropout_of(x[0], 0.5, false); }).with_dtypes(kFloating).grad(),
      op("dropout2d",
         [](const auto& x) { return dropout2d_of(x[0], 0.3, true); })
          .with_dtypes(kFloating)
          .with_cases(kFeatureCases)
          .sizes_only(),
      op("dropout2d kept values are scaled",
         [](const auto& x) { return kept_halved(x[0], [](const auto& t) { return dropout2d_of(t, 0.5, true); }); })
          .with_dtypes(kFloating)
          .with_cases(kFeatureCases)
          .without_broadcast_layout()
          .grad(),
      op("alpha_dropout", [](const auto& x) { return alpha_dropout_of(x[0], 0.2, true); })
          .with_dtypes(kFloating)
          .sizes_only(),
      op("alpha_dropout eval", [](const auto& x) { return alpha_dropout_of(x[0], 0.2, false); })
          .with_dtypes(kFloating)
          .grad(),
      op("feature_alpha_dropout", [](const auto& x) { return feature_alpha_dropout_of(x[0], 0.2, true); })
          .with_dtypes(kFloating)
          .with_cases(kFeatureCases)
          .sizes_only(),
  };
}

}  // namespace
}  // namespace ember::test
