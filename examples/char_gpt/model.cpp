#include "examples/char_gpt/model.h"

namespace ember::char_gpt {

GptImpl::GptImpl(const GptConfig& config) : config(config) { reset(); }

void GptImpl::reset() {
  tok_emb = register_module("tok_emb", nn::Embedding(config.vocabulary, config.d_model));
  pos_emb = register_module("pos_emb", nn::Embedding(config.context, config.d_model));
  const auto layer = nn::TransformerEncoderLayerOptions(config.d_model, config.heads)
                         .dim_feedforward(4 * config.d_model)
                         .dropout(config.dropout)
                         .activation(kGELU)
                         .batch_first(true)
                         .norm_first(true);
  blocks = register_module("blocks", nn::TransformerEncoder(nn::TransformerEncoderOptions(layer, config.layers)));
  ln_f = register_module("ln_f", nn::LayerNorm(nn::LayerNormOptions({config.d_model})));
  head = register_module("head", nn::Linear(nn::LinearOptions(config.d_model, config.vocabulary).bias(false)));
}

Tensor GptImpl::forward(const Tensor& tokens) {
  const int64_t length = tokens.size(1);
  if (length > config.context) {
    throw Error("a sequence of " + std::to_string(length) + " tokens is longer than the context, " +
                std::to_string(config.context));
  }
  const Tensor positions = arange(length, TensorOptions().dtype(DType::Int64).device(tokens.device()));
  const Tensor causal = nn::TransformerImpl::generate_square_subsequent_mask(length, tokens.device());
  const Tensor x = blocks(tok_emb(tokens) + pos_emb(positions), causal);
  return head(ln_f(x));
}

}  // namespace ember::char_gpt
