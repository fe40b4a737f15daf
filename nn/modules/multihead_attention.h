#pragma once
// Multi-head attention (https://pytorch.org/docs/1.13/generated/torch.nn.MultiheadAttention.html).
#include <string>
#include <tuple>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/modules/linear.h"
#include "nn/options/transformer.h"

namespace ember::nn {

// softmax(q kᵀ / sqrt(head_dim) + mask) v per head over projected inputs, then the output projection.
//   nn::MultiheadAttention mha(64, 8);  auto [out, weights] = mha(q, k, v);  // (L, N, 64), (N, L, S)
// Inputs are (L, N, E) (or (N, L, E) with batch_first, or unbatched (L, E)). A bool attn_mask or
// key_padding_mask hides the positions that are true; a floating one is added to the scores. attn_mask
// is (L, S) or (N * num_heads, L, S); key_padding_mask is (N, S). With need_weights false, attention runs
// through scaled_dot_product_attention's kernels and no weights are returned (an undefined tensor).
// The projection weights are stored as PyTorch stores them (in_proj_weight when kdim = vdim = embed_dim,
// else q/k/v_proj_weight), so state dicts load across.
class MultiheadAttentionImpl : public Cloneable<MultiheadAttentionImpl> {
 public:
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttentionImpl(MultiheadAttentionOptions(embed_dim, num_heads)) {}
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options);
  void reset() override;
  // PyTorch's: xavier_uniform_ projections, zero biases, xavier_normal_ bias_k and bias_v.
  void reset_parameters();
  std::string extra_repr() const override { return ""; }
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const Tensor& key_padding_mask = {}, bool need_weights = true,
                                     const Tensor& attn_mask = {}, bool average_attn_weights = true);

  MultiheadAttentionOptions options;
  bool qkv_same_embed_dim = true;
  int64_t head_dim = 0;
  Tensor in_proj_weight;                               // (3 E, E), when qkv_same_embed_dim
  Tensor q_proj_weight, k_proj_weight, v_proj_weight;  // (E, E), (E, kdim), (E, vdim) otherwise
  Tensor in_proj_bias;                                 // (3 E), with bias
  Tensor bias_k, bias_v;                               // (1, 1, E), with add_bias_kv
  Linear out_proj = nullptr;
};
EMBER_MODULE(MultiheadAttention);

}  // namespace ember::nn
