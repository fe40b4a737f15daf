#pragma once
// nn::functional::embedding and embedding_bag (https://pytorch.org/docs/1.13/nn.functional.html#sparse-functions).
#include "nn/options/embedding.h"

namespace ember::nn::functional {

// weight's rows at `input` (any shape of int32 or int64 indices): (*input, embedding_dim). Its backward
// accumulates the output's gradient rows into weight's with one index_add (EmbeddingBackward0); the
// padding_idx row gets none. max_norm renormalises the looked-up rows of weight in place first.
Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options = {});
// Sums, means or maxima of bags of embeddings: a 2-d input is one bag per row; a 1-d input is cut into
// bags at `offsets`.
Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& options = {});

}  // namespace ember::nn::functional
