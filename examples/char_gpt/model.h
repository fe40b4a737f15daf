#pragma once
// The model: a decoder-only transformer over characters. Token and position embeddings, pre-norm
// transformer layers under a causal mask, a final LayerNorm and a linear head to the vocabulary. Its
// parameter names are char_gpt_torch.py's, so one state dict initialises both.
#include <cstdint>

#include "ember.h"

namespace ember::char_gpt {

struct GptConfig {
  int64_t vocabulary = 0;
  int64_t context = 128;
  int64_t d_model = 128;
  int64_t heads = 4;
  int64_t layers = 4;
  double dropout = 0.0;
};

class GptImpl : public nn::Cloneable<GptImpl> {
 public:
  explicit GptImpl(const GptConfig& config);
  void reset() override;
  // tokens (B, T) int64, T <= context: logits (B, T, vocabulary) for the character after each position.
  Tensor forward(const Tensor& tokens);

  GptConfig config;
  nn::Embedding tok_emb = nullptr, pos_emb = nullptr;
  nn::TransformerEncoder blocks = nullptr;
  nn::LayerNorm ln_f = nullptr;
  nn::Linear head = nullptr;
};
EMBER_MODULE(Gpt);

}  // namespace ember::char_gpt
