#pragma once
// Transformer encoder and decoder layers
// (https://pytorch.org/docs/1.13/generated/torch.nn.TransformerEncoderLayer.html and
// https://pytorch.org/docs/1.13/generated/torch.nn.TransformerDecoderLayer.html).
#include <string>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/modules/dropout.h"
#include "nn/modules/linear.h"
#include "nn/modules/multihead_attention.h"
#include "nn/modules/normalization.h"
#include "nn/options/transformer.h"

namespace ember::nn {

// Self-attention, then a feed-forward block (linear, activation, linear), each in a residual sum with
// LayerNorm after it (or before, with norm_first).
//   nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(512, 8));  layer(src)  // (S, N, 512)
class TransformerEncoderLayerImpl : public Cloneable<TransformerEncoderLayerImpl> {
 public:
  TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayerImpl(TransformerEncoderLayerOptions(d_model, nhead)) {}
  explicit TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& options);
  void reset() override;
  // src_mask and src_key_padding_mask as MultiheadAttention's attn_mask and key_padding_mask.
  Tensor forward(const Tensor& src, const Tensor& src_mask = {}, const Tensor& src_key_padding_mask = {});

  TransformerEncoderLayerOptions options;
  MultiheadAttention self_attn = nullptr;
  Linear linear1 = nullptr, linear2 = nullptr;
  Dropout dropout = nullptr, dropout1 = nullptr, dropout2 = nullptr;
  LayerNorm norm1 = nullptr, norm2 = nullptr;
};
EMBER_MODULE(TransformerEncoderLayer);

// Self-attention, attention over the encoder's output (memory), then a feed-forward block, each in a
// residual sum with LayerNorm after it (or before, with norm_first).
//   nn::TransformerDecoderLayer layer(nn::TransformerDecoderLayerOptions(512, 8));  layer(tgt, memory)
class TransformerDecoderLayerImpl : public Cloneable<TransformerDecoderLayerImpl> {
 public:
  TransformerDecoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerDecoderLayerImpl(TransformerDecoderLayerOptions(d_model, nhead)) {}
  explicit TransformerDecoderLayerImpl(const TransformerDecoderLayerOptions& options);
  void reset() override;
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});

  TransformerDecoderLayerOptions options;
  MultiheadAttention self_attn = nullptr, multihead_attn = nullptr;
  Linear linear1 = nullptr, linear2 = nullptr;
  Dropout dropout = nullptr, dropout1 = nullptr, dropout2 = nullptr, dropout3 = nullptr;
  LayerNorm norm1 = nullptr, norm2 = nullptr, norm3 = nullptr;
};
EMBER_MODULE(TransformerDecoderLayer);

namespace detail {
// The layers' feed-forward activation.
Tensor transformer_activation(const TransformerActivation& activation, const Tensor& x);
}  // namespace detail

}  // namespace ember::nn
