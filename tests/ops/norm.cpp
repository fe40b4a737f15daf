// Rows for the normalisation functionals against LibTorch's torch::nn::functional: batch norm (training
// with batch statistics, eval with running ones, with and without affine parameters), layer norm (one
// and two normalised dims), group norm and instance norm. Running statistics updated in place are
// tested in tests/nn/functional_norm_test.cpp; a row's inputs are never written.
#include <torch/nn/functional/batchnorm.h>
#include <torch/nn/functional/instancenorm.h>
#include <torch/nn/functional/normalization.h>

#include "nn/functional/batchnorm.h"
#include "nn/functional/instancenorm.h"
#include "nn/functional/normalization.h"
#include "tests/op_registry.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;
namespace TF = torch::nn::functional;

Tensor bn_training(const Tensor& x, const Tensor& w, const Tensor& b) {
  return F::batch_norm(x, {}, {}, F::BatchNormFuncOptions().weight(w).bias(b).training(true));
}
at::Tensor bn_training(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  return TF::batch_norm(x, {}, {}, TF::BatchNormFuncOptions().weight(w).bias(b).training(true));
}

Tensor bn_eval(const Tensor& x, const Tensor& mean, const Tensor& var, const Tensor& w, const Tensor& b) {
  return F::batch_norm(x, mean, var, F::BatchNormFuncOptions().weight(w).bias(b).eps(1e-3));
}
at::Tensor bn_eval(const at::Tensor& x, const at::Tensor& mean, const at::Tensor& var, const at::Tensor& w,
                   const at::Tensor& b) {
  return TF::batch_norm(x, mean, var, TF::BatchNormFuncOptions().weight(w).bias(b).eps(1e-3));
}

Tensor bn_plain(const Tensor& x) { return F::batch_norm(x, {}, {}, F::BatchNormFuncOptions().training(true)); }
at::Tensor bn_plain(const at::Tensor& x) {
  return TF::batch_norm(x, {}, {}, TF::BatchNormFuncOptions().training(true));
}

// Normalised over weight's shape.
Tensor ln(const Tensor& x, const Tensor& w, const Tensor& b) {
  return F::layer_norm(x, F::LayerNormFuncOptions(w.sizes().vec()).weight(w).bias(b));
}
at::Tensor ln(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  return TF::layer_norm(x, TF::LayerNormFuncOptions(w.sizes().vec()).weight(w).bias(b).eps(1e-5));
}

Tensor ln_plain(const Tensor& x) { return F::layer_norm(x, F::LayerNormFuncOptions({x.size(-1)}).eps(1e-3)); }
at::Tensor ln_plain(const at::Tensor& x) {
  return TF::layer_norm(x, TF::LayerNormFuncOptions({x.size(-1)}).eps(1e-3));
}

Tensor gn(const Tensor& x, const Tensor& w, const Tensor& b, int64_t groups) {
  return F::group_norm(x, F::GroupNormFuncOptions(groups).weight(w).bias(b));
}
at::Tensor gn(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b, int64_t groups) {
  return TF::group_norm(x, TF::GroupNormFuncOptions(groups).weight(w).bias(b));
}

Tensor gn_plain(const Tensor& x, int64_t groups) { return F::group_norm(x, F::GroupNormFuncOptions(groups)); }
at::Tensor gn_plain(const at::Tensor& x, int64_t groups) {
  return TF::group_norm(x, TF::GroupNormFuncOptions(groups));
}

Tensor in_affine(const Tensor& x, const Tensor& w, const Tensor& b) {
  return F::instance_norm(x, F::InstanceNormFuncOptions().weight(w).bias(b));
}
at::Tensor in_affine(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  return TF::instance_norm(x, TF::InstanceNormFuncOptions().weight(w).bias(b));
}

Tensor in_running(const Tensor& x, const Tensor& mean, const Tensor& var) {
  return F::instance_norm(x, F::InstanceNormFuncOptions().running_mean(mean).running_var(var).use_input_stats(false));
}
at::Tensor in_running(const at::Tensor& x, const at::Tensor& mean, const at::Tensor& var) {
  return TF::instance_norm(x,
                           TF::InstanceNormFuncOptions().running_mean(mean).running_var(var).use_input_stats(false));
}

EMBER_OP_ROWS(norm_rows) {
  // Batch statistics of a batch broadcast from one sample are sums of equal values, which LibTorch and
  // ember round differently in the last bit before a near-zero variance magnifies it: no broadcast layout.
  return {
      op("batch_norm training", 3, [](const auto& x) { return bn_training(x[0], x[1], x[2]); })
          .with_dtypes(kFloating)
          .with_cases({{{4, 3}, {3}, {3}},
                       {{2, 3, 5}, {3}, {3}},
                       {{1, 3, 7, 5}, {3}, {3}},
                       {{0, 3, 4}, {3}, {3}},
                       {{3, 5, 300}, {5}, {5}},
                       {{6, 33}, {33}, {33}}})
          .without_broadcast_layout()
          .grad2(),
      op("batch_norm training without affine", [](const auto& x) { return bn_plain(x[0]); })
          .with_dtypes(kFloating)
          .with_cases({{{5, 2, 3}}, {{7, 4}}})
          .without_broadcast_layout()
          .grad(),
      op("batch_norm eval", 5, [](const auto& x) { return bn_eval(x[0], x[1], x[2], x[3], x[4]); })
          .with_dtypes(kFloating)
          .in_ranges({{-4, 4}, {-1, 1}, {0.5, 2}, {-2, 2}})
          .constant_inputs({1, 2})
          .with_cases({{{4, 3}, {3}, {3}, {3}, {3}}, {{2, 3, 5, 2}, {3}, {3}, {3}, {3}}, {{1, 5}, {5}, {5}, {5}, {5}}})
          .grad2(),
      op("layer_norm", 3, [](const auto& x) { return ln(x[0], x[1], x[2]); })
          .with_dtypes(kFloating)
          .with_cases({{{4, 5}, {5}, {5}},
                       {{2, 3, 4}, {3, 4}, {3, 4}},
                       {{0, 7}, {7}, {7}},
                       {{3, 300}, {300}, {300}},
                       {{1, 2, 3}, {3}, {3}}})
          .grad2(),
      op("layer_norm without affine", [](const auto& x) { return ln_plain(x[0]); })
          .with_dtypes(kFloating)
          .with_cases({{{3, 9}}, {{2, 2, 17}}, {{5}}})
          .grad(),
      op("group_norm", 3, [](const auto& x) { return gn(x[0], x[1], x[2], 3); })
          .with_dtypes(kFloating)
          .with_cases({{{2, 6, 3}, {6}, {6}}, {{1, 3, 4, 5}, {3}, {3}}, {{3, 6}, {6}, {6}}, {{0, 3, 2}, {3}, {3}},
                       {{2, 9, 40}, {9}, {9}}})
          .grad2(),
      op("group_norm without affine", [](const auto& x) { return gn_plain(x[0], 2); })
          .with_dtypes(kFloating)
          .with_cases({{{2, 4, 3, 3}}, {{3, 2, 7}}})
          .grad(),
      op("instance_norm", 3, [](const auto& x) { return in_affine(x[0], x[1], x[2]); })
          .with_dtypes(kFloating)
          .with_cases({{{2, 3, 5}, {3}, {3}}, {{1, 2, 4, 4}, {2}, {2}}})
          .without_broadcast_layout()
          .grad2(),
      op("instance_norm running stats", 3, [](const auto& x) { return in_running(x[0], x[1], x[2]); })
          .with_dtypes(kFloating)
          .in_ranges({{-4, 4}, {-1, 1}, {0.5, 2}})
          .constant_inputs({1, 2})
          .with_cases({{{2, 3, 5}, {3}, {3}}})
          .without_broadcast_layout()  // ATen writes the running statistics back, even unchanged
          .grad(),
  };
}

}  // namespace
}  // namespace ember::test
