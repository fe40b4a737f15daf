#pragma once
// scaled_dot_product_attention with PyTorch 2's semantics
// (https://pytorch.org/docs/2.1/generated/torch.nn.functional.scaled_dot_product_attention.html):
//
//   auto out = F::scaled_dot_product_attention(q, k, v, {}, 0.0, /*is_causal=*/true);
//
// q is (..., L, E), k (..., S, E), v (..., S, Ev); the leading (batch and head) dims broadcast. attn_mask
// is bool (true takes part) or floating (added to the scores) and broadcasts to (..., L, S); is_causal
// hides key j from query i where j > i; dropout_p drops weights (always, as the function does in
// PyTorch); scale defaults to 1 / sqrt(E). The result is (..., L, Ev).
//
// The attention kernels (runtime/kernels/attention.h) compute it without an L × S matrix in memory, and
// its gradients from the saved log-sum-exp (node ScaledDotProductFlashAttentionBackward0). Dropout, more
// than 256 features, a mask that requires grad or a device without the kernels take the composed path
// (softmax(q kᵀ scale + mask) v from other ops), which says so once on stderr.
#include <optional>

#include "tensor/tensor.h"

namespace ember::nn::functional {

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask = {}, double dropout_p = 0.0, bool is_causal = false,
                                    std::optional<double> scale = std::nullopt);

namespace detail {
// softmax(q kᵀ scale + mask), with -inf where causality hides a key; `additive_mask` is added to the
// scores (or undefined). MultiheadAttention's weights come from here.
Tensor attention_weights(const Tensor& q, const Tensor& k, const Tensor& additive_mask, bool is_causal, double scale);
// The composed path: attention_weights(...) v from other ops, as PyTorch's math path, differentiable by
// its ops; `mask` as scaled_dot_product_attention's.
Tensor composed_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, double dropout_p,
                          bool is_causal, double scale);
}  // namespace detail

}  // namespace ember::nn::functional
