#pragma once
// LibTorch's math path of attention, the oracle of the attention kernels' tests (tests/nn/attention_test.cpp
// and the op rows in tests/ops/attention.cpp).
#include <ATen/ATen.h>

#include <cmath>
#include <limits>
#include <optional>

namespace ember::test {

// softmax(q kᵀ scale + mask) v on whatever dtype the tensors have. `mask` is bool (true takes part) or
// additive, or undefined; causal hides key j from query i where j > i; scale defaults to 1 / sqrt(E).
inline at::Tensor math_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& mask,
                                 bool causal, std::optional<double> scale = std::nullopt) {
  const double factor = scale.value_or(1 / std::sqrt(static_cast<double>(q.size(-1))));
  at::Tensor scores = at::matmul(q, k.transpose(-2, -1)) * factor;
  if (causal) {
    const at::Tensor keep = at::ones({q.size(-2), k.size(-2)}, q.options().dtype(at::kBool)).tril();
    scores = scores.masked_fill(keep.logical_not(), -std::numeric_limits<double>::infinity());
  }
  if (mask.defined()) {
    scores = mask.scalar_type() == at::kBool
                 ? scores.masked_fill(mask.logical_not(), -std::numeric_limits<double>::infinity())
                 : scores + mask;
  }
  return at::matmul(at::softmax(scores, -1), v);
}

}  // namespace ember::test
