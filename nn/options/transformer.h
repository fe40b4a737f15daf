#pragma once
// Options of MultiheadAttention and the transformer modules, with LibTorch 1.13's fields and defaults,
// plus what its C++ options lack and Python has: batch_first, norm_first and layer_norm_eps
// (https://pytorch.org/docs/1.13/generated/torch.nn.Transformer.html).
#include <cstdint>
#include <functional>
#include <variant>

#include "nn/arg.h"
#include "nn/enums.h"
#include "nn/modules/container/any_module.h"

namespace ember::nn {

struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads), kdim_(embed_dim), vdim_(embed_dim) {}
  EMBER_ARG(int64_t, embed_dim);
  EMBER_ARG(int64_t, num_heads);
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, add_bias_kv) = false;
  EMBER_ARG(bool, add_zero_attn) = false;
  EMBER_ARG(int64_t, kdim);
  EMBER_ARG(int64_t, vdim);
  // Inputs and outputs are (N, L, E) instead of (L, N, E).
  EMBER_ARG(bool, batch_first) = false;
};

// The feed-forward activation of the transformer layers: relu, gelu, or any function.
using TransformerActivation = std::variant<enumtype::kReLU, enumtype::kGELU, std::function<Tensor(const Tensor&)>>;

struct TransformerEncoderLayerOptions {
  TransformerEncoderLayerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  EMBER_ARG(int64_t, d_model);
  EMBER_ARG(int64_t, nhead);
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_ARG(double, dropout) = 0.1;
  EMBER_ARG(TransformerActivation, activation) = kReLU;
  EMBER_ARG(double, layer_norm_eps) = 1e-5;
  EMBER_ARG(bool, batch_first) = false;
  // LayerNorm before attention and feed-forward (pre-norm) instead of after each residual sum.
  EMBER_ARG(bool, norm_first) = false;
};

using TransformerDecoderLayerOptions = TransformerEncoderLayerOptions;

}  // namespace ember::nn
