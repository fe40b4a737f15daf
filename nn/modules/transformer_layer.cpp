#include "nn/modules/transformer_layer.h"

#include "nn/functional/activation.h"

namespace ember::nn {

namespace detail {

Tensor transformer_activation(const TransformerActivation& activation, const Tensor& x) {
  if (std::holds_alternative<enumtype::kReLU>(activation)) return functional::relu(x);
  if (std::holds_alternative<enumtype::kGELU>(activation)) return functional::gelu(x);
  return std::get<std::function<Tensor(const Tensor&)>>(activation)(x);
}

}  // namespace detail

namespace {

MultiheadAttentionOptions attention_options(const TransformerEncoderLayerOptions& options) {
  return MultiheadAttentionOptions(options.d_model(), options.nhead())
      .dropout(options.dropout())
      .batch_first(options.batch_first());
}

LayerNormOptions norm_options(const TransformerEncoderLayerOptions& options) {
  return LayerNormOptions({options.d_model()}).eps(options.layer_norm_eps());
}

}  // namespace

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& options)
    : options(options) {
  reset();
}

void TransformerEncoderLayerImpl::reset() {
  self_attn = register_module("self_attn", MultiheadAttention(attention_options(options)));
  linear1 = register_module("linear1", Linear(options.d_model(), options.dim_feedforward()));
  dropout = register_module("dropout", Dropout(options.dropout()));
  linear2 = register_module("linear2", Linear(options.dim_feedforward(), options.d_model()));
  norm1 = register_module("norm1", LayerNorm(norm_options(options)));
  norm2 = register_module("norm2", LayerNorm(norm_options(options)));
  dropout1 = register_module("dropout1", Dropout(options.dropout()));
  dropout2 = register_module("dropout2", Dropout(options.dropout()));
}

Tensor TransformerEncoderLayerImpl::forward(const Tensor& src, const Tensor& src_mask,
                                            const Tensor& src_key_padding_mask) {
  auto self_attention = [&](const Tensor& x) {
    return dropout1(std::get<0>(self_attn(x, x, x, src_key_padding_mask, /*need_weights=*/false, src_mask)));
  };
  auto feed_forward = [&](const Tensor& x) {
    return dropout2(linear2(dropout(detail::transformer_activation(options.activation(), linear1(x)))));
  };
  if (options.norm_first()) {
    const Tensor x = src + self_attention(norm1(src));
    return x + feed_forward(norm2(x));
  }
  const Tensor x = norm1(src + self_attention(src));
  return norm2(x + feed_forward(x));
}

TransformerDecoderLayerImpl::TransformerDecoderLayerImpl(const TransformerDecoderLayerOptions& options)
    : options(options) {
  reset();
}

void TransformerDecoderLayerImpl::reset() {
  self_attn = register_module("self_attn", MultiheadAttention(attention_options(options)));
  multihead_attn = register_module("multihead_attn", MultiheadAttention(attention_options(options)));
  linear1 = register_module("linear1", Linear(options.d_model(), options.dim_feedforward()));
  dropout = register_module("dropout", Dropout(options.dropout()));
  linear2 = register_module("linear2", Linear(options.dim_feedforward(), options.d_model()));
  norm1 = register_module("norm1", LayerNorm(norm_options(options)));
  norm2 = register_module("norm2", LayerNorm(norm_options(options)));
  norm3 = register_module("norm3", LayerNorm(norm_options(options)));
  dropout1 = register_module("dropout1", Dropout(options.dropout()));
  dropout2 = register_module("dropout2", Dropout(options.dropout()));
  dropout3 = register_module("dropout3", Dropout(options.dropout()));
}

Tensor TransformerDecoderLayerImpl::forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask,
                                            const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                            const Tensor& memory_key_padding_mask) {
  auto self_attention = [&](const Tensor& x) {
    return dropout1(std::get<0>(self_attn(x, x, x, tgt_key_padding_mask, /*need_weights=*/false, tgt_mask)));
  };
  auto memory_attention = [&](const Tensor& x) {
    return dropout2(std::get<0>(
        multihead_attn(x, memory, memory, memory_key_padding_mask, /*need_weights=*/false, memory_mask)));
  };
  auto feed_forward = [&](const Tensor& x) {
    return dropout3(linear2(dropout(detail::transformer_activation(options.activation(), linear1(x)))));
  };
  if (options.norm_first()) {
    Tensor x = tgt + self_attention(norm1(tgt));
    x = x + memory_attention(norm2(x));
    return x + feed_forward(norm3(x));
  }
  Tensor x = norm1(tgt + self_attention(tgt));
  x = norm2(x + memory_attention(x));
  return norm3(x + feed_forward(x));
}

}  // namespace ember::nn
